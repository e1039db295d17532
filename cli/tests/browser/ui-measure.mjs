// The figures of benches/README.md's "Chips" section: ui/'s size, and the time Chromium
// takes to render 1,000 chips (setting `report` on <mentor-sources> until layout is done),
// 31 renders after 5 unrecorded ones, each beside a bare list of the same texts. Run: node ui-measure.mjs (with
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
// Alternated with the floor: the same 1,000 texts as bare <li><button> in the page, no
// element, no shadow root, no style. The machine is shared, so the ratio is the figure.
const times = await page.evaluate((r) => {
  const el = document.getElementById('s');
  const floor = document.createElement('div');
  document.body.append(floor);
  const out = [];
  for (let i = 0; i < 36; i += 1) {
    el.report = null;
    floor.replaceChildren();
    el.getBoundingClientRect();
    let t = performance.now();
    el.report = r;
    el.shadowRoot.querySelector('li:last-child').getBoundingClientRect();
    const ours = performance.now() - t;
    el.report = null;
    el.getBoundingClientRect();
    t = performance.now();
    const ol = document.createElement('ol');
    for (const c of r.citations) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.textContent = `${c.index} ${c.title} ${new URL(c.sourceUrl).host}`;
      li.append(b);
      ol.append(li);
    }
    floor.append(ol);
    ol.lastChild.getBoundingClientRect();
    if (i >= 5) out.push({ ours, floor: performance.now() - t });
  }
  return out;
}, report);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ours = times.map((t) => t.ours);
console.log(`1,000 chips: median ${median(ours).toFixed(1)} ms (min ${Math.min(...ours).toFixed(1)}, max ${Math.max(...ours).toFixed(1)});`,
  `bare list floor median ${median(times.map((t) => t.floor)).toFixed(1)} ms; median ratio ${median(times.map((t) => t.ours / t.floor)).toFixed(2)}`);
await browser.close();
server.close();
