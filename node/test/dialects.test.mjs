// The model APIs' dialects, as python/tests/test_dialects.py has them: for each dialect the
// report and entries are the command's byte for byte; a provider's response resolves as the
// command's `cite --dialect` reads it, with offsets into the JavaScript string; a stream fed
// event by event, or as server-sent events cut anywhere, gives the same resolution.
//
// The responses are fixtures/responses/D.json, D.jsonl and D.sse, shaped after the
// providers' SDK type files named in fixtures/responses/generate.py: anthropic-sdk-python
// `src/anthropic/types/` (`message.py`, `text_block.py`, `citations_search_result_location.py`,
// `citation_char_location.py`, `citations_delta.py`, `raw_content_block_start_event.py`,
// `raw_content_block_delta_event.py`, `raw_content_block_stop_event.py`,
// `raw_message_start_event.py`, `raw_message_delta_event.py`, `raw_message_stop_event.py`)
// and cohere-python `src/cohere/v2/types/v2chat_response.py`, `v2chat_stream_response.py`,
// `src/cohere/types/citation.py`, `source.py`, `document.py`; aws-sdk-rust
// `sdk/bedrockruntime/src/types/` (Converse, and ConverseStream's events as the AWS SDK for
// JavaScript yields them: objects keyed by type; no .sse, the wire framing is binary) and
// mistralai client-python `src/mistralai/client/models/` (chat completions and their
// chunks). Each is also read with an emoji put before its text, so that bytes, characters
// and UTF-16 units all differ.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { Assembler, ErrorCode, ResponseStream, mistralToolContent } from '../index.js'
import { FIXTURES, cliError, load, runCli, tempFile, thrown } from './helpers.mjs'

const PRICING = join(FIXTURES, 'pricing.json')
const RESPONSES = join(FIXTURES, 'responses')
const DIALECTS = ['anthropic', 'anthropic-documents', 'bedrock', 'cohere', 'mistral']
/** Mistral's references carry no quote; every other fixture misquotes one source. */
const QUOTED = (dialect) => dialect !== 'mistral'
const CODES = new Set(Object.values(ErrorCode))

/** The standard output of the command, which must succeed. */
function command (args) {
  const done = runCli(args)
  assert.equal(done.status, 0, done.stderr)
  return done.stdout
}

/** The one-line message of a failing command, without the program's name. */
function failure (args) {
  const done = runCli(args)
  assert.equal(done.status, 2, done.stdout)
  const line = done.stderr.trim()
  const found = /^mentor-context: error\[[A-Z_]+\]: (.*)$/.exec(line)
  assert.ok(!line.includes('\n') && found, line)
  return found[1]
}

/** `err` is an Error of one line with `code`, one of ErrorCode's; returns its message. */
function check (err, code) {
  assert.ok(err instanceof Error, String(err))
  assert.equal(err.code, code, err.message)
  assert.ok(CODES.has(err.code), err.code)
  assert.ok(!err.message.includes('\n'), err.message)
  return err.message
}

const EMOJI = '😀 '

/** The message `message` with `EMOJI` before its text (Cohere's offsets moved past it, in
 * code points as the providers count). */
function emojiMessage (dialect, message) {
  const copy = structuredClone(message)
  if (dialect === 'cohere') {
    copy.message.content[0].text = EMOJI + copy.message.content[0].text
    for (const c of copy.message.citations) { c.start += 2; c.end += 2 }
  } else if (dialect === 'bedrock') {
    copy.output.message.content[0].text = EMOJI + copy.output.message.content[0].text
  } else if (dialect === 'mistral') {
    copy.choices[0].message.content[0].text = EMOJI + copy.choices[0].message.content[0].text
  } else {
    copy.content[0].text = EMOJI + copy.content[0].text
  }
  return copy
}

/** The stream's events with `EMOJI` before the first text delta. */
function emojiEvents (dialect, events) {
  let first = true
  return events.map((event) => {
    const copy = structuredClone(event)
    const cohereText = copy.type === 'content-delta' && copy.delta.message.content
    const anthropicText = copy.type === 'content_block_delta' && copy.delta.type === 'text_delta' && copy.delta
    const bedrockText = copy.contentBlockDelta?.delta?.text !== undefined && copy.contentBlockDelta.delta
    const holder = { cohere: cohereText, bedrock: bedrockText }[dialect] ?? anthropicText
    if (dialect === 'mistral') {
      const delta = copy.choices[0].delta
      if (first && typeof delta.content === 'string' && delta.content) { delta.content = EMOJI + delta.content; first = false }
    } else if (holder && first) { holder.text = EMOJI + holder.text; first = false }
    if (copy.type === 'citation-start') { copy.delta.message.citations.start += 2; copy.delta.message.citations.end += 2 }
    return copy
  })
}

