// Answers resolved to chips, as tests/library/citations.rs has them: the table of answer
// cases, a marker split across chunks, and streaming in any chunks giving what resolving
// the whole answer gives. Offsets index the JavaScript string.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Assembler, CitationStream, resolveCitations } from '../index.js'
import { runCli, tempFile, thrown } from './helpers.mjs'

/** A report of five chips, numbered 1..5. */
function report () {
  const results = [1, 2, 3, 4, 5].map((n) => ({ content: `Fact number ${n}.`, score: 1 - n / 10, title: `Doc ${n}` }))
  const context = new Assembler(1000).assemble(results)
  assert.equal(context.citations.length, 5)
  return context
}

// Each: an answer, the chips it cites in order of first citation with their counts, its
// unknown markers, and the answer renumbered.
const CASES = [
  ['', [], [], ''],
  ['No sources here.', [], [], 'No sources here.'],
  ['Plan B costs 12 EUR [3].', [[3, 1]], [], 'Plan B costs 12 EUR [1].'],
  ['Both [4, 2] and [2,4].', [[4, 2], [2, 2]], [], 'Both [1, 2] and [2,1].'],
  ['See [2-4] and [5 – 3].', [[2, 1], [3, 1], [4, 1]], ['[5 – 3]'], 'See [1-3] and [5 – 3].'],
  ['Range after a citation [3] then [2-4].', [[3, 2], [2, 1], [4, 1]], [], 'Range after a citation [1] then [2, 1, 3].'],
  ['Mixed [5, 1-2].', [[5, 1], [1, 1], [2, 1]], [], 'Mixed [1, 2-3].'],
  ['Twice [2][1] then [2].', [[2, 2], [1, 1]], [], 'Twice [1][2] then [1].'],
  ['Once per marker [1, 1, 1-2].', [[1, 1], [2, 1]], [], 'Once per marker [1, 1, 1-2].'],
  ['Made up [9], zero [0], and [2, 7].', [[2, 1]], ['[9]', '[0]', '[2, 7]'], 'Made up [9], zero [0], and [1, 7].'],
  ['Too wide [1-5000] and too long [1234567890].', [], ['[1-5000]'], 'Too wide [1-5000] and too long [1234567890].'],
  ['Use `list[1]` or ``a ` [2]`` but [3].', [[3, 1]], [], 'Use `list[1]` or ``a ` [2]`` but [1].'],
  ['Code:\n```python\nx = [1]\n[2]\n```\nafter [4]\n~~~\n[5]\n~~~\n', [[4, 1]], [], 'Code:\n```python\nx = [1]\n[2]\n```\nafter [1]\n~~~\n[5]\n~~~\n'],
  ['An open ` hides [1]\n\nuntil a blank line [2].', [[2, 1]], [], 'An open ` hides [1]\n\nuntil a blank line [1].'],
  ['array[2], x[1], v_2[3], m[1][2], \\[4] but (see [5]).', [[5, 1]], [], 'array[2], x[1], v_2[3], m[1][2], \\[4] but (see [1]).'],
  ['A [link](https://x.example), [1](https://y.example), [text][2], [3].', [[3, 1]], [], 'A [link](https://x.example), [1](https://y.example), [text][2], [1].'],
  ['Not markers: [], [ ], [1,], [a], [1--2], [[4]].', [[4, 1]], [], 'Not markers: [], [ ], [1,], [a], [1--2], [[1]].'],
  ['価格は12ユーロです[2]。', [[2, 1]], [], '価格は12ユーロです[1]。'],
  ['价格［3］，另见［1, 2］。【4】〔5〕［１］[2］', [[3, 1], [1, 1], [2, 1]], [], '价格［1］，另见［2, 3］。【4】〔5〕［１］[2］'],
  ['Ends with [1]', [[1, 1]], [], 'Ends with [1]'],
  ['Unfinished [1, 2', [], [], 'Unfinished [1, 2'],
  ['😀 before [9] and [1]', [[1, 1]], ['[9]'], '😀 before [9] and [1]'],
]

