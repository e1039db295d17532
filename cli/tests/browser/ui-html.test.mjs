// ui/examples/html in Chromium: the plain page fed by `mentor-context serve` through the
// example's own server (serve-page.mjs, what a reverse proxy does), under default-src 'self'.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pageServer } from '../../../ui/examples/html/serve-page.mjs';
import { answerDom, command, launch, root, scratch, watchedPage, work } from './ui-page.mjs';

const EXAMPLE = path.join(root, 'ui/examples/html');
const bin = process.env.MENTOR_CONTEXT_BIN ?? path.join(root, 'target/debug/mentor-context');

let service;
let server;
let origin;
let browser;

before(async () => {
  // The command as the page's README starts it, on a free port it names on standard error.
  service = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--budget', '1500'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const address = await new Promise((resolve, reject) => {
    let said = '';
    service.stderr.on('data', (d) => {
      said += d;
      const found = said.match(/listening on (http:\/\/[0-9.:]+)/);
      if (found) resolve(found[1]);
    });
    service.on('exit', (code) => reject(new Error(`serve exited (${code}): ${said}`)));
  });
  server = pageServer(address);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  service?.kill();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the page shows the chips of the service\'s report and the answer as cite resolves it', async () => {
  const { context, page, problems } = await watchedPage(browser, `${origin}/`);
  await page.waitForSelector('body[data-shown]', { timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.shown), 'true', await page.locator('#status').textContent());

  // What the command writes for the same files: the service's report is assemble's, byte for byte.
  const reportText = command(['assemble', '--json', '--budget', '1500', path.join(EXAMPLE, 'results.json')]);
  const answer = fs.readFileSync(path.join(EXAMPLE, 'answer.txt'), 'utf8');
  const resolution = JSON.parse(command(['cite', scratch('html-report.json', reportText), path.join(EXAMPLE, 'answer.txt')]));
  const shown = await page.evaluate(() => ({ report: document.getElementById('sources').report, resolution: document.getElementById('answer').resolution }));
  assert.deepEqual(shown.report, JSON.parse(reportText));
  assert.deepEqual(shown.resolution, resolution);

  // The same data set directly on fresh elements gives the same DOM.
  const streamed = await answerDom(page, 'answer');
  await page.evaluate(({ r, a, res }) => {
    const sources = document.createElement('mentor-sources');
    sources.id = 'direct-sources';
    const direct = document.createElement('mentor-answer');
    direct.id = 'direct';
    direct.setAttribute('sources', 'direct-sources');
    document.querySelector('main').append(direct, sources);
    sources.report = r;
    direct.answer = a;
    direct.resolution = res;
  }, { r: JSON.parse(reportText), a: answer, res: resolution });
  assert.equal(streamed, (await answerDom(page, 'direct')).replaceAll('direct-sources', 'sources'));
  const chips = await page.locator('#sources').getByRole('button').allTextContents();
  assert.equal(chips.length, 3);
  assert.match(chips[2], /help\.example\.com/, 'a chip without a title shows its URL');
  const markers = await page.locator('#answer').getByRole('button').evaluateAll((b) => b.map((x) => x.getAttribute('aria-label')));
  assert.deepEqual(markers.map((m) => m.split(':')[0]), ['Source 1', 'Source 1', 'Source 2', 'Source 3']);
  assert.match(await page.evaluate(() => document.getElementById('answer').shadowRoot.textContent), /\[7\]\s*\(unknown source\)/);

  // A marker opens its card, and the page hears of it.
  await page.locator('#answer').getByRole('button').nth(2).click();
  assert.equal(await page.locator('#status').textContent(), 'Opened source 2.');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page\'s server passes the service\'s refusals on as they are, and serves only the page and ui/', async () => {
  // The service's problem+json, through the proxy: a body that is not JSON.
  const response = await fetch(`${origin}/v1/default/assemble`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
  assert.equal(response.status, 400);
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  assert.equal((await response.json()).code, 'INVALID_JSON');
  for (const p of ['/Cargo.toml', '/ui/../Cargo.toml', '/serve-page.mjs', '/nothing.js']) {
    assert.equal((await fetch(`${origin}${p}`)).status, 404, p);
  }
});