/** Server-sent events of `events`, as generate.py writes them (none for Bedrock). */
function sse (dialect, events) {
  if (dialect === 'bedrock') return null
  if (dialect === 'mistral') return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n'
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')
}

/** For `dialect`: the fixture's response and one with an emoji, each as its whole message
 * text, its events (JSON Lines) and its server-sent events. */
function responses (dialect) {
  const whole = readFileSync(join(RESPONSES, `${dialect}.json`), 'utf8')
  const lines = readFileSync(join(RESPONSES, `${dialect}.jsonl`), 'utf8').split('\n').filter((l) => l.trim())
  const events = lines.map((line) => JSON.parse(line))
  const withEmoji = emojiEvents(dialect, events)
  const stored = dialect === 'bedrock' ? null : readFileSync(join(RESPONSES, `${dialect}.sse`), 'utf8')
  return [
    { name: 'fixture', whole, lines, sse: stored },
    { name: 'emoji', whole: JSON.stringify(emojiMessage(dialect, JSON.parse(whole))), lines: withEmoji.map((e) => JSON.stringify(e)), sse: sse(dialect, withEmoji) },
  ]
}

/** The UTF-16 offset of byte `at` of `text`. */
function unitsAt (text, at) {
  return Buffer.from(text).subarray(0, at).toString('utf8').length
}

/** `text` cut into chunks of `size` code points (never inside an emoji's surrogates). */
function chunks (text, size) {
  const points = Array.from(text)
  const out = []
  for (let at = 0; at < points.length; at += size) out.push(points.slice(at, at + size).join(''))
  return out
}

