// assembleMany: in parallel, in order, each report what assemble gives for its request.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Assembler } from '../index.js'
import { RESULT_FIXTURES, load } from './helpers.mjs'

process.on('warning', () => {})

test('every report is assemble\'s for its request, in order, whatever the threads', () => {
  const assembler = new Assembler(600, { format: 'xml' })
  // Requests of every size, so that they finish out of order.
  const requests = [...RESULT_FIXTURES, ...RESULT_FIXTURES.slice().reverse()].map(load)
  const expected = requests.map((request) => assembler.assemble(request))
  for (const threads of [1, 2, 3, 8, undefined]) {
    assert.deepEqual(assembler.assembleMany(requests, { threads }), expected, `threads ${threads}`)
  }
  assert.deepEqual(assembler.assembleMany([]), [])
})

test('a bad request is named, and so is a bad threads option', () => {
  const assembler = new Assembler(100)
  assert.throws(() => assembler.assembleMany([[{ content: 'a', score: 1 }], [{ content: 'b' }]]), {
    code: 'INVALID_RESULT',
    message: 'requests[1]: results[0]: missing field `score`',
  })
  assert.throws(() => assembler.assembleMany([[], { content: 'b', score: 1 }]), {
    code: 'INVALID_RESULT',
    message: 'requests[1]: results: expected an array of results, got an object, a single result: wrap it in [ ]',
  })
  assert.throws(() => assembler.assembleMany({ requests: [] }), { code: 'INVALID_ARGUMENT' })
  for (const [threads, message] of [
    [0, /^threads: 0; expected at least 1 and at most \d+ here \(8 per core\)$/],
    [100000, /^threads: 100000; expected at least 1 and at most \d+ here \(8 per core\)$/],
    [-1, 'threads: negative; expected a whole number, 0 or more'],
    ['2', 'threads: expected a whole number, 0 or more, got a string'],
  ]) {
    assert.throws(() => assembler.assembleMany([[]], { threads }), { code: 'INVALID_ARGUMENT', message })
  }
  assert.throws(() => assembler.assembleMany([[]], { thread: 2 }), { code: 'INVALID_ARGUMENT', message: /unknown option `thread`/ })
})
