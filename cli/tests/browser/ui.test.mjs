// The elements of ui/ (`<mentor-sources>`, `<mentor-answer>`) in a real browser: Debian's
// Chromium, headless, driven by playwright-core, on a page served with the
// Content-Security-Policy `default-src 'self'`. Reports and resolutions come from the command
// (`assemble --json`, `prompt --json`, `cite`). Streams are made from the command's
// resolution as the library's streams hand them out (a marker whole, with its events), one
// character at a time: the bindings are not built in this step.
//
// Run with `npm test` here (MENTOR_CONTEXT_BIN names the binary, CHROMIUM the browser).
// This file: the chips, hostile input, accessibility, size; ui-answer.test.mjs: the answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANSWER, AXE, HOSTILE_ANSWER, HOSTILE_INPUT, LAYOUTS, PRICING, command, expectedChip, feed, open, pricing, scratch, shownChips, usePage } from './ui-page.mjs';

usePage();

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

for (const scheme of ['light', 'dark']) {
  test(`axe-core finds no WCAG 2.1 A or AA violation in the ${scheme} scheme, cards open`, async () => {
    const { context, page, problems } = await open(scheme);
    const { report, resolution } = pricing();
    await feed(page, { report, answer: ANSWER, resolution });
    const background = await page.evaluate(() => {
      for (const b of document.getElementById('sources').shadowRoot.querySelectorAll('button')) b.click();
      // Focused, the marker highlights its chip: that state's colors are checked too.
      const marker = document.getElementById('answer').shadowRoot.querySelector('button');
      marker.focus();
      marker.click();
      if (!document.getElementById('sources').shadowRoot.querySelector('li[data-highlighted]')) return 'no chip highlighted';
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
