// ui/examples/react/RagSourcePanel.jsx in Chromium, on React 19 and on React 18, given a whole
// answer or a stream's outputs: bundled with esbuild (ui-react-entry.jsx around it) into one
// script served from 'self' under `default-src 'self'`, beside the elements fed directly
// (ui-page.mjs's `feed`), which are what the component must show. Reports and resolutions from the command, as in ui.test.mjs.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { build } from 'esbuild';
import { scan } from '../../../ui/src/marks.js';
import { ANSWER, command, feed, here, open, pricing, scratch, serve, streamOutputs, usePage } from './ui-page.mjs';

usePage();

const VERSIONS = { 19: {}, 18: { react: 'react18', 'react-dom': 'react-dom18' } };

before(async () => {
  for (const [major, alias] of Object.entries(VERSIONS)) {
    // Development React: its warnings reach the console (a problem), and StrictMode runs
    // each effect's cleanup once more.
    const { outputFiles } = await build({
      entryPoints: [path.join(here, 'ui-react-entry.jsx')], bundle: true, format: 'esm', write: false,
      jsx: 'automatic', define: { 'process.env.NODE_ENV': '"development"' }, alias,
      absWorkingDir: here, nodePaths: [path.join(here, 'node_modules')], logLevel: 'silent',
    });
    serve(`/react-${major}.js`, 'text/javascript', outputFiles[0].text);
    serve(`/react-${major}`, 'text/html; charset=utf-8', '<!doctype html><html lang="en"><head><meta charset="utf-8">'
      + `<title>React ${major}</title><script type="module" src="/react-${major}.js"></script></head><body><main>`
      + '<div id="root"></div><h2>Fed directly</h2><mentor-answer id="answer" sources="sources"></mentor-answer>'
      + '<mentor-sources id="sources"></mentor-sources></main></body></html>');
  }
});

/** What `selector`'s shadow root shows: its DOM (generated ids made equal), text nodes, cards. */
function shown(page, selector) {
  return page.evaluate((s) => {
    const root = document.querySelector(s).shadowRoot;
    const dom = root.innerHTML.replace(/mentor-(answer-)?card-\d+/g, 'CARD');
    const text = root.querySelector('[part=text]');
    const nodes = text ? [...text.childNodes].map((n) => n.nodeType).join('') : '';
    // Each marker's card, opened: the quotes and whether each was found (the resolution's).
    const cards = [...root.querySelectorAll('button[part=marker]')].map((b) => {
      b.click();
      const card = root.getElementById(b.getAttribute('aria-controls')).textContent;
      b.click();
      return card;
    });
    return { dom, nodes, cards };
  }, selector);
}

/**
 * The React panel's answer and chips after rendering with each of `renders` in turn, and the
 * elements' fed `fed` (the last props, unless a stream's whole answer), side by side.
 */
async function compare(page, renders, fed = renders.at(-1)) {
  await page.evaluate(async (r) => { for (const props of r) await window.panel.render(props); }, renders);
  await feed(page, { report: fed.report, answer: fed.answer ?? '', resolution: fed.resolution ?? null });
  const react = { answer: await shown(page, '#root mentor-answer'), sources: await shown(page, '#root mentor-sources') };
  const direct = { answer: await shown(page, '#answer'), sources: await shown(page, '#sources') };
  return { react, direct };
}

