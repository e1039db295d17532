// Quotes before `[n]` markers are checked from the report alone, as `mentor-context cite`
// checks them: the same report and answer give the same `unverified` count and quotes in the
// command, `resolveCitations` and a `CitationStream` (issue 32, item 4).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { Assembler, CitationStream, resolveCitations } from '../index.js'
import { FIXTURES, load, runCli, tempFile, thrown } from './helpers.mjs'

const ANSWER_FILE = join(FIXTURES, 'quoted-answer.txt')
const ANSWER = readFileSync(ANSWER_FILE, 'utf8')

// What every front end reports (the library's and Python's tests expect the same).
const EXPECTED = [
  [1, 'Team: 15 EUR, unlimited seats', true],
  [1, 'Team: 12 EUR', false],
  [4, 'Extra storage: 4 EUR per 100 GB.', true]
]

/** `pricing` as `assemble --json --format xml --hide-metadata-key chunk_id` reports it. */
function xmlReport () {
  return new Assembler(4000, { format: 'xml', hideMetadataKeys: ['chunk_id'] })
    .assemble(load(join(FIXTURES, 'pricing.json')))
}

function quotes (resolution, index = (chip) => chip.citation.index) {
  return resolution.cited.flatMap((chip) => (chip.quotes ?? []).map((q) => [index(chip), q.text, q.verified]))
}

function streamed (report, answer) {
  const stream = new CitationStream(report)
  for (const word of answer.split(' ')) stream.push(word + ' ')
  return stream.finish().resolution
}

test('the report records its layout', () => {
  assert.deepEqual(xmlReport().layout, { format: 'xml', header: '', hiddenKeys: ['chunk_id'], maxHeadTokens: null })
})

test('quotes agree with the command', () => {
  const report = xmlReport()
  const done = runCli(['cite', tempFile('report.json', JSON.stringify(report)), ANSWER_FILE])
  assert.equal(done.status, 0, done.stderr)
  assert.equal(done.stderr, '')
  const theirs = JSON.parse(done.stdout)
  assert.deepEqual(quotes(theirs), EXPECTED)
  assert.equal(theirs.unverified, 1)
  for (const ours of [resolveCitations(report, ANSWER), resolveCitations(JSON.stringify(report), ANSWER),
    streamed(report, ANSWER)]) {
    assert.deepEqual(quotes(ours), EXPECTED)
    assert.equal(ours.unverified, 1)
  }
})

test('one resolution shape: an ASCII answer resolves to what the command writes, exactly', () => {
  // For an ASCII answer, UTF-16 offsets are the command's bytes: the whole object is `cite`'s.
  const report = xmlReport()
  const reportFile = tempFile('report.json', JSON.stringify(report))
  for (const renumber of [false, true]) {
    const done = runCli(['cite', ...(renumber ? ['--renumber'] : []), reportFile, ANSWER_FILE])
    assert.equal(done.status, 0, done.stderr)
    const theirs = JSON.parse(done.stdout)
    assert.deepEqual(JSON.parse(JSON.stringify(resolveCitations(report, ANSWER, { renumber }))), theirs)
    assert.deepEqual(Object.keys(theirs.cited[0]), ['citation', 'newIndex', 'count', 'spans', 'quotes'])
  }
})

test('an edited report reports its quotes not verified', () => {
  const report = xmlReport()
  report.context = report.context.replace('15 EUR', '16 EUR')
  const resolution = resolveCitations(report, ANSWER)
  assert.deepEqual(quotes(resolution), EXPECTED.map(([n, q]) => [n, q, false]))
  assert.equal(resolution.unverified, 3)
})

test('citations alone check no quote', () => {
  const resolution = resolveCitations(xmlReport().citations, ANSWER)
  assert.deepEqual(quotes(resolution), [])
  assert.equal(resolution.unverified, 0)
})

test('a bad whole report is refused naming it', () => {
  const report = { ...xmlReport(), tokenCount: 'many' }
  const err = thrown(() => resolveCitations(report, ANSWER))
  assert.equal(err.code, 'INVALID_REPORT')
  assert.match(err.message, /^report: /)
})

test('a follow-up of another layout names the part', () => {
  const report = xmlReport()
  const plain = thrown(() => new Assembler(4000, { hideMetadataKeys: ['chunk_id'] }).assembleFollowUp(report, []))
  assert.match(plain.message, /it was written in the xml format, this assembler writes plain/)
  const hidden = thrown(() => new Assembler(4000, { format: 'xml', hideMetadataKeys: ['currency'] }).assembleFollowUp(report, []))
  assert.match(hidden.message, /it hides the metadata keys chunk_id, this assembler hides the metadata keys currency/)
})
