// The pages of `mentor-context inspect` and `batch --report`, opened in a real browser:
// Debian's Chromium, headless, driven by playwright-core (no browser download). Each page is
// made from the fixtures by the command, then checked: no console error and no request
// leaving the page; no injected script runs and no javascript: link exists; every number and
// string it shows from a report equals that report's JSON; it is usable at 1280 and 390 px.
// Screenshots go to target/browser/ for a person to look at.
//
// Run with `npm test` here, after `cargo build -p mentor-context-cli` (or with
// MENTOR_CONTEXT_BIN naming the binary); CHROMIUM names another browser binary.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bin = process.env.MENTOR_CONTEXT_BIN ?? path.join(root, 'target/debug/mentor-context');
const shots = path.join(root, 'target/browser');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mentor-context-pages-'));
// Without the networking flags Chromium stalls on a closed network, reaching for its services.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const WIDTHS = [1280, 390];
const AXE = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Runs the command in the repository's root and returns its standard output. */
function command(args, { allowFailure = false } = {}) {
  try {
    return execFileSync(bin, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    if (allowFailure && err.status === 2) return err.stdout;
    throw err;
  }
}

const PAYLOAD_ANSWER = 'cli/tests/browser/payloads-answer.txt';
const PRICING_ANSWER = path.join(work, 'answer.txt');
// One quote its block holds and one it does not: the page flags the second.
fs.writeFileSync(PRICING_ANSWER, 'Team costs 15 EUR a seat [1], "billed per active seat" [1]; it is "billed per minute" [1]; add-ons cost extra [3, 4] (see [2]); [9] is no block.\n');

/** The inspect pages: the options and input they are made from, and an answer to show. */
const INSPECT = [
  { name: 'inspect-pricing', args: ['--budget', '1500', 'fixtures/pricing.json'], answer: PRICING_ANSWER },
  { name: 'inspect-omitted', args: ['--budget', '400', 'fixtures/pricing.json'], needs: true },
  { name: 'inspect-hostile-heads', args: ['--budget', '2000', 'fixtures/hostile-heads.json'] },
  { name: 'inspect-hostile-xml', args: ['--budget', '2000', '--format', 'xml', 'fixtures/hostile-heads.json'] },
  { name: 'inspect-payloads', args: ['--budget', '200', 'cli/tests/browser/payloads.json'], answer: PAYLOAD_ANSWER },
  { name: 'inspect-bench', args: ['fixtures/bench-english.json'], maxBytes: 300_000 },
];

/** A whole prompt's inspect page: a template that writes a prompt text, turns dropped. */
const WHOLE_PROMPT = ['--conversation', 'fixtures/prompt/conversation.json', '--window', '600', '--reserve', '200',
  '--history-max-tokens', '50', '--chat-template', 'harmony', '--date', '2026-12-03', 'fixtures/pricing.json'];

/** The batch pages. */
const BATCH = [
  { name: 'batch-report', args: ['--budget', '400', '--jobs', '2', 'fixtures/batch.jsonl'] },
  { name: 'batch-payloads', args: ['--budget', '60', 'cli/tests/browser/payloads-batch.jsonl'] },
];

let browser;

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: FLAGS,
    timeout: 60_000,
  });
});

after(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Opens `file` at `width`, recording everything that would be a problem. */
async function open(file, width) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  const url = pathToFileURL(file).href;
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`a script ran: ${d.type()} ${d.message()}`); d.dismiss(); });
  page.on('request', (r) => { if (r.url() !== url) problems.push(`request: ${r.url()}`); });
  await page.goto(url, { waitUntil: 'load' });
  return { context, page, problems };
}

/** What the page shows for each `data-json` element, hidden characters put back. */
function shownValues(page) {
  return page.evaluate(() => {
    const rebuild = (el) => {
      const copy = el.cloneNode(true);
      for (const cc of copy.querySelectorAll('.cc')) cc.replaceWith(String.fromCodePoint(parseInt(cc.dataset.cp, 16)));
      return copy.textContent;
    };
    return [...document.querySelectorAll('[data-json]')].map((el) => ({
      key: el.dataset.json, value: el.dataset.value ?? null, cut: el.hasAttribute('data-cut'), text: rebuild(el),
    }));
  });
}