test('answer cases resolve as documented, with offsets into the JavaScript string', () => {
  const context = report()
  for (const [answer, cited, unknown, renumbered] of CASES) {
    const plain = resolveCitations(context, answer)
    assert.deepEqual(plain.cited.map((c) => [c.citation.index, c.count]), cited, answer)
    assert.deepEqual(plain.unknown.map((u) => u.marker), unknown, answer)
    assert.equal(plain.answer, null)
    plain.cited.forEach((chip, n) => {
      assert.equal(chip.newIndex, n + 1)
      assert.deepEqual(chip.citation, context.citations[chip.citation.index - 1])
      for (const span of chip.spans) {
        const marker = answer.slice(span.start, span.end)
        assert.ok(/^[[［].*[\]］]$/s.test(marker), `${marker} in ${answer}`)
      }
    })
    for (const u of plain.unknown) assert.ok(answer.slice(u.at).startsWith(u.marker))
    const again = resolveCitations(context, answer, { renumber: true })
    assert.equal(again.answer, renumbered, answer)
    assert.deepEqual(again.cited.map((c) => [c.citation.index, c.count]), cited)
    // Only the citations will do, and so will the report's JSON text.
    assert.deepEqual(resolveCitations(context.citations, answer), plain)
    assert.deepEqual(resolveCitations(JSON.stringify(context), answer), plain)
  }
})

test('resolutions agree with the command\'s `cite`, offsets counted in its bytes', () => {
  const context = report()
  const path = tempFile('report.json', JSON.stringify(context))
  for (const [answer] of CASES) {
    const answerPath = tempFile('answer.txt', answer)
    const done = runCli(['cite', '--renumber', path, answerPath])
    assert.equal(done.status, 0, done.stderr)
    const theirs = JSON.parse(done.stdout)
    const ours = resolveCitations(context, answer, { renumber: true })
    assert.deepEqual(ours.cited.map((c) => [c.citation.index, c.citation.inputIndex, c.count, c.newIndex]),
      theirs.cited.map((c) => [c.citation.index, c.citation.inputIndex, c.count, c.newIndex]))
    assert.equal(ours.answer, theirs.answer)
    const bytes = (units) => Buffer.byteLength(answer.slice(0, units))
    assert.deepEqual(ours.unknown.map((u) => [u.marker, bytes(u.at)]), theirs.unknown.map((u) => [u.marker, u.at]))
  }
})

test('a split marker comes out whole', () => {
  const context = report()
  const stream = new CitationStream(context, { renumber: true })
  const first = stream.push('Price [1')
  assert.equal(first.text, 'Price ')
  assert.equal(stream.heldBack, 2)
  // `[1` then `2]` is the citation [12]: unknown with five chips, shown whole.
  const second = stream.push('2] and [3')
  assert.equal(second.text, '[12] and ')
  assert.deepEqual(second.events, [{ type: 'unknown', marker: '[12]', at: 6 }])
  // Complete, but a `(` could still make it link text.
  assert.equal(stream.push(']').text, '')
  const fourth = stream.push('.')
  assert.equal(fourth.text, '[1].')
  assert.deepEqual(fourth.events, [{ type: 'cited', index: 3, newIndex: 1, first: true, span: { start: 15, end: 18, startUtf16: 15, endUtf16: 18 } }])
  const end = stream.finish()
  assert.equal(end.text, '')
  assert.deepEqual(end.events, [])
  assert.equal(end.resolution.answer, 'Price [12] and [1].')
  assert.equal(stream.heldBack, 0)
  assert.equal(thrown(() => stream.push('more')).code, 'STREAM_FINISHED')
  assert.equal(thrown(() => stream.finish()).code, 'STREAM_FINISHED')
  assert.equal(thrown(() => new CitationStream(context).push(42)).code, 'INVALID_ARGUMENT')
  assert.equal(thrown(() => new CitationStream({ citations: [{ index: 'one' }] })).code, 'INVALID_REPORT')
  assert.equal(thrown(() => new CitationStream(context, { renumbr: true })).code, 'INVALID_ARGUMENT')
})

// Pieces answers are made of: every construct the scanner tells apart.
const PIECES = ['[1]', '[2]', '[3]', '[5]', '[9]', '[0]', '[1, 2]', '[2,3]', '[1-3]', '[4 – 2]', '[12]',
  '[1][2]', '［2］', '［1, 3］', '[1](u)', '[x]', '[', ']', '[1', '2]', ', ', '-', '(', ')', '`', '``', '```',
  '~~~', '\n', '\n\n', ' ', 'word', 'x', '_', '\\', 'é', '価', '😀', '\u200b', '【1】', '\r\n']