/** `text` cut into chunks of `size` UTF-16 code units, inside a surrogate pair too. */
function unitChunks (text, size) {
  const out = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

// What `assemble --dialect` prints for `entries`: for Mistral, the tool message's content, the
// entries keyed "0", "1", ... as its citations guide shows them.
function printed (dialect, entries) {
  return dialect === 'mistral' ? Object.fromEntries(entries.map((entry, i) => [String(i), entry])) : entries
}

for (const dialect of DIALECTS) {
  test(`${dialect}: the report and the entries are the command's, byte for byte`, () => {
    const assembler = new Assembler(600, { dialect })
    const json = assembler.assembleJson(load(PRICING))
    assert.equal(json + '\n', command(['assemble', '--json', '--budget', '600', '--dialect', dialect, PRICING]))
    const report = assembler.assemble(load(PRICING))
    assert.deepEqual(report, JSON.parse(json))
    assert.equal(report.dialect, dialect)
    const theirs = command(['assemble', '--budget', '600', '--dialect', dialect, PRICING])
    const entries = assembler.entries(report)
    assert.equal(JSON.stringify(printed(dialect, entries)) + '\n', theirs)
    assert.deepEqual(printed(dialect, entries), JSON.parse(theirs))
    // From the stored JSON text too.
    assert.deepEqual(assembler.entries(json), entries)
    const contents = assembler.contents(report)
    assert.equal(contents.length, report.citations.length)
    assert.ok(contents.every((content) => typeof content === 'string' && content.length > 0))
    if (dialect === 'cohere') assert.deepEqual(entries.map((e) => e.data.text), contents)
    if (dialect === 'anthropic-documents') assert.deepEqual(entries.map((e) => e.source.data), contents)
  })

  test(`${dialect}: responses resolve as the command's cite reads them, with offsets into the JavaScript string`, () => {
    const assembler = new Assembler(600, { dialect })
    const report = assembler.assemble(load(PRICING))
    const reportFile = tempFile('report.json', JSON.stringify(report))
    for (const response of responses(dialect)) {
      const label = `${dialect} ${response.name}`
      const theirs = JSON.parse(command(['cite', '--budget', '600', '--dialect', dialect, reportFile,
        tempFile('response.json', response.whole)]))
      const ours = assembler.resolveResponse(report, response.whole)
      const answer = ours.answer
      assert.equal(answer, theirs.answer, label)
      assert.deepEqual(ours.cited.map((c) => [c.citation.index, c.citation.inputIndex, c.newIndex, c.count, c.quotes ?? undefined]),
        theirs.cited.map((c) => [c.citation.index, c.citation.inputIndex, c.newIndex, c.count, c.quotes]), label)
      assert.equal(ours.cited.some((c) => c.quotes?.length), QUOTED(dialect), label)
      assert.equal(ours.unverified, theirs.unverified, label)
      assert.equal(ours.unverified, QUOTED(dialect) ? 1 : 0, label)
      let differ = false
      ours.cited.forEach((chip, n) => {
        assert.equal(chip.spans.length, theirs.cited[n].spans.length, label)
        chip.spans.forEach((span, k) => {
          const their = theirs.cited[n].spans[k]
          // The command's bytes, as UTF-16 units: what the JavaScript string indexes.
          assert.deepEqual(span, { start: their.startUtf16, end: their.endUtf16, startUtf16: their.startUtf16, endUtf16: their.endUtf16 }, label)
          assert.equal(answer.slice(span.start, span.end), Buffer.from(answer).subarray(their.start, their.end).toString('utf8'), label)
          const points = Array.from(answer.slice(0, span.start)).length
          if (their.start !== span.start && points !== span.start) differ = true
        })
      })
      assert.deepEqual(ours.unknown, theirs.unknown.map((u) => ({ marker: u.marker, at: unitsAt(answer, u.at) })), label)
      assert.ok(ours.unknown.length > 0, label)
      // Bytes, characters and UTF-16 units differ before some span of the emoji's response.
      if (response.name === 'emoji') assert.ok(differ, label)
    }
  })

  test(`${dialect}: a stream in any chunks gives the resolution of the whole response`, () => {
    const assembler = new Assembler(600, { dialect })
    const report = assembler.assemble(load(PRICING))
    for (const response of responses(dialect)) {
      const whole = assembler.resolveResponse(report, response.whole)
      const feeds = [
        ['pushEvent text', response.lines, (s, piece) => s.pushEvent(piece)],
        ['pushEvent objects', response.lines.map((l) => JSON.parse(l)), (s, piece) => s.pushEvent(piece)],
      ]
      if (response.sse !== null) {
        feeds.push(
          ...[1, 3, 7, 37].map((size) => [`pushSse by ${size}`, chunks(response.sse, size), (s, piece) => s.pushSse(piece)]),
          // By UTF-16 code units: the emoji's two halves come in separate chunks.
          ...[1, 5].map((size) => [`pushSse by ${size} units`, unitChunks(response.sse, size), (s, piece) => s.pushSse(piece)]),
        )
      }
      for (const [how, pieces, push] of feeds) {
        const label = `${dialect} ${response.name} ${how}`
        const stream = assembler.responseStream(report)
        assert.ok(stream instanceof ResponseStream)
        let shown = ''
        const events = []
        for (const piece of pieces) {
          const out = push(stream, piece)
          shown += out.text
          events.push(...out.events)
        }
        const end = stream.finish()
        events.push(...end.events)
        assert.equal(shown + end.text, whole.answer, label)
        assert.deepEqual(end.resolution, whole, label)
        // Each cited event is a span of the resolution; they number the markers.
        const cited = events.filter((e) => e.type === 'cited')
        assert.equal(cited.length, whole.cited.reduce((sum, c) => sum + c.count, 0), label)
        for (const event of cited) {
          const chip = whole.cited.find((c) => c.citation.index === event.index)
          assert.ok(chip.spans.some((span) => span.start === event.span.start && span.end === event.span.end), label)
        }
        assert.deepEqual(events.filter((e) => e.type === 'unknown').map((e) => ({ marker: e.marker, at: e.at })), whole.unknown, label)
        assert.equal(check(thrown(() => stream.finish()), 'STREAM_FINISHED'),
          'the stream is finished: make a new ResponseStream for another response')
      }
    }
  })
}

test('cacheControl marks the entries the command marks, in a follow-up turn too', () => {
  const turn1 = join(FIXTURES, 'conversation', 'turn-1.json')
  const turn2 = join(FIXTURES, 'conversation', 'turn-2.json')
  for (const dialect of DIALECTS) {
    const assembler = new Assembler(1200, { dialect, cacheControl: true })
    const first = assembler.assemble(load(turn1))
    const args = ['assemble', '--budget', '1200', '--dialect', dialect, '--cache-control']
    assert.equal(JSON.stringify(printed(dialect, assembler.entries(first))) + '\n', command([...args, turn1]), dialect)
    const next = assembler.assembleFollowUp(first, load(turn2))
    assert.ok(next.citations.length > first.citations.length, dialect)
    const previous = tempFile('previous.json', JSON.stringify(first))
    const theirs = command([...args, '--previous', previous, turn2])
    const entries = assembler.entries(next, { previous: first })
    assert.equal(JSON.stringify(printed(dialect, entries)) + '\n', theirs, dialect)
    assert.equal(JSON.stringify(printed(dialect, assembler.entries(next, { previous: JSON.stringify(first) }))) + '\n', theirs, dialect)
    const marked = entries.flatMap((e, n) => (e.cache_control ? [n] : []))
    const expected = dialect.startsWith('anthropic') ? [first.citations.length - 1, next.citations.length - 1] : []
    assert.deepEqual(marked, expected, dialect)
    // Without cacheControl, nothing is marked.
    assert.ok(!JSON.stringify(new Assembler(1200, { dialect }).entries(next)).includes('cache_control'), dialect)
  }
})

test('dialect errors carry the command\'s message and a code', () => {
  // A name the command's parser lists in the library's words.
  const bad = check(thrown(() => new Assembler(600, { dialect: 'openai' })), 'UNKNOWN_NAME')
  assert.equal(bad, 'dialect: unknown dialect `openai` (expected anthropic, anthropic-documents, bedrock, cohere or mistral)')
  assert.ok(cliError(['--budget', '600', '--dialect', 'openai']).includes(bad.replace(/^dialect: /, '')))
  const marks = check(thrown(() => new Assembler(600, { cacheControl: true })), 'INVALID_SETTING')
  assert.equal(marks, "cacheControl: marks a dialect's entries: give dialect anthropic or anthropic-documents")
  assert.equal(cliError(['--budget', '600', '--cache-control']),
    "--cache-control: marks a dialect's entries: give --dialect anthropic or anthropic-documents")
  assert.match(check(thrown(() => new Assembler(600, { dialect: 'cohere', format: 'xml' })), 'INVALID_SETTING'),
    /^dialect: cannot be used with format: both choose what is written; give one$/)
  assert.match(check(thrown(() => new Assembler(600, { dialect: 'cohere', cacheControl: 'yes' })), 'INVALID_SETTING'),
    /^cacheControl: expected true or false, got the string "yes"$/)

  // A stream cut off before its last event, and one cut in the middle of an event.
  const assembler = new Assembler(600, { dialect: 'anthropic' })
  const report = assembler.assemble(load(PRICING))
  const reportFile = tempFile('report.json', JSON.stringify(report))
  const lines = readFileSync(join(RESPONSES, 'anthropic.jsonl'), 'utf8').trim().split('\n')
  const cut = lines.slice(0, -1)
  const stream = assembler.responseStream(report)
  for (const line of cut) stream.pushEvent(line)
  const message = check(thrown(() => stream.finish()), 'INVALID_RESPONSE')
  const cutFile = tempFile('cut.jsonl', cut.join('\n') + '\n')
  assert.equal(failure(['cite', '--budget', '600', '--dialect', 'anthropic', reportFile, cutFile]), `${cutFile}: ${message}`)
  assert.match(message, /^the response cannot be read: the event stream is cut off after \d+ events, before message_stop$/)
  check(thrown(() => stream.pushEvent(lines[0])), 'STREAM_FINISHED')
  const sseText = readFileSync(join(RESPONSES, 'anthropic.sse'), 'utf8')
  const half = assembler.responseStream(report)
  half.pushSse(sseText.slice(0, sseText.length - 20))
  const halfMessage = check(thrown(() => half.finish()), 'INVALID_RESPONSE')
  const halfFile = tempFile('half.sse', sseText.slice(0, sseText.length - 20))
  assert.equal(failure(['cite', '--budget', '600', '--dialect', 'anthropic', reportFile, halfFile]), `${halfFile}: ${halfMessage}`)
  assert.match(halfMessage, /cut off in the middle of event/)

  // A response not of the dialect's shape, whole and as an event.
  const notMessage = '{"type": "message", "role": "assistant"}'
  const shapeMessage = check(thrown(() => assembler.resolveResponse(report, notMessage)), 'INVALID_RESPONSE')
  const shapeFile = tempFile('shape.json', notMessage)
  assert.equal(failure(['cite', '--budget', '600', '--dialect', 'anthropic', reportFile, shapeFile]), `${shapeFile}: ${shapeMessage}`)
  check(thrown(() => assembler.responseStream(report).pushEvent('{not json')), 'INVALID_RESPONSE')
  check(thrown(() => assembler.responseStream(report).pushEvent(42)), 'INVALID_ARGUMENT')
  check(thrown(() => assembler.responseStream(report).pushSse({})), 'INVALID_ARGUMENT')

  // A response naming a source the report does not have is no error: a citation of nothing,
  // as the command reads it.
  const invented = JSON.stringify({
    type: 'message',
    content: [{ type: 'text', text: 'Größe 😀 zählt', citations: [{ type: 'search_result_location', cited_text: 'x', search_result_index: 41, source: 'https://nowhere.example', title: 'Nothing', start_block_index: 0, end_block_index: 1 }] }],
  })
  const theirs = JSON.parse(command(['cite', '--budget', '600', '--dialect', 'anthropic', reportFile, tempFile('invented.json', invented)]))
  const ours = assembler.resolveResponse(report, invented)
  assert.deepEqual(ours.cited, [])
  assert.deepEqual(ours.unknown, theirs.unknown.map((u) => ({ marker: u.marker, at: unitsAt(ours.answer, u.at) })))
  assert.equal(ours.unknown.length, 1)

  // Reports of another dialect, or of text, are refused by name.
  const cohere = new Assembler(600, { dialect: 'cohere' })
  assert.equal(check(thrown(() => cohere.entries(report)), 'INVALID_REPORT'),
    "report: assembled for the anthropic dialect, not for dialect 'cohere'")
  const text = new Assembler(600)
  const textReport = text.assemble(load(PRICING))
  assert.equal(check(thrown(() => cohere.resolveResponse(textReport, notMessage)), 'INVALID_REPORT'),
    "report: assembled as text, not for dialect 'cohere'")
  assert.equal(check(thrown(() => text.responseStream(report)), 'INVALID_REPORT'),
    "report: assembled for the anthropic dialect: give the option dialect: 'anthropic'")
  assert.match(check(thrown(() => text.entries(textReport)), 'NO_DIALECT'),
    /^this assembler writes no dialect: build it with one/)
  assert.match(check(thrown(() => assembler.entries(report, { previous: 3 })), 'INVALID_REPORT'), /^previous: /)
  assert.match(check(thrown(() => assembler.entries(report, { prev: report })), 'INVALID_ARGUMENT'), /unknown option `prev`/)
  assert.deepEqual(text.contents(textReport).length, textReport.citations.length)
})

test('an SSE stream that ends inside a character is refused, not read with U+FFFD', () => {
  const assembler = new Assembler(600, { dialect: 'anthropic' })
  const report = assembler.assemble(load(PRICING))
  const stream = assembler.responseStream(report)
  stream.pushSse('event: ping\ndata: {"type": "ping"}\n\n' + '😀'.slice(0, 1))
  assert.match(check(thrown(() => stream.finish()), 'INVALID_RESPONSE'), /inside a character/)
})

test('a Mistral tool result keys the entries as its references name them', () => {
  const assembler = new Assembler(600, { dialect: 'mistral' })
  const report = assembler.assemble(load(PRICING))
  const entries = assembler.entries(report)
  const content = mistralToolContent(entries)
  assert.deepEqual(Object.keys(JSON.parse(content)), entries.map((_, i) => String(i)))
  const answer = JSON.stringify({
    choices: [{ index: 0, finish_reason: 'stop', message: { content: [
      { type: 'text', text: 'Größe 😀' }, { type: 'reference', reference_ids: [1] },
      { type: 'text', text: ' zählt' }, { type: 'reference', reference_ids: [entries.length] },
    ] } }],
  })
  const resolution = assembler.resolveResponse(report, answer)
  assert.deepEqual(resolution.cited.map((c) => c.citation.index), [2])
  const span = resolution.cited[0].spans[0]
  assert.equal(resolution.answer.slice(span.start, span.end), 'Größe 😀')
  assert.deepEqual(resolution.unknown, [{ marker: `reference id ${entries.length}`, at: 'Größe 😀 zählt'.length }])
})

test('a Bedrock stream cut off, or reporting an exception, throws INVALID_RESPONSE', () => {
  const assembler = new Assembler(600, { dialect: 'bedrock' })
  const report = assembler.assemble(load(PRICING))
  const events = readFileSync(join(RESPONSES, 'bedrock.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  const stream = assembler.responseStream(report)
  for (const event of events.slice(0, -2)) stream.pushEvent(event)
  assert.match(check(thrown(() => stream.finish()), 'INVALID_RESPONSE'), /before messageStop$/)
  const failing = assembler.responseStream(report)
  failing.pushEvent(events[0])
  assert.match(check(thrown(() => failing.pushEvent({ throttlingException: { message: 'slow down' } })), 'INVALID_RESPONSE'),
    /reports a throttlingException: "slow down"$/)
})
