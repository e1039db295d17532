// The elements of ui/ (`<mentor-sources>`, `<mentor-answer>`) in a real browser: Debian's
// Chromium, headless, driven by playwright-core, on a page served with the
// Content-Security-Policy `default-src 'self'`. Reports and resolutions come from the command
// (`assemble --json`, `prompt --json`, `cite`). Streams are made from the command's
// resolution as the library's streams hand them out (a marker whole, with its events), one
// character at a time: the bindings are not built in this step.
//
// Run with `npm test` here (MENTOR_CONTEXT_BIN names the binary, CHROMIUM the browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { scan } from '../../../ui/src/marks.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bin = process.env.MENTOR_CONTEXT_BIN ?? path.join(root, 'target/debug/mentor-context');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mentor-context-ui-'));
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const CSP = "default-src 'self'";
const AXE = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Runs the command in the repository's root; its standard output. */
function command(args) {
  return execFileSync(bin, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A file in the scratch folder. */
function scratch(name, text) {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  return file;
}

const PRICING = 'fixtures/pricing.json';
const DIALECTS = ['anthropic', 'anthropic-documents', 'bedrock', 'cohere', 'mistral'];
/** Every layout of a report, by name: its `assemble` arguments. */
const LAYOUTS = {
  plain: ['--budget', '1500', PRICING],
  xml: ['--budget', '1500', '--format', 'xml', PRICING],
  cut: ['--budget', '700', PRICING],
  'hostile-heads': ['--budget', '2000', 'fixtures/hostile-heads.json'],
  multilingual: ['--budget', '3000', 'fixtures/multilingual.json'],
  ...Object.fromEntries(DIALECTS.map((d) => [d, ['--dialect', d, PRICING]])),
};
const ANSWER = 'Team costs 15 EUR a seat [1], "billed per active seat" [1]; it is "billed per minute" [1]; add-ons cost extra [3, 4] (see [2]); [99] is no block, nor [2, 99].\n';

/** What marks the fixture's answers are checked against (the markers of `scan`). */
const HOSTILE_INPUT = [
  { content: 'One.', score: 0.9, title: '<img src=x onerror=alert(1)>', sourceUrl: 'javascript:alert(2)',
    metadata: { '<b onmouseover=alert(3)>key</b>': '<script>alert(4)</script>', note: null } },
  { content: 'Two.', score: 0.8, sourceUrl: 'data:text/html,<script>alert(5)</script>' },
  { content: 'Three.', score: 0.7, title: 'Tab', sourceUrl: ' \tJaVaScRiPt:alert(6)' },
  { content: 'Four.', score: 0.6, title: '"><svg onload=alert(7)>', sourceUrl: 'https://ok.example/a?b="<x>' },
  { content: 'Five.', score: 0.5, title: 'File', sourceUrl: 'file:///etc/passwd' },
];
const HOSTILE_ANSWER = 'It <img src=x onerror=alert(8)> says [1] <script>alert(9)</script> and [2]<a href="javascript:alert(10)">x</a> [9].';

let browser;
let server;
let origin;

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
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: FLAGS, timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Opens the page (in `colorScheme`), recording every problem: errors, policy, scripts. */
async function open(colorScheme = 'light') {
  const context = await browser.newContext({ colorScheme });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`a script ran: ${d.message()}`); d.dismiss(); });
  page.on('request', (r) => { if (!r.url().startsWith(origin)) problems.push(`request: ${r.url()}`); });
  await page.goto(`${origin}/`, { waitUntil: 'load' });
  await page.waitForFunction(() => customElements.get('mentor-answer') && customElements.get('mentor-sources'));
  await page.evaluate(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective}`)));
  return { context, page, problems };
}

/** Sets the elements' data in the page. */
function feed(page, data) {
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
function shownChips(page) {
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
function expectedChip(c) {
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

test('every fixture report, in every layout and dialect and as a whole prompt, renders its chips in index order', async () => {
  const { context, page, problems } = await open();
  const reports = Object.entries(LAYOUTS).map(([name, args]) => [name, JSON.parse(command(['assemble', '--json', ...args]))]);
  const prompt = JSON.parse(command(['prompt', '--json', '--conversation', 'fixtures/prompt/conversation.json',
    '--chat-template', 'openai', '--window', '4096', PRICING]));
  reports.push(['prompt', prompt]);
  for (const [name, report] of reports) {
    const citations = (report.citations ?? report.context.citations);
    assert.ok(citations.length > 0, `${name} has citations`);
    // As JSON text too, as the service sends it.
    await feed(page, { report: name === 'xml' ? JSON.stringify(report) : report });
    const expected = [...citations].sort((a, b) => a.index - b.index).map(expectedChip);
    assert.deepEqual(await shownChips(page), expected, name);
  }
  assert.ok(reports.some(([, r]) => (r.citations ?? r.context.citations).some((c) => c.truncated)), 'a cut block is among them');
  assert.deepEqual(problems, []);
  await context.close();
});

test('hostile titles, URLs, metadata and answers stay inert text', async () => {
  const { context, page, problems } = await open();
  const report = JSON.parse(command(['assemble', '--json', '--budget', '2000', scratch('hostile.json', JSON.stringify(HOSTILE_INPUT))]));
  const resolution = JSON.parse(command(['cite', scratch('hostile-report.json', JSON.stringify(report)), scratch('hostile.txt', HOSTILE_ANSWER)]));
  await feed(page, { report, answer: HOSTILE_ANSWER, resolution });
  // Open every card, so that anything they hold is in the document.
  await page.evaluate(() => {
    for (const b of document.getElementById('sources').shadowRoot.querySelectorAll('button')) b.click();
    document.getElementById('answer').shadowRoot.querySelector('button').click();
  });
  const found = await page.evaluate(() => {
    const roots = [document.body, ...[...document.querySelectorAll('mentor-sources, mentor-answer')].map((e) => e.shadowRoot)];
    const bad = [];
    const links = [];
    for (const r of roots) {
      for (const node of r.querySelectorAll('*')) {
        if (['SCRIPT', 'IMG', 'SVG', 'IFRAME', 'B'].includes(node.tagName.toUpperCase())) bad.push(node.tagName);
        for (const attr of node.attributes) if (attr.name.startsWith('on')) bad.push(attr.name);
        if (node.tagName === 'A') links.push(node.href);
      }
    }
    return { bad, links, text: document.getElementById('answer').shadowRoot.querySelector('[part=text]').textContent };
  });
  assert.deepEqual(found.bad, []);
  for (const link of found.links) assert.match(link, /^https?:/, link);
  assert.ok(found.links.length >= 1, 'the https source is a link');
  assert.equal(found.text, HOSTILE_ANSWER.replace('[9]', '[9] (unknown source)'));
  assert.deepEqual(await shownChips(page), [...report.citations].sort((a, b) => a.index - b.index).map(expectedChip));
  assert.deepEqual(problems, []);
  await context.close();
});

/** The fixture answer's resolution by the command, and the report it is of. */
function pricing() {
  const reportText = command(['assemble', '--json', ...LAYOUTS.plain]);
  const resolution = JSON.parse(command(['cite', scratch('pricing-report.json', reportText), scratch('pricing-answer.txt', ANSWER)]));
  return { report: JSON.parse(reportText), resolution };
}

/**
 * The outputs a library stream gives for `answer`, fed one character at a time: text up to a
 * marker is shown at once, a marker (`marks`, UTF-16) only whole, with its events.
 */
function streamOutputs(answer, marks, resolution, { holdBack = true } = {}) {
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
function answerDom(page, id) {
  return page.evaluate((i) => {
    const root = document.getElementById(i).shadowRoot;
    const nodes = [...root.querySelector('[part=text]').childNodes].map((n) => n.nodeType).join('');
    return `${root.innerHTML.replace(/mentor-answer-card-\d+/g, 'CARD')}\n${nodes}`;
  }, id);
}

test('the scanner for resolutions without spans finds the markers the command counts', () => {
  const { report, resolution } = pricing();
  const known = new Set(report.citations.map((c) => c.index));
  const tricky = 'See [1], `code [2]` and\n```\n[3]\n```\nthen a[4], [5](https://x) and [1][2], ［3］, [1-3], [2–4], [3, 99].\n~~~\n[4]\n~~~\n[6] `a\n\n[1]` [2]';
  for (const answer of [ANSWER, tricky, fs.readFileSync(path.join(root, 'fixtures/quoted-answer.txt'), 'utf8'),
    fs.readFileSync(path.join(here, 'payloads-answer.txt'), 'utf8')]) {
    const cited = JSON.parse(command(['cite', path.join(work, 'pricing-report.json'), scratch('scan.txt', answer)]));
    const marks = scan(answer, known);
    const counts = new Map();
    for (const m of marks) for (const i of m.indexes) counts.set(i, (counts.get(i) ?? 0) + 1);
    assert.deepEqual([...counts.keys()], cited.cited.map((c) => c.index), answer);
    assert.deepEqual([...counts.values()], cited.cited.map((c) => c.count), answer);
    assert.deepEqual(marks.filter((m) => m.unknown).map((m) => ({ marker: answer.slice(m.start, m.end), at: Buffer.byteLength(answer.slice(0, m.start)) })),
      cited.unknown, answer);
  }
  assert.equal(resolution.unknown.length, 2);
});

test('an answer streamed one character at a time gives the DOM of the whole resolution', async () => {
  const { context, page, problems } = await open();
  const { report, resolution } = pricing();
  const anthropic = JSON.parse(command(['assemble', '--json', ...LAYOUTS.anthropic]));
  const response = JSON.parse(command(['cite', scratch('anthropic-report.json', JSON.stringify(anthropic)), path.join(root, 'fixtures/responses/anthropic.json')]));
  const cases = [
    { report, answer: ANSWER, resolution, marks: scan(ANSWER, new Set(report.citations.map((c) => c.index))) },
    { report: anthropic, answer: response.text, resolution: response,
      marks: response.cited.flatMap((c) => c.spans.map((s) => ({ start: s.startUtf16, end: s.endUtf16, indexes: [c.index], unknown: false }))) },
  ];
  for (const { report: r, answer, resolution: res, marks } of cases) {
    assert.ok(marks.length >= 3, 'the answer cites');
    await feed(page, { report: r, answer, resolution: res });
    const whole = await answerDom(page, 'answer');
    const { outputs, end } = streamOutputs(answer, marks, res);
    const partial = await page.evaluate(({ o, e }) => {
      const el = document.getElementById('streamed');
      el.answer = '';
      const seen = [];
      for (const output of o) {
        el.append(output);
        // What is shown as text must never end in the start of a marker.
        const text = el.shadowRoot.querySelector('[part=text]').lastChild;
        if (text?.nodeType === Node.TEXT_NODE && /[[［][0-9 ,\-–]*$/.test(text.data)) seen.push(text.data.slice(-8));
      }
      el.finish(e);
      return seen;
    }, { o: outputs, e: end });
    assert.deepEqual(partial, [], 'half a marker was shown');
    assert.equal(await answerDom(page, 'streamed'), whole);
    assert.ok(whole.includes('<button'), 'markers are buttons');
    // A dialect's resolution carries its text: set alone, it shows the same.
    if (res.text !== undefined) {
      await page.evaluate((x) => { const el = document.getElementById('streamed'); el.answer = ''; el.resolution = x; }, res);
      assert.equal(await answerDom(page, 'streamed'), whole);
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a chunk split inside a marker, shown, is caught', async () => {
  // The check above, against a stream that shows markers in part: the DOM differs.
  const { context, page } = await open();
  const { report, resolution } = pricing();
  const marks = scan(ANSWER, new Set(report.citations.map((c) => c.index)));
  await feed(page, { report, answer: ANSWER, resolution });
  const whole = await answerDom(page, 'answer');
  const { outputs, end } = streamOutputs(ANSWER, marks, resolution, { holdBack: false });
  await page.evaluate(({ o, e }) => { const el = document.getElementById('streamed'); for (const x of o) el.append(x); el.finish(e); }, { o: outputs, e: end });
  assert.notEqual(await answerDom(page, 'streamed'), whole);
  await context.close();
});

test('each marker opens the card of the chip it cites, with its quote and whether it was verified', async () => {
  const { context, page, problems } = await open();
  const { report, resolution } = pricing();
  await feed(page, { report, answer: ANSWER, resolution });
  const title = (i) => report.citations.find((c) => c.index === i).title;
  const seen = await page.evaluate(() => {
    const answer = document.getElementById('answer');
    const events = [];
    answer.addEventListener('mentor-citation', (e) => events.push(e.detail.index));
    const out = [];
    for (const b of answer.shadowRoot.querySelectorAll('button')) {
      b.focus();
      const highlighted = [...document.getElementById('sources').shadowRoot.querySelectorAll('li[data-highlighted]')].map((li) => Number(li.dataset.index));
      b.click();
      const card = answer.shadowRoot.getElementById(b.getAttribute('aria-controls'));
      out.push({ marker: b.textContent, name: b.getAttribute('aria-label'), highlighted, shown: !card.hidden,
        card: [...card.children].map((c) => c.textContent) });
    }
    const unknown = [...answer.shadowRoot.querySelectorAll('[part=unknown]')].map((u) => u.textContent);
    // The application opens a chip itself (on `mentor-citation`, say): its card, focused.
    const sources = document.getElementById('sources');
    sources.open(3);
    const focused = sources.shadowRoot.activeElement;
    const opened = { index: focused.parentElement.dataset.index, expanded: focused.getAttribute('aria-expanded'),
      shown: !sources.shadowRoot.getElementById(focused.getAttribute('aria-controls')).hidden };
    return { out, events, unknown, opened };
  });
  assert.deepEqual(seen.out.map((o) => [o.marker, o.name, o.highlighted]), [
    ['[1]', `Source 1: ${title(1)}`, [1]],
    ['[1]', `Source 1: ${title(1)}`, [1]],
    ['[1]', `Source 1: ${title(1)}`, [1]],
    ['[3, 4]', `Sources 3, 4: ${title(3)}; ${title(4)}`, [3, 4]],
    ['[2]', `Source 2: ${title(2)}`, [2]],
    ['[2, 99]', `Sources 2, 99: ${title(2)}; a number names no source`, [2]],
  ]);
  assert.ok(seen.out.every((o) => o.shown));
  assert.deepEqual(seen.out[0].card, [`Source 1: ${title(1)}`]);
  assert.deepEqual(seen.out[1].card, [`Source 1: ${title(1)}`, 'billed per active seat', 'Quote found in the source.']);
  assert.deepEqual(seen.out[2].card, [`Source 1: ${title(1)}`, 'billed per minute', 'Quote not found in the source.']);
  assert.deepEqual(seen.out[3].card, [`Source 3: ${title(3)}`, `Source 4: ${title(4)}`]);
  assert.deepEqual(seen.events, [1, 1, 1, 3, 2, 2]);
  assert.deepEqual(seen.unknown, ['[99] (unknown source)']);
  assert.deepEqual(seen.opened, { index: '3', expanded: 'true', shown: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('keyboard only: Tab reaches every marker and chip; Enter and Space open each card, Escape closes it', async () => {
  const { context, page, problems } = await open();
  const { report, resolution } = pricing();
  await feed(page, { report, answer: ANSWER, resolution });
  const total = await page.evaluate(() => ['answer', 'sources'].reduce((n, id) => n + document.getElementById(id).shadowRoot.querySelectorAll('button').length, 0));
  const focused = () => page.evaluate(() => {
    const host = document.activeElement;
    const inner = host?.shadowRoot?.activeElement;
    if (!inner) return null;
    const card = host.shadowRoot.getElementById(inner.getAttribute('aria-controls'));
    return { host: host.id, key: `${host.id}:${inner.dataset.start ?? inner.parentElement.dataset.index}`, expanded: inner.getAttribute('aria-expanded'), cardShown: !card.hidden, cardText: card.textContent };
  });
  const opened = new Set();
  for (let step = 0; step < total; step += 1) {
    await page.keyboard.press('Tab');
    const f = await focused();
    assert.ok(f, `Tab ${step + 1} reaches a control`);
    for (const key of [step % 2 ? 'Enter' : ' ', step % 2 ? ' ' : 'Enter']) {
      await page.keyboard.press(key === ' ' ? 'Space' : key);
      const o = await focused();
      assert.equal(o.key, f.key, 'focus stays on the control');
      assert.equal(o.expanded, 'true', `${key} opens ${f.key}`);
      assert.ok(o.cardShown && o.cardText.length > 0, `${f.key}: the card is shown`);
      await page.keyboard.press('Escape');
      const c = await focused();
      assert.equal(c.key, f.key, 'Escape gives focus back');
      assert.equal(c.expanded, 'false', `Escape closes ${f.key}`);
      assert.ok(!c.cardShown);
    }
    opened.add(f.key);
  }
  assert.equal(opened.size, total, 'every card was opened');
  assert.deepEqual(problems, []);
  await context.close();
});

for (const scheme of ['light', 'dark']) {
  test(`axe-core finds no WCAG 2.1 A or AA violation in the ${scheme} scheme, cards open`, async () => {
    const { context, page, problems } = await open(scheme);
    const { report, resolution } = pricing();
    await feed(page, { report, answer: ANSWER, resolution });
    const background = await page.evaluate(() => {
      for (const b of document.getElementById('sources').shadowRoot.querySelectorAll('button')) b.click();
      document.getElementById('answer').shadowRoot.querySelector('button').click();
      return getComputedStyle(document.getElementById('sources')).backgroundColor;
    });
    assert.equal(background, scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)', 'the scheme applies');
    // Evaluated through the protocol, as a tool would: the page's policy still holds for the page.
    await page.evaluate(AXE);
    const result = await page.evaluate(() => window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }));
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
    assert.ok(result.passes.some((p) => p.id === 'color-contrast'), 'contrast was checked');
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('the module is at most 8 KB minified and gzipped', async () => {
  const { sizes } = await import('./ui-bundle.mjs');
  const { minifiedGzip, code } = await sizes();
  assert.ok(code.includes('mentor-sources') && code.includes('customElements'), 'the bundle holds the module');
  assert.ok(minifiedGzip <= 8192, `${minifiedGzip} bytes`);
});