for (const major of Object.keys(VERSIONS)) {
  test(`React ${major}: the panel shows what the elements fed directly show, calls onCitation, and stops on unmount`, async () => {
    const { context, page, problems } = await open('light', `/react-${major}`);
    assert.equal(await page.evaluate(() => window.panel.version.split('.')[0]), major);
    const { report, resolution } = pricing();

    // The answer and its chips, as the elements show them fed directly.
    const first = await compare(page, [{ report, answer: ANSWER, resolution }]);
    assert.deepEqual(first.react, first.direct);
    assert.ok(first.react.answer.cards.some((c) => c.includes('Quote found in the source.')), 'the resolution reached the answer');
    assert.ok(first.react.sources.dom.includes('<li'), 'the chips are shown');

    // The chips are this panel's: a focused marker highlights the chip it cites.
    const highlighted = await page.evaluate(() => {
      document.querySelector('#root mentor-answer').shadowRoot.querySelector('button').focus();
      return [...document.querySelector('#root mentor-sources').shadowRoot.querySelectorAll('li[data-highlighted]')].map((li) => Number(li.dataset.index));
    });
    assert.deepEqual(highlighted, [1]);

    // Activating each marker calls onCitation once, with the first chip it cites.
    const calls = await page.evaluate(() => {
      window.calls = [];
      for (const b of document.querySelector('#root mentor-answer').shadowRoot.querySelectorAll('button')) { b.click(); b.click(); }
      return window.calls;
    });
    const known = new Set(report.citations.map((c) => c.index));
    const cited = scan(ANSWER, known).map((m) => m.indexes.find((i) => known.has(i))).filter((i) => i !== undefined);
    assert.ok(cited.length >= 5);
    // A marker's second click closes its card, which calls nobody.
    assert.deepEqual(calls, cited.map((i) => [i, i]));

    // A new answer (no resolution) re-renders; then the first again, nothing of the other left.
    const other = 'Other [2] text [1] and [4].';
    const otherResolution = JSON.parse(command(['cite', scratch(`react-${major}-report.json`, JSON.stringify(report)), scratch(`react-${major}-answer.txt`, other)]));
    for (const props of [{ report, answer: other }, { report, answer: other, resolution: otherResolution }, { report, answer: ANSWER, resolution }]) {
      const again = await compare(page, [props]);
      assert.deepEqual(again.react, again.direct, props.answer);
      assert.ok(again.react.answer.dom.includes(props.answer.slice(0, 5)), props.answer);
    }

    // A stream, one output more on each render (a new array each time, as state would be),
    // shows what the whole answer shows, each output appended once (a stream costs linear).
    const { outputs, end } = streamOutputs(ANSWER, scan(ANSWER, known), resolution);
    assert.ok(outputs.length > 100, 'one character an output');
    const grown = (o, last) => o.map((_, i) => ({ report, outputs: o.slice(0, i + 1) })).concat([{ report, outputs: o, end: last }]);
    await page.evaluate(() => {
      const proto = customElements.get('mentor-answer').prototype;
      const append = proto.append;
      window.appends = 0;
      proto.append = function counted(output) {
        if (this.closest('#root')) window.appends += 1;
        return append.call(this, output);
      };
    });
    const stream = await compare(page, grown(outputs, end), { report, answer: ANSWER, resolution });
    assert.deepEqual(stream.react, stream.direct);
    // Each output, and the end (`finish` appends it).
    assert.equal(await page.evaluate(() => window.appends), outputs.length + 1);
    // A whole answer between two showings of the same stream (the same outputs, all at once
    // the second time); a stream cut by another one.
    const next = streamOutputs(other, scan(other, known), otherResolution);
    const whole = { report, answer: other, resolution: otherResolution };
    const back = await compare(page, [...grown(outputs, end), whole, { report, outputs, end }], { report, answer: ANSWER, resolution });
    assert.deepEqual(back.react, back.direct);
    const restarted = await compare(page, [...grown(outputs, end).slice(0, 40), ...grown(next.outputs, next.end)], whole);
    assert.deepEqual(restarted.react, restarted.direct);

    // Unmounted, the element (kept here) calls nobody: the listener went with the component.
    const after = await page.evaluate(() => {
      const kept = document.querySelector('#root mentor-answer');
      window.panel.unmount();
      window.calls = [];
      kept.shadowRoot.querySelector('button').click();
      return { calls: window.calls, connected: kept.isConnected, left: document.getElementById('root').childElementCount };
    });
    assert.deepEqual(after, { calls: [], connected: false, left: 0 });
    assert.deepEqual(problems, []);
    await context.close();
  });
}
