// A tool message's content from Node, as python/tests/test_tool_content.py has it: Mistral's
// is `assemble --dialect mistral`'s output byte for byte; Cohere's is
// fixtures/tool_content/cohere-multilingual-300.json, which the library's test
// (tests/library/tool_content.rs) checks is what Rust's `cohere_tool_content` writes. Entries
// of another dialect, or edited, throw INVALID_ARGUMENT.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { Assembler, cohereToolContent, mistralToolContent } from '../index.js'
import { FIXTURES, checkError, load, matches, runCli, thrown } from './helpers.mjs'

/** (fixture, budget): the second cuts an entry, and its text is CJK, emoji and quotes. */
const CASES = [['pricing.json', 600], ['multilingual.json', 300]]

function entriesOf (dialect, fixture, budget) {
  const assembler = new Assembler(budget, { dialect })
  return assembler.entries(assembler.assemble(load(join(FIXTURES, fixture))))
}

for (const [fixture, budget] of CASES) {
  test(`${fixture} at ${budget}: the Mistral content is what the command prints`, () => {
    const done = runCli(['assemble', '--budget', String(budget), '--dialect', 'mistral', join(FIXTURES, fixture)])
    assert.equal(done.status, 0, done.stderr)
    const entries = entriesOf('mistral', fixture, budget)
    const content = mistralToolContent(entries)
    assert.equal(content + '\n', done.stdout)
    // Keyed '0', '1', ...: reference id i is citation i + 1.
    assert.deepEqual(JSON.parse(content), { ...entries })
    // The entries as a store keeps them, read back.
    assert.equal(mistralToolContent(JSON.parse(JSON.stringify(entries))), content)
  })
}

test('the Cohere content is the fixture Rust writes, byte for byte', () => {
  const fixture = readFileSync(join(FIXTURES, 'tool_content', 'cohere-multilingual-300.json'), 'utf8')
  const entries = entriesOf('cohere', 'multilingual.json', 300)
  const content = cohereToolContent(entries)
  assert.equal(JSON.stringify(content) + '\n', fixture)
  assert.deepEqual(content.map((block) => block.document), entries)
  assert.ok(content.some((block) => block.document.data.truncated === 'true'))
  for (const block of content) {
    matches('CohereToolContent', block)
    matches('CohereDocument', block.document)
  }
})

test('no entries are an empty content', () => {
  assert.equal(mistralToolContent([]), '{}')
  assert.deepEqual(cohereToolContent([]), [])
})

const refusal = (fn, entries) => checkError(thrown(() => fn(entries)), 'INVALID_ARGUMENT')

for (const [dialect, name] of [['anthropic', 'an Anthropic block'], ['anthropic-documents', 'an Anthropic block'],
  ['bedrock', 'a Bedrock document'], ['cohere', 'a Cohere document']]) {
  test(`${dialect}: its entries are refused for Mistral, naming what they are`, () => {
    assert.equal(refusal(mistralToolContent, entriesOf(dialect, 'pricing.json', 600)),
      `entries[0]: ${name}, not a Mistral reference: give the entries of an assembler with dialect mistral`)
  })
}

test('Mistral entries are refused for Cohere', () => {
  assert.equal(refusal(cohereToolContent, entriesOf('mistral', 'pricing.json', 600)),
    'entries[0]: a Mistral reference, not a Cohere document: give the entries of an assembler with dialect cohere')
})

test('edited entries and other values are refused, nothing dropped', () => {
  const entries = entriesOf('mistral', 'pricing.json', 600)
  entries[1].score = '0.9'
  assert.equal(refusal(mistralToolContent, entries),
    'entries[1]: holds `score`, which a Mistral reference as Assembler.entries writes it does not')
  const cohere = entriesOf('cohere', 'pricing.json', 600)
  cohere[2].data.text = 12
  assert.match(refusal(cohereToolContent, cohere),
    /^entries\[2\]: not a Cohere document: invalid type: (integer `12`|floating point `12(\.0)?`), expected a string/)
  const report = new Assembler(600, { dialect: 'cohere' }).assemble(load(join(FIXTURES, 'pricing.json')))
  assert.match(refusal(cohereToolContent, report), /^entries: expected the array entries returns: invalid type: map, expected a sequence$/)
  assert.equal(refusal(mistralToolContent, undefined), 'entries: expected the array entries returns: got undefined')
})
