// The figures of benches/README.md's "Chips" section: ui/'s size, and the time Chromium
// takes to render 1,000 chips (setting `report` on <mentor-sources> until layout is done),
// the median of 31 renders after 5 unrecorded ones. Run: node ui-measure.mjs (with
// MENTOR_CONTEXT_BIN as for the tests).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { sizes } from './ui-bundle.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bin = process.env.MENTOR_CONTEXT_BIN ?? path.join(root, 'target/debug/mentor-context');
const { code, ...size } = await sizes();
console.log('size (bytes):', size);

// 1,000 results with a title, an https URL and two metadata entries each, assembled whole.
const results = Array.from({ length: 1000 }, (_, i) => ({
  content: `Document ${i} says something about item ${i}.`, score: 1 - i / 2000, title: `Document number ${i}`,
  sourceUrl: `https://docs${i % 7}.example/page/${i}`, metadata: { 'valid from': '2026-01-01', chunk_id: `doc-${i}#1` },
}));
const input = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mentor-ui-')), 'thousand.json');
fs.writeFileSync(input, JSON.stringify(results));
const report = JSON.parse(execFileSync(bin, ['assemble', '--json', '--budget', '200000', '--max-blocks', '1000', '--keep-duplicates', input], { encoding: 'utf8', maxBuffer: 1 << 28 }));
console.log('chips:', report.citations.length);

const server = http.createServer((req, res) => {
  if (req.url === '/') {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><html lang="en"><title>m</title><script type="module" src="/m.js"></script><mentor-sources id="s"></mentor-sources>');
  } else if (req.url === '/m.js') {
    res.writeHead(200, { 'Content-Type': 'text/javascript' });
    res.end(code);
  } else { res.writeHead(204); res.end(); }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.waitForFunction(() => customElements.get('mentor-sources'));
const times = await page.evaluate((r) => {
  const el = document.getElementById('s');
  const out = [];
  for (let i = 0; i < 36; i += 1) {
    el.report = null;
    el.getBoundingClientRect();
    const t = performance.now();
    el.report = r;
    const built = performance.now();
    el.shadowRoot.querySelector('li:last-child').getBoundingClientRect();
    if (i >= 5) out.push([performance.now() - t, built - t]);
  }
  return out;
}, report);
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
const all = times.map((t) => t[0]).sort((a, b) => a - b);
console.log('1,000 chips, ms: median', median(all), 'min', all[0].toFixed(1), 'max', all.at(-1).toFixed(1),
  '; of which building the DOM: median', median(times.map((t) => t[1])));
await browser.close();
server.close();
