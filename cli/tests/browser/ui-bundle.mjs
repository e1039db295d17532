// ui/'s module as one file, minified, for its size: the files in import order, imports and
// export keywords dropped, through terser. Used by ui.test.mjs (the size bound) and
// ui-measure.mjs (the figure in benches/README.md).

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';

const ui = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ui');
const FILES = ['src/report.js', 'src/marks.js', 'src/style.js', 'src/sources.js', 'src/answer.js', 'mentor-context-ui.js'];

/** The module's sizes in bytes: raw, gzipped, minified, minified and gzipped. */
export async function sizes() {
  const source = FILES.map((f) => fs.readFileSync(path.join(ui, f), 'utf8')
    .replace(/^import [^;]+;$/gm, '')
    .replace(/^export \{[^}]*\};$/gm, '')
    .replace(/^export /gm, '')).join('\n');
  const { code } = await minify(source, { module: true, compress: { passes: 2 }, mangle: true });
  const gz = (text) => zlib.gzipSync(text, { level: 9 }).length;
  return { raw: Buffer.byteLength(source), rawGzip: gz(source), minified: Buffer.byteLength(code), minifiedGzip: gz(code), code };
}
