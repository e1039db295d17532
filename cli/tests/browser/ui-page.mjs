// What ui's tests share: the page (served with `default-src 'self'`, the module from 'self'),
// the browser, the command's reports and resolutions, and the streams made from them.

import { before, after } from 'node:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../../..');
const bin = process.env.MENTOR_CONTEXT_BIN ?? path.join(root, 'target/debug/mentor-context');
export const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mentor-context-ui-'));
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const CSP = "default-src 'self'";
export const AXE = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Runs the command in the repository's root; its standard output. */
export function command(args) {
  return execFileSync(bin, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A file in the scratch folder. */
export function scratch(name, text) {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  return file;
}

export const PRICING = 'fixtures/pricing.json';
const DIALECTS = ['anthropic', 'anthropic-documents', 'bedrock', 'cohere', 'mistral'];
/** Every layout of a report, by name: its `assemble` arguments. */
export const LAYOUTS = {
  plain: ['--budget', '1500', PRICING],
  xml: ['--budget', '1500', '--format', 'xml', PRICING],
  cut: ['--budget', '700', PRICING],
  'hostile-heads': ['--budget', '2000', 'fixtures/hostile-heads.json'],
  multilingual: ['--budget', '3000', 'fixtures/multilingual.json'],
  ...Object.fromEntries(DIALECTS.map((d) => [d, ['--dialect', d, PRICING]])),
};
export const ANSWER = 'Team costs 15 EUR a seat [1], "billed per active seat" [1]; it is "billed per minute" [1]; add-ons cost extra [3, 4] (see [2]); [99] is no block, nor [2, 99].\n';

/** A request whose every string is an attack, and an answer that is one too. */
export const HOSTILE_INPUT = [
  { content: 'One.', score: 0.9, title: '<img src=x onerror=alert(1)>', sourceUrl: 'javascript:alert(2)',
    metadata: { '<b onmouseover=alert(3)>key</b>': '<script>alert(4)</script>', note: null } },
  { content: 'Two.', score: 0.8, sourceUrl: 'data:text/html,<script>alert(5)</script>' },
  { content: 'Three.', score: 0.7, title: 'Tab', sourceUrl: ' \tJaVaScRiPt:alert(6)' },
  { content: 'Four.', score: 0.6, title: '"><svg onload=alert(7)>', sourceUrl: 'https://ok.example/a?b="<x>' },
  { content: 'Five.', score: 0.5, title: 'File', sourceUrl: 'file:///etc/passwd' },
];
export const HOSTILE_ANSWER = 'It <img src=x onerror=alert(8)> says [1] <script>alert(9)</script> and [2]<a href="javascript:alert(10)">x</a> [9].';

let browser;
let server;
let origin;
const served = new Map();

/** Serves `body` at `urlPath` from 'self', under the policy: a page or a script a test built. */
export function serve(urlPath, type, body) {
  served.set(urlPath, { type, body });
}

/** Starts the browser and the page's server before the file's tests, and stops them after. */
export function usePage() {
before(async () => {
  // The page and the module, from 'self', under the policy; anything else is a 404.
  server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const headers = { 'Content-Security-Policy': CSP };
    if (url.pathname === '/') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>chips</title>'
        + '<script type="module" src="/ui/mentor-context-ui.js"></script></head><body>'
        + '<main><h1>Answer</h1><mentor-answer id="answer" sources="sources"></mentor-answer>'
        + '<h2>Sources</h2><mentor-sources id="sources"></mentor-sources>'
        + '<mentor-answer id="streamed" sources="sources"></mentor-answer></main></body></html>');
      return;
    }
    if (served.has(url.pathname)) {
      const { type, body } = served.get(url.pathname);
      res.writeHead(200, { ...headers, 'Content-Type': type });
      res.end(body);
      return;
    }
    const file = path.join(root, path.normalize(url.pathname));
    if (url.pathname.startsWith('/ui/') && file.startsWith(path.join(root, 'ui')) && fs.existsSync(file)) {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' });
      res.end(fs.readFileSync(file));
      return;
    }
    res.writeHead(url.pathname === '/favicon.ico' ? 204 : 404, headers);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});
}

/** Debian's Chromium, headless, as every browser test here starts it. */
export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: FLAGS, timeout: 60_000 });
}

/**
 * `url` in a new page of `browser` (in `colorScheme`), recording every problem: errors and
 * warnings, dialogs (a script ran), requests off the page's origin, policy violations.
 */
