// node/examples/sse_relay.mjs in Chromium: a model's answer relayed as server-sent events,
// each one an output of Node's CitationStream, shown by ui/'s elements as the events come.
// It needs the Node addon, so .ci/run runs it in the Node step, after the addon is built
// (`node --test sse-relay.test.mjs` here).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { relayServer } from '../../../node/examples/sse_relay.mjs';
import { answerDom, command, launch, root, scratch, watchedPage, work } from './ui-page.mjs';

const RESULTS = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/pricing.json'), 'utf8'));
// Chunks cut inside markers, as a model's deltas are.
const CHUNKS = ['Team costs 15 EUR a seat [', '1], "billed per active seat" [1', ']; add-ons [3, ', '4] (see [2', ']) and [99].'];
const ANSWER = CHUNKS.join('');

let browser;
let server;
let origin;

before(async () => {
  async function * model () { yield * CHUNKS; }
  server = relayServer({ results: RESULTS, model });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The stream as a client reads it: each event's name and parsed data, in order. */
async function relay() {
  const text = await (await fetch(`${origin}/answer?question=price`)).text();
  return text.split('\n\n').filter(Boolean).map((block) => {
    const [event, data] = block.split('\n');
    assert.ok(event.startsWith('event: ') && data.startsWith('data: '), block);
    return { event: event.slice(7), data: JSON.parse(data.slice(6)) };
  });
}

test('the relayed events are the stream\'s outputs, and the end resolves as the command does', async () => {
  const relayed = await relay();
  assert.deepEqual(relayed.map((e) => e.event), ['report', ...Array(relayed.length - 2).fill('output'), 'end']);
  const report = relayed[0].data;
  const shown = relayed.slice(1).map((e) => e.data.text).join('');
  assert.equal(shown, ANSWER, 'every character shown once, in order');
  // No event shows the start of a marker that a later one finishes.
  for (const { data } of relayed.slice(1, -1)) assert.doesNotMatch(data.text, /\[[0-9 ,]*$/, data.text);
  const end = relayed.at(-1).data;
  const cited = JSON.parse(command(['cite', scratch('relay-report.json', JSON.stringify(report)), scratch('relay-answer.txt', ANSWER)]));
  assert.deepEqual(end.resolution, cited, 'Node\'s resolution is the command\'s JSON');
  const found = relayed.slice(1).flatMap((e) => e.data.events);
  assert.deepEqual(found.filter((e) => e.type === 'cited').map((e) => e.index), [1, 1, 3, 4, 2]);
  assert.deepEqual(found.filter((e) => e.type === 'unknown').map((e) => e.marker), ['[99]']);
});

test('the page shows the streamed answer as the whole answer shows, under default-src \'self\'', async () => {
  const { context, page, problems } = await watchedPage(browser, `${origin}/`);
  await page.getByLabel('Question').fill('What does Team cost?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await page.waitForSelector('body[data-answered=true]', { timeout: 30_000 });
  const streamed = await answerDom(page, 'answer');
  const { report, resolution } = await page.evaluate(() => ({
    report: document.getElementById('sources').report,
    resolution: document.getElementById('answer').resolution,
  }));
  assert.equal(report.citations.length, RESULTS.length);
  // The same answer set whole, on an element of its own, is the reference.
  await page.evaluate(({ a, r }) => {
    const whole = document.createElement('mentor-answer');
    whole.id = 'whole';
    whole.setAttribute('sources', 'sources');
    document.querySelector('main').append(whole);
    whole.answer = a;
    whole.resolution = r;
  }, { a: ANSWER, r: resolution });
  assert.equal(streamed, await answerDom(page, 'whole'));
  const markers = await page.locator('#answer').getByRole('button').evaluateAll((b) => b.map((x) => x.getAttribute('aria-label') ?? x.textContent));
  assert.deepEqual(markers.map((m) => m.split(':')[0]), ['Source 1', 'Source 1', 'Sources 3, 4', 'Source 2'], markers.join(' | '));
  assert.equal(await page.locator('#sources').getByRole('button').count(), RESULTS.length);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a path outside ui/, or not a script, is not served', async () => {
  for (const p of ['/ui/../Cargo.toml', '/ui/%2e%2e/Cargo.toml', '/ui/README.md', '/ui/src/nothing.js', '/other']) {
    assert.equal((await fetch(`${origin}${p}`)).status, 404, p);
  }
  assert.equal((await fetch(`${origin}/ui/src/answer.js`)).status, 200);
});