/** The value at a JSON pointer (RFC 6901). */
function at(json, pointer) {
  return pointer.split('/').slice(1).reduce((value, token) => {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    assert.ok(value !== undefined && value !== null, `no ${pointer}`);
    return value[key];
  }, json);
}

/** Checks every shown value against its source: the reports by pointer, the batch facts by name. */
function checkValues(shown, sources) {
  assert.ok(shown.length > 0, 'the page shows values from its report');
  for (const { key, value, cut, text } of shown) {
    const [source, where] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const expected = source === 'batch' ? sources.batch[where] : at(sources[source], where);
    assert.notEqual(expected, undefined, `${key} is in the ${source} JSON`);
    if (value !== null) {
      assert.equal(value, String(expected), key);
    } else if (cut) {
      assert.ok(String(expected).startsWith(text), `${key}: a cut value is the start of the value`);
    } else if (where.endsWith('/id')) {
      assert.equal(JSON.stringify(JSON.parse(text)), JSON.stringify(expected), key);
    } else {
      // A NaN score is null in JSON.
      assert.equal(text, expected === null ? 'NaN' : String(expected), key);
    }
  }
}

/** What is wrong with the page as a document: scripts, handlers, links that are not http(s). */
async function checkInert(page) {
  const found = await page.evaluate(() => {
    const bad = [];
    if (document.scripts.length) bad.push(`${document.scripts.length} script elements`);
    for (const el of document.querySelectorAll('*')) {
      for (const attr of el.attributes) {
        if (attr.name.startsWith('on')) bad.push(`<${el.localName} ${attr.name}>`);
        if (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(attr.name)
            && !/^(#|https?:\/\/)/i.test(attr.value)) bad.push(`<${el.localName} ${attr.name}="${attr.value}">`);
      }
      if (['iframe', 'img', 'object', 'embed', 'link', 'form', 'base'].includes(el.localName)) bad.push(`<${el.localName}>`);
    }
    for (const a of document.links) if (!['http:', 'https:', 'file:'].includes(a.protocol) || (a.protocol === 'file:' && !a.hash)) bad.push(`link to ${a.href}`);
    return bad;
  });
  assert.deepEqual(found, [], 'no script, handler or javascript: link');
}

/** Usable at this width: nothing wider than the window, every section's heading in view. */
async function checkLayout(page, width) {
  const layout = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    window: window.innerWidth,
    headings: [...document.querySelectorAll('h2')].map((h) => {
      const box = h.getBoundingClientRect();
      return { text: h.textContent, left: box.left, right: box.right, height: box.height };
    }),
  }));
  assert.ok(layout.scroll <= layout.window, `at ${width} px the page is ${layout.scroll} px wide`);
  for (const h of layout.headings) {
    assert.ok(h.left >= 0 && h.right <= layout.window + 1 && h.height > 0, `${h.text} in view at ${width} px`);
  }
}

/** Opens a page at each width, runs the common checks and `check`, and takes screenshots. */
async function visit(name, file, sources, check) {
  for (const width of WIDTHS) {
    const { context, page, problems } = await open(file, width);
    try {
      await checkInert(page);
      checkValues(await shownValues(page), sources);
      await checkLayout(page, width);
      if (width === WIDTHS[0]) await check(page);
      await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
      if (width === WIDTHS[0]) await page.screenshot({ path: path.join(shots, `${name}-${width}-top.png`) });
      assert.deepEqual(problems, [], `${name} at ${width} px`);
    } finally {
      await context.close();
    }
  }
}