export async function watchedPage(browser, url, colorScheme = 'light') {
  const context = await browser.newContext({ colorScheme });
  const page = await context.newPage();
  const problems = [];
  const own = new URL(url).origin;
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`a script ran: ${d.message()}`); d.dismiss(); });
  page.on('request', (r) => { if (!r.url().startsWith(own)) problems.push(`request: ${r.url()}`); });
  await page.goto(url, { waitUntil: 'load' });
  await page.evaluate(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective}`)));
  return { context, page, problems };
}

/** Opens the page (in `colorScheme`; `/` or one `serve`d), its elements defined, as `watchedPage` does. */
export async function open(colorScheme = 'light', pagePath = '/') {
  const opened = await watchedPage(browser, `${origin}${pagePath}`, colorScheme);
  await opened.page.waitForFunction(() => customElements.get('mentor-answer') && customElements.get('mentor-sources'));
  return opened;
}

/** Sets the elements' data in the page. */
export function feed(page, data) {
  return page.evaluate((d) => {
    const sources = document.getElementById('sources');
    sources.report = d.report;
    if (d.answer !== undefined) {
      const answer = document.getElementById('answer');
      answer.answer = d.answer;
      answer.resolution = d.resolution;
    }
  }, data);
}

/** Each chip as shown: number, title, host, link, metadata pairs, cut. */
export function shownChips(page) {
  return page.evaluate(() => [...document.getElementById('sources').shadowRoot.querySelectorAll('li')].map((li) => (li.querySelector('button').click(), {
    index: Number(li.dataset.index),
    number: li.querySelector('[part~=number]').textContent,
    title: li.querySelector('[part~=title]').textContent,
    host: li.querySelector('[part~=host]')?.textContent ?? '',
    link: li.querySelector('a')?.getAttribute('href') ?? null,
    url: li.querySelector('[part~=link]')?.textContent ?? null,
    metadata: [...li.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]),
    cut: li.querySelector('[part~=cut]').textContent.startsWith('Cut'),
  })));
}

/** The chip the record says a citation shows. */
export function expectedChip(c) {
  let host = '';
  let link = null;
  try {
    const u = new URL(c.sourceUrl);
    if (u.protocol === 'http:' || u.protocol === 'https:') { host = u.host; link = u.href; }
  } catch { /* not a URL: no host, no link */ }
  return {
    index: c.index, number: String(c.index), title: c.title || c.sourceUrl || `[${c.index}]`, host, link,
    url: c.sourceUrl ?? null, metadata: Object.entries(c.metadata ?? {}).map(([k, v]) => [k, v ?? '']), cut: c.truncated,
  };
}

/** The fixture answer's resolution by the command, and the report it is of. */
export function pricing() {
  const reportText = command(['assemble', '--json', ...LAYOUTS.plain]);
  const resolution = JSON.parse(command(['cite', scratch('pricing-report.json', reportText), scratch('pricing-answer.txt', ANSWER)]));
  return { report: JSON.parse(reportText), resolution };
}

/**
 * The outputs a library stream gives for `answer`, fed one character at a time: text up to a
 * marker is shown at once, a marker (`marks`, UTF-16) only whole, with its events.
 */
export function streamOutputs(answer, marks, resolution, { holdBack = true } = {}) {
  const outputs = [];
  let shown = 0;
  const bytes = (i) => Buffer.byteLength(answer.slice(0, i));
  for (let read = 1; read <= answer.length; read += 1) {
    const inside = marks.find((m) => m.start < read && read < m.end);
    if (inside && holdBack) { outputs.push({ text: '', events: [] }); continue; }
    const events = [];
    for (const m of marks.filter((mk) => mk.end > shown && mk.end <= read)) {
      const span = { start: bytes(m.start), end: bytes(m.end), startUtf16: m.start, endUtf16: m.end };
      m.indexes.forEach((index) => events.push({ type: 'cited', index, span }));
      if (m.unknown) events.push({ type: 'unknown', marker: answer.slice(m.start, m.end), at: bytes(m.start) });
    }
    outputs.push({ text: answer.slice(shown, read), events });
    shown = read;
  }
  return { outputs, end: { text: '', events: [], resolution } };
}

/** The answer element's DOM, its generated ids made equal, and how its text is cut in nodes. */
export function answerDom(page, id) {
  return page.evaluate((i) => {
    const root = document.getElementById(i).shadowRoot;
    const nodes = [...root.querySelector('[part=text]').childNodes].map((n) => n.nodeType).join('');
    return `${root.innerHTML.replace(/mentor-answer-card-\d+/g, 'CARD')}\n${nodes}`;
  }, id);
}
