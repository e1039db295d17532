// Responses at their edges (issue 33), as python/tests/test_response_edges.py has them: a
// byte order mark first, two streams end to end, CR line ends, a numeric Cohere id, a
// web-search citation, a title that is no string, a quote that starts inside a word. Each
// resolves as the command's `cite --dialect` reads it, or is refused as the command refuses.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { Assembler } from '../index.js'
import { FIXTURES, load, runCli, tempFile, thrown } from './helpers.mjs'

const PRICING = join(FIXTURES, 'pricing.json')
const RESPONSES = join(FIXTURES, 'responses')
const read = (dialect, kind) => readFileSync(join(RESPONSES, `${dialect}.${kind}`), 'utf8')

function anthropic (change) {
  const message = JSON.parse(read('anthropic', 'json'))
  change(message.content[1].citations)
  return JSON.stringify(message)
}

const WEB = {
  type: 'web_search_result_location', cited_text: 'Team costs 15 EUR',
  url: 'https://example.com/prices', title: 'Prices', encrypted_index: 'Eo8B'
}

const CASES = [
  ['bom', 'anthropic', '\ufeff' + read('anthropic', 'json')],
  ['bom-sse', 'cohere', '\ufeff' + read('cohere', 'sse')],
  ['twice', 'anthropic', read('anthropic', 'jsonl').repeat(2), 'comes after message_stop'],
  ['twice-sse', 'mistral', read('mistral', 'sse').repeat(2), 'comes after a chunk with a finish_reason'],
  ['cr', 'cohere', read('cohere', 'sse').replaceAll('\n', '\r')],
  ['numeric-id', 'cohere', read('cohere', 'json').replaceAll('"id": "1"', '"id": 1'), null,
    (r) => r.cited[0].citation.index === 1],
  ['web', 'anthropic', anthropic((cites) => cites.push(WEB)), null,
    (r) => r.unknown.some((u) => u.marker === 'a web_search_result_location citation of "https://example.com/prices"')],
  ['title', 'anthropic', anthropic((cites) => { cites[0].title = 7 }),
    'content[1].citations[0].title: expected a string'],
  ['inside-a-word', 'anthropic', anthropic((cites) => { cites[0].cited_text = cites[0].cited_text.slice(1) }), null,
    (r) => r.unverified === 2]
]

for (const [name, dialect, text, refusal, holds] of CASES) {
  test(`a response at its edge (${name}) reads as the command reads it`, () => {
    const assembler = new Assembler(600, { dialect })
    const report = assembler.assemble(load(PRICING))
    const reportFile = tempFile('report.json', JSON.stringify(report))
    const responseFile = tempFile('response', text)
    const done = runCli(['cite', '--budget', '600', '--dialect', dialect, reportFile, responseFile])
    if (refusal) {
      assert.equal(done.status, 2, done.stdout)
      assert.ok(done.stderr.includes(refusal), done.stderr)
      const err = thrown(() => assembler.resolveResponse(report, text))
      assert.ok(err.message.includes(refusal), err.message)
      return
    }
    assert.equal(done.status, 0, done.stderr)
    const theirs = JSON.parse(done.stdout)
    const ours = assembler.resolveResponse(report, text)
    assert.equal(ours.answer, theirs.answer)
    assert.deepEqual(ours.cited.map((c) => [c.citation.index, c.count, c.quotes ?? undefined]),
      theirs.cited.map((c) => [c.citation.index, c.count, c.quotes]))
    assert.equal(ours.unverified, theirs.unverified)
    assert.deepEqual(ours.unknown.map((u) => u.marker), theirs.unknown.map((u) => u.marker))
    if (holds) assert.ok(holds(ours), JSON.stringify(ours))
    if (name.endsWith('sse') || name === 'cr') {
      const stream = assembler.responseStream(report)
      for (let i = 0; i < text.length; i += 37) stream.pushSse(text.slice(i, i + 37))
      assert.deepEqual(stream.finish().resolution, ours)
    }
  })
}