for (const spec of INSPECT) {
  test(spec.name, async () => {
    const file = path.join(work, `${spec.name}.html`);
    const answer = spec.answer ? ['--answer', spec.answer] : [];
    command(['inspect', '--output', file, ...answer, ...spec.args]);
    const report = JSON.parse(command(['assemble', '--json', ...spec.args]));
    const reportFile = path.join(work, `${spec.name}.json`);
    fs.writeFileSync(reportFile, JSON.stringify(report));
    const cite = spec.answer ? JSON.parse(command(['cite', reportFile, spec.answer])) : null;
    const bytes = fs.statSync(file).size;
    if (spec.maxBytes) assert.ok(bytes < spec.maxBytes, `${bytes} bytes`);
    await visit(spec.name, file, { report, cite }, async (page) => {
      // The text sent is the <pre class="sent"> elements, in order, exactly.
      const sent = await page.evaluate(() => [...document.querySelectorAll('pre.sent')].map((pre) => {
        const copy = pre.cloneNode(true);
        for (const cc of copy.querySelectorAll('.cc')) cc.replaceWith(String.fromCodePoint(parseInt(cc.dataset.cp, 16)));
        return copy.textContent;
      }).join(''));
      assert.equal(sent, report.context, 'the text sent, exactly');
      assert.equal(await page.locator('article.block').count(), report.citations.length);
      assert.equal(await page.locator('table.omitted tbody tr').count(), Math.min(report.omitted.length, 500));
      // The shares add up to the count, and the free share to the budget.
      const shares = Object.fromEntries(await page.evaluate(() => [...document.querySelectorAll('tr[data-share]')]
        .map((tr) => [tr.dataset.share, Number(tr.children[1].textContent)])));
      if (Object.keys(shares).length) {
        const used = ['header', 'layout', 'heads', 'metadata', 'content'].reduce((sum, k) => sum + shares[k], 0);
        assert.equal(used, report.tokenCount);
        assert.equal(shares.free, report.budget - report.tokenCount);
      }
      // The counts by reason are those of the report.
      const byReason = {};
      for (const o of report.omitted) byReason[o.reason] = (byReason[o.reason] ?? 0) + 1;
      const shown = Object.fromEntries(await page.evaluate(() => [...document.querySelectorAll('[data-reason]')]
        .map((el) => [el.dataset.reason, Number(el.querySelector('b').textContent)])));
      assert.deepEqual(shown, byReason);
      if (cite) {
        // Each cited marker links to the block it cites; the unknown ones are flagged.
        const links = await page.evaluate(() => [...document.querySelectorAll('.answer a.cite')].map((a) => a.getAttribute('href')));
        for (const href of links) assert.equal(await page.locator(href).count(), 1, `${href} exists`);
        assert.equal(await page.locator('.answer mark.unknown').count() + await page.locator('.answer a.cite.unknown').count(), cite.unknown.length);
        // Each quote is flagged as `cite` checked it.
        const quotes = cite.cited.flatMap((c) => c.quotes ?? []);
        assert.equal(await page.locator('table.cited q.verified').count(), quotes.filter((q) => q.verified).length);
        assert.equal(await page.locator('table.cited q.unverified').count(), quotes.filter((q) => !q.verified).length);
        assert.equal(await page.locator('p.bad [data-json="cite:/unverified"]').count(), cite.unverified > 0 ? 1 : 0);
        if (spec.name === 'inspect-pricing') assert.deepEqual(quotes.map((q) => q.verified), [true, false]);
      }
      if (spec.needs) await checkNeeds(page, spec.args, report);
    });
  });
}

test('inspect-whole-prompt', async () => {
  const file = path.join(work, 'inspect-whole-prompt.html');
  command(['inspect', '--output', file, ...WHOLE_PROMPT]);
  const prompt = JSON.parse(command(['prompt', '--json', ...WHOLE_PROMPT]));
  assert.ok(prompt.dropped.length > 0 && prompt.prompt, 'turns dropped, a prompt text');
  await visit('inspect-whole-prompt', file, { report: prompt.context, prompt }, async (page) => {
    const sent = await page.evaluate(() => {
      const shown = (el) => {
        const copy = el.cloneNode(true);
        for (const cc of copy.querySelectorAll('.cc')) cc.replaceWith(String.fromCodePoint(parseInt(cc.dataset.cp, 16)));
        return copy.textContent;
      };
      const details = [...document.querySelectorAll('details[data-sent]')];
      const closed = details.every((d) => !d.open);
      for (const d of details) d.open = true;
      return {
        closed,
        context: [...document.querySelectorAll('pre.sent')].map(shown).join(''),
        ...Object.fromEntries(details.map((d) => [d.dataset.sent, shown(d.querySelector('pre'))])),
      };
    });
    assert.ok(sent.closed, 'the messages and the prompt text start collapsed');
    assert.equal(sent.context, prompt.context.context, 'the context sent, exactly');
    assert.deepEqual(JSON.parse(sent.messages), prompt.messages);
    assert.equal(sent.prompt, prompt.prompt);
    assert.equal(await page.locator('[data-history] [data-json^="prompt:/history/"]').count(), 6);
    // Opened, the page is still accessible.
    await page.evaluate(AXE);
    const result = await page.evaluate(() => window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }));
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
  });
});

