// The report of `Assembler.assemble` is the report of `mentor-context assemble --json`:
// every fixture, several configurations, byte for byte.
import assert from 'node:assert/strict'
import { basename } from 'node:path'
import { test } from 'node:test'

import { Assembler } from '../index.js'
import { FIXTURES, RESULT_FIXTURES, cliReport, load, tempFile } from './helpers.mjs'

// Each: the command's options, and the same configuration as Assembler options.
const CONFIGURATIONS = [
  [[], [4000, {}]],
  [['--budget', '300'], [300, {}]],
  [['--budget', '250', '--format', 'xml', '--overflow', 'skip', '--encoding', 'cl100k_base'],
    [250, { format: 'xml', overflow: 'skip', encoding: 'cl100k_base' }]],
  [['--budget', '500', '--order', 'edges', '--max-per-source', '1', '--min-score', '0.3',
    '--hide-metadata-key', 'chunk_id', '--header', 'Cite sources as [n].',
    '--max-head-tokens', '24', '--duplicates', 'content'],
  [500, { order: 'edges', maxPerSource: 1, minScore: 0.3, hideMetadataKeys: ['chunk_id'],
    header: 'Cite sources as [n].', maxHeadTokens: 24, duplicates: 'content' }]],
  [['--budget', '120', '--overflow', 'stop', '--max-blocks', '2', '--min-truncated-tokens', '8',
    '--engine', 'tiktoken', '--encoding', 'p50k_base', '--keep-duplicates'],
  [120, { overflow: 'stop', maxBlocks: 2, minTruncatedTokens: 8, engine: 'tiktoken',
    encoding: 'p50k_base', duplicates: 'keep' }]],
  [['--model', 'gpt-4o', '--reserve-output', '127000', '--prompt-tokens', '500'],
    [null, { model: 'gpt-4o', reserveOutput: 127000, promptTokens: 500 }]],
]

// unknown-properties.json warns, as it should (errors.test.mjs checks the words).
process.on('warning', () => {})

for (const [args, [budget, options]] of CONFIGURATIONS) {
  test(`reports equal the command's: ${args.join(' ') || 'defaults'}`, () => {
    const assembler = new Assembler(budget, options)
    for (const fixture of RESULT_FIXTURES) {
      const expected = cliReport(args, fixture)
      const results = load(fixture)
      assert.equal(assembler.assembleJson(results) + '\n', expected, basename(fixture))
      const report = assembler.assemble(results)
      assert.deepEqual(report, JSON.parse(expected), basename(fixture))
      // The same keys in the same order, the same numbers: what JSON.stringify writes of
      // each is the same text.
      assert.equal(JSON.stringify(report), JSON.stringify(JSON.parse(expected)))
    }
  })
}

test('a model window adds window and headroom, and nothing else does', () => {
  const results = load(RESULT_FIXTURES[0])
  const report = new Assembler(null, { model: 'gpt-4o', reserveOutput: 1000, promptTokens: 200 })
    .assemble(results)
  assert.equal(report.budget, report.window.contextWindow - 1000 - 200)
  assert.equal(report.headroom, report.budget - report.tokenCount)
  const plain = new Assembler(2000).assemble(results)
  assert.ok(!('window' in plain) && !('headroom' in plain) && !('seal' in plain))
})

test('scores at the limits of f32 read back as the JSON gives them', () => {
  const scores = [1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38, 0.1, 123456.79, 1e-7, 0.91]
  const assembler = new Assembler(4000)
  const results = scores.map((score, n) => ({ content: `result ${n}`, score }))
  const report = assembler.assemble(results)
  assert.deepEqual(report, JSON.parse(assembler.assembleJson(results)))
  assert.ok(report.citations.some((chip) => chip.score === 0.91))
})

test('a sealed report is the command\'s byte for byte, a key given as bytes or as text', () => {
  const key = 'a key of thirty-two bytes, test!'
  const keyFile = tempFile('key', key + '\n')
  const fixture = `${FIXTURES}/pricing.json`
  const expected = cliReport(['--budget', '300', '--seal-key-file', keyFile], fixture)
  const sealed = new Assembler(300, { sealKey: key })
  assert.equal(sealed.assembleJson(load(fixture)) + '\n', expected)
  assert.deepEqual(sealed.assemble(load(fixture)), JSON.parse(expected))
  const bytes = new Assembler(300, { sealKey: Buffer.from(key) }).assemble(load(fixture))
  assert.equal(bytes.seal, JSON.parse(expected).seal)
  const array = new Assembler(300, { sealKey: new TextEncoder().encode(key) }).assemble(load(fixture))
  assert.equal(array.seal, bytes.seal)
  assert.equal(bytes.seal.length, 64)
})

test('withBudget is a new budget on the same configuration', () => {
  const fixture = RESULT_FIXTURES[0]
  const base = new Assembler(4000, { format: 'xml', header: 'H' })
  const expected = cliReport(['--budget', '200', '--format', 'xml', '--header', 'H'], fixture)
  assert.deepEqual(base.withBudget(200).assemble(load(fixture)), JSON.parse(expected))
  assert.equal(base.budget, 4000)
  assert.deepEqual([base.withBudget(200).budget, base.format, base.encoding], [200, 'xml', 'o200k_base'])
})

test('results are read as JavaScript writes them: what JSON.stringify keeps, nothing else', () => {
  class Doc {
    constructor (content, score) {
      this.content = content
      this.score = score
      this.title = undefined
    }

    describe () { return 'not data' }
  }
  const written = [
    { Content: 'Plan B costs 12 EUR a month.', Score: '0.91', SourceUrl: 'https://x.example/p',
      Metadata: { page: '3', note: null, dropped: undefined, when: new Date(0) } },
    new Doc('Plan A is free.', 0.5),
    { content: 'Plan C', score: 0.2, title: undefined, helper () {} },
  ]
  const assembler = new Assembler(400)
  const report = assembler.assemble(written)
  assert.deepEqual(report, assembler.assemble(JSON.parse(JSON.stringify(written))))
  assert.equal(report.citations[0].metadata.when, '1970-01-01T00:00:00.000Z')
  assert.equal(report.citations[0].metadata.note, null)
  assert.ok(!('dropped' in report.citations[0].metadata))
})

test('a metadata key named __proto__ is a key, as JSON.parse makes it', () => {
  const assembler = new Assembler(400)
  const results = JSON.parse('[{"content":"x","score":1,"metadata":{"__proto__":"v","k":"w"}}]')
  const report = assembler.assemble(results)
  assert.deepEqual(Object.keys(report.citations[0].metadata), ['__proto__', 'k'])
  assert.equal(Object.getPrototypeOf(report.citations[0].metadata), Object.prototype)
  assert.deepEqual(report, JSON.parse(assembler.assembleJson(results)))
})

test('text of every script crosses whole, both ways', () => {
  const assembler = new Assembler(4000)
  const results = [
    { content: 'Le prix est de 12 € [1]. 価格は12ユーロです。😀 naïve', score: 0.9, title: 'Préface — 序文' },
    { content: 'ASCII only, longer than eight units', score: 0.8, metadata: { 'clé': 'välue 😀' } },
  ]
  const report = assembler.assemble(results)
  assert.deepEqual(report, JSON.parse(assembler.assembleJson(results)))
  assert.ok(report.context.includes('価格は12ユーロです。😀 naïve'))
})
