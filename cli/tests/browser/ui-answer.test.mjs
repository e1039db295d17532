// ui's <mentor-answer> in Chromium: markers read as the command reads them, streams that
// render as the whole answer does, each marker linked to its chip, keyboard-only use. See
// ui.test.mjs for what the page is and where the data comes from.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scan } from '../../../ui/src/marks.js';
import { ANSWER, LAYOUTS, answerDom, command, feed, here, open, pricing, root, scratch, streamOutputs, usePage } from './ui-page.mjs';

usePage();

test('the scanner for resolutions without spans finds the markers the command counts', () => {
  const { report, resolution } = pricing();
  const known = new Set(report.citations.map((c) => c.index));
  const reportFile = scratch('scan-report.json', JSON.stringify(report));
  const tricky = 'See [1], `code [2]` and\n```\n[3]\n```\nthen a[4], [5](https://x) and [1][2], ［3］, [1-3], [2–4], [3, 99].\n~~~\n[4]\n~~~\n[6] `a\n\n[1]` [2]';
  for (const answer of [ANSWER, tricky, fs.readFileSync(path.join(root, 'fixtures/quoted-answer.txt'), 'utf8'),
    fs.readFileSync(path.join(here, 'payloads-answer.txt'), 'utf8')]) {
    const cited = JSON.parse(command(['cite', reportFile, scratch('scan.txt', answer)]));
    const marks = scan(answer, known);
    const counts = new Map();
    for (const m of marks) for (const i of m.indexes) counts.set(i, (counts.get(i) ?? 0) + 1);
    assert.deepEqual([...counts.keys()], cited.cited.map((c) => c.citation.index), answer);
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
    { report: anthropic, answer: response.answer, resolution: response,
      marks: response.cited.flatMap((c) => c.spans.map((s) => ({ start: s.startUtf16, end: s.endUtf16, indexes: [c.citation.index], unknown: false }))) },
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
    if (typeof res.answer === 'string') {
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

test('the Blazor example\'s interop module shows what feeding the elements shows, and reports the chosen chip', async () => {
  // ui/examples/blazor/mentor-interop.js called as RagSourcePanel.razor calls it: the elements
  // (Blazor's ElementReferences), the JSON texts, and a DotNetObjectReference's invokeMethodAsync.
  const { context, page, problems } = await open();
  const { report, resolution } = pricing();
  await feed(page, { report, answer: ANSWER, resolution });
  const whole = await answerDom(page, 'answer');
  await page.evaluate(async ({ r, a, res }) => {
    const interop = await import('/ui/examples/blazor/mentor-interop.js');
    const streamed = document.getElementById('streamed');
    window.calls = [];
    const dotnet = { invokeMethodAsync: (name, ...args) => { window.calls.push([name, ...args]); return Promise.resolve(); } };
    window.listener = interop.listen(streamed, dotnet);
    // A first answer, then this one: nothing of the first may stay.
    interop.show(document.getElementById('sources'), streamed, JSON.stringify(r), 'Other [2] text [1].', null);
    interop.show(document.getElementById('sources'), streamed, JSON.stringify(r), a, JSON.stringify(res));
  }, { r: report, a: ANSWER, res: resolution });
  assert.equal(await answerDom(page, 'streamed'), whole);
  const { calls, cards } = await page.evaluate(() => {
    const streamed = document.getElementById('streamed');
    const cards = [];
    for (const b of streamed.shadowRoot.querySelectorAll('button')) {
      b.click();
      cards.push(streamed.shadowRoot.getElementById(b.getAttribute('aria-controls')).textContent);
    }
    window.listener.dispose();
    streamed.shadowRoot.querySelector('button').click();
    return { calls: window.calls, cards };
  });
  // The resolution reached the element: its verified quotes fill the cards.
  assert.ok(cards.some((text) => text.includes('Quote found in the source.')), cards.join('\n'));
  const markers = scan(ANSWER, new Set(report.citations.map((c) => c.index))).filter((m) => !m.unknown || m.indexes.length);
  assert.ok(calls.length >= 3, 'each marker reports its chip');
  assert.deepEqual(calls.map((c) => c[0]), calls.map(() => 'Cited'));
  assert.deepEqual(calls.map((c) => c[1]), markers.filter((m) => m.indexes.some((i) => report.citations.some((c) => c.index === i)))
    .map((m) => m.indexes.find((i) => report.citations.some((c) => c.index === i))));
  assert.deepEqual(problems, []);
  await context.close();
});
