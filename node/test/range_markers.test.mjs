// Range markers cannot amplify, as in tests/library/range_markers.rs: the ranges of one
// answer cite at most 10,000 numbers in all (the library's MAX_RANGE_NUMBERS), and a range
// past that is an unknown marker. The red team's answer, 200 KiB of `[1-1000]` against a
// 1,000-chip report, is checked by the spans and events it gives (the offsets were counted in
// a walk per chip before, quadratic); every offset indexes the JavaScript string.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Assembler, CitationStream, resolveCitations } from '../index.js'

// The library's MAX_RANGE_NUMBERS: the same bound in every language.
const MAX_RANGE_NUMBERS = 10_000

function thousandChips () {
  const results = Array.from({ length: 1000 }, (_, i) => ({ content: `Fact ${i}.`, score: 0.5 }))
  const report = new Assembler(50_000).assemble(results)
  assert.equal(report.citations.length, 1000)
  return report
}

test('the ranges of an answer cite at most the bound in all', () => {
  const report = thousandChips()
  // An astral character between markers, so that code units are not bytes.
  const piece = '[1-1000] 😀 '
  const answer = piece.repeat(Math.floor(200 * 1024 / Buffer.byteLength(piece)))
  const markers = answer.split('[').length - 1
  const whole = resolveCitations(report, answer)
  const spans = whole.cited.flatMap((chip) => chip.spans)
  assert.equal(spans.length, MAX_RANGE_NUMBERS)
  assert.equal(whole.unknown.length, markers - 10)
  for (const span of spans) assert.equal(answer.slice(span.start, span.end), '[1-1000]')
  for (const marker of whole.unknown) assert.equal(answer.slice(marker.at, marker.at + 8), '[1-1000]')
  assert.equal(whole.unknown.at(-1).at, answer.lastIndexOf('['))
  const stream = new CitationStream(report)
  let events = []
  // Chunks of whole pieces: a cut between the halves of a surrogate pair is no string Rust reads.
  const chunk = piece.repeat(100)
  for (let at = 0; at < answer.length; at += chunk.length) events = events.concat(stream.push(answer.slice(at, at + chunk.length)).events)
  const end = stream.finish()
  events = events.concat(end.events)
  assert.deepEqual(end.resolution, whole)
  assert.equal(events.length, MAX_RANGE_NUMBERS + markers - 10)
  assert.deepEqual(events.at(-1), { type: 'unknown', marker: '[1-1000]', at: answer.lastIndexOf('[') })
})