/** A result's smallest budget: in at that budget, out one below it. */
async function checkNeeds(page, args, report) {
  const needs = await page.evaluate(() => [...document.querySelectorAll('[data-need]')]
    .map((el) => [Number(el.dataset.need), el.textContent]).filter(([, text]) => /^\d+$/.test(text)));
  assert.ok(needs.length > 0, 'some result has a smallest budget');
  const budgetAt = args.indexOf('--budget') + 1;
  for (const [input, text] of needs.slice(0, 3)) {
    const at = (budget) => {
      const changed = [...args];
      changed[budgetAt] = String(budget);
      return JSON.parse(command(['assemble', '--json', ...changed])).citations.some((c) => c.inputIndex === input);
    };
    assert.ok(at(Number(text)), `input ${input} is in at ${text}`);
    assert.ok(!at(Number(text) - 1), `input ${input} is out at ${Number(text) - 1}`);
  }
  assert.ok(report.omitted.some((o) => o.reason === 'didNotFit'));
}

/** The figures a batch page shows, worked out again from the JSON Lines it came with. */
function batchFacts(lines) {
  const facts = { requests: lines.length };
  const failed = lines.filter((l) => 'error' in l);
  const done = lines.filter((l) => !('error' in l));
  facts.failed = failed.length;
  facts.tokens = done.reduce((sum, l) => sum + l.tokenCount, 0);
  for (const l of done) for (const o of l.omitted) facts[`omitted/${o.reason}`] = (facts[`omitted/${o.reason}`] ?? 0) + 1;
  const thousandths = (l) => (l.budget === 0 ? 1000 : Math.floor((l.tokenCount * 1000) / l.budget));
  const text = (t) => `${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, '0')}`;
  const fills = done.map(thousandths).sort((a, b) => a - b);
  const rank = (q) => fills[Math.max(Math.ceil(q * fills.length), 1) - 1];
  if (fills.length) [facts['fill/median'], facts['fill/p10']] = [text(rank(0.5)), text(rank(0.1))];
  // Least filled: by the exact ratio, then by line.
  const ratio = (l) => (l.budget === 0 ? [1n, 1n] : [BigInt(l.tokenCount), BigInt(l.budget)]);
  const least = [...done].sort((a, b) => {
    const [[an, ad], [bn, bd]] = [ratio(a), ratio(b)];
    return an * bd < bn * ad ? -1 : an * bd > bn * ad ? 1 : a.line - b.line;
  }).slice(0, 10);
  least.forEach((l, k) => Object.assign(facts, { [`least/${k}/line`]: l.line, [`least/${k}/id`]: l.id, [`least/${k}/fill`]: text(thousandths(l)) }));
  failed.slice(0, 100).forEach((l, k) => Object.assign(facts, { [`failed/${k}/line`]: l.line, [`failed/${k}/id`]: l.id, [`failed/${k}/error`]: l.error }));
  return { facts, done };
}

for (const spec of BATCH) {
  test(spec.name, async () => {
    const file = path.join(work, `${spec.name}.html`);
    const out = command(['batch', '--report', file, ...spec.args], { allowFailure: true });
    const lines = out.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const { facts, done } = batchFacts(lines);
    await visit(spec.name, file, { batch: facts }, async (page) => {
      assert.equal(await page.locator('svg').count(), 3, 'three charts');
      const slowest = await page.evaluate(() => [...document.querySelectorAll('table.slowest [data-line]')].map((td) => Number(td.dataset.line)));
      assert.equal(slowest.length, Math.min(done.length, 10));
      for (const line of slowest) assert.ok(done.some((l) => l.line === line), `line ${line} gave a context`);
      const failedRows = await page.evaluate(() => document.querySelectorAll('[data-json^="batch:failed/"][data-json$="/line"]').length);
      assert.equal(failedRows, Math.min(facts.failed, 100));
    });
  });
}
