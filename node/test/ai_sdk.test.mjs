// A streamed answer through the Vercel AI SDK: `streamText` with the test model the
// installed `ai` ships (MockLanguageModelV3, and simulateReadableStream), its `textStream`
// piped through CitationStream. Nothing leaves the process.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { simulateReadableStream, streamText } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'

import { Assembler, CitationStream } from '../index.js'
import { FIXTURES, load } from './helpers.mjs'

/** A model that streams `deltas` as its answer, and remembers what it was asked. */
function model (deltas) {
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'text-start', id: 'answer' },
          ...deltas.map((delta) => ({ type: 'text-delta', id: 'answer', delta })),
          { type: 'text-end', id: 'answer' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 20, text: 20, reasoning: 0 },
            },
          },
        ],
      }),
    }),
  })
}

test('a streamed answer shows whole markers, renumbered, and the chips it cites', async () => {
  const report = new Assembler(1500).assemble(load(`${FIXTURES}/pricing.json`))
  assert.ok(report.citations.length >= 3)
  // `[3` ends one chunk and `]` starts the next: no half marker may be shown.
  const deltas = ['The Team plan costs 15 EUR a seat [3', '] (before: 12 EUR [2', ']); see also [3', '][99].']
  const llm = model(deltas)
  const result = streamText({
    model: llm,
    system: `Answer from these sources, citing them as [n].\n\n${report.context}`,
    prompt: 'What does the Team plan cost?',
  })
  const stream = new CitationStream(report, { renumber: true })
  const shown = []
  const chips = []
  const unknown = []
  const take = ({ text, events }) => {
    if (text) shown.push(text)
    for (const event of events) {
      if (event.type === 'cited' && event.first) chips.push([event.newIndex, report.citations[event.index - 1].title])
      if (event.type === 'unknown') unknown.push(event.marker)
    }
  }
  for await (const chunk of result.textStream) take(stream.push(chunk))
  const end = stream.finish()
  take(end)
  // The model was asked with the context in its prompt.
  assert.ok(JSON.stringify(llm.doStreamCalls[0].prompt).includes(JSON.stringify(report.context).slice(1, 60)))
  // Each piece shown is text the reader can see: never an opening bracket left open.
  for (const piece of shown) assert.ok(!/\[[0-9, ]*$/.test(piece), piece)
  assert.equal(shown.join(''), 'The Team plan costs 15 EUR a seat [1] (before: 12 EUR [2]); see also [1][99].')
  assert.equal(shown.join(''), end.resolution.answer)
  assert.deepEqual(chips, [[1, report.citations[2].title], [2, report.citations[1].title]])
  assert.deepEqual(unknown, ['[99]'])
  assert.deepEqual(end.resolution.cited.map((c) => [c.citation.index, c.count]), [[3, 2], [2, 1]])
  assert.equal(await result.text, deltas.join(''))
})