/** A generator of numbers in [0, 1), the same for the same seed. */
function random (seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

test('streaming in any chunks gives the text, events and resolution of the whole answer', () => {
  const context = report()
  const next = random(26)
  // The longest marker the scanner holds back, in bytes (citations::MAX_MARKER_BYTES).
  const MAX_MARKER = 64
  for (let round = 0; round < 400; round++) {
    const answer = Array.from({ length: Math.floor(next() * 40) }, () => PIECES[Math.floor(next() * PIECES.length)]).join('')
    const renumber = next() < 0.5
    const whole = resolveCitations(context, answer, { renumber })
    const once = new CitationStream(context, { renumber })
    const onceEvents = once.push(answer).events
    const onceEnd = once.finish()
    onceEvents.push(...onceEnd.events)
    // Cut at code points, in random places.
    const points = Array.from(answer)
    const cuts = [...new Set(Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * points.length)))].sort((a, b) => a - b)
    const chunks = []
    let from = 0
    for (const cut of [...cuts, points.length]) {
      chunks.push(points.slice(from, cut).join(''))
      from = cut
    }
    const stream = new CitationStream(context, { renumber })
    let shown = ''
    const events = []
    let read = 0
    for (const chunk of chunks) {
      const out = stream.push(chunk)
      read += chunk.length
      shown += out.text
      events.push(...out.events)
      assert.ok(stream.heldBack <= MAX_MARKER)
      if (!renumber) {
        assert.equal(shown.length + stream.heldBack, read)
        assert.ok(answer.startsWith(shown))
      }
    }
    const end = stream.finish()
    shown += end.text
    events.push(...end.events)
    assert.deepEqual(end.resolution, whole, JSON.stringify(answer))
    assert.deepEqual(events, onceEvents, JSON.stringify(answer))
    assert.equal(shown, whole.answer ?? answer)
    for (const event of events) {
      if (event.type === 'cited') assert.ok(/^[[［]/.test(answer.slice(event.span.start, event.span.end)))
      else assert.ok(answer.slice(event.at).startsWith(event.marker))
    }
  }
})

test('offsets past astral and accented text index the JavaScript string, in both keys', () => {
  const answer = 'Prix 😀 élevé [2], puis 日本 [4].'
  const whole = resolveCitations(report(), answer)
  const stream = new CitationStream(report())
  const events = []
  for (const chunk of ['Prix 😀', ' élevé [2', '], puis 日本 [', '4].']) events.push(...stream.push(chunk).events)
  events.push(...stream.finish().events)
  const spans = [...whole.cited.flatMap((chip) => chip.spans), ...events.map((event) => event.span)]
  assert.equal(spans.length, 4)
  for (const span of spans) {
    assert.match(answer.slice(span.start, span.end), /^\[[24]\]$/)
    assert.equal(span.startUtf16, span.start)
    assert.equal(span.endUtf16, span.end)
  }
})

test('a chunk cut between the halves of an emoji is read with the next, not as U+FFFD', () => {
  const answer = 'Prix 😀 [2] et 😀'
  const stream = new CitationStream(report())
  let shown = ''
  const events = []
  for (let at = 0; at < answer.length; at++) {
    const out = stream.push(answer[at])  // one code unit at a time: each emoji arrives in halves
    shown += out.text
    events.push(...out.events)
  }
  const end = stream.finish()
  shown += end.text
  assert.equal(shown, answer)
  assert.equal(end.resolution.cited[0].spans[0].start, answer.indexOf('[2]'))
  // Half an emoji at the very end is a lone surrogate: shown as U+FFFD, as V8 writes one.
  const cut = new CitationStream(report())
  const first = cut.push('Fin ' + '😀'.slice(0, 1))
  const last = cut.finish()
  assert.equal(first.text + last.text, 'Fin \uFFFD')
})

test('a chip read back keeps its metadata in the order of the report', () => {
  const report = new Assembler(500).assemble([{ content: 'Plan B.', score: 1, metadata: { zeta: '1', alpha: '2' } }])
  for (const given of [report, JSON.stringify(report), { citations: report.citations }, report.citations]) {
    const { cited } = resolveCitations(given, 'Plan B [1].')
    assert.deepEqual(Object.keys(cited[0].citation.metadata), ['zeta', 'alpha'])
  }
})
