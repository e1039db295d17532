// The event loop stays free: the work of assembleAsync and assembleManyAsync is done on
// libuv's thread pool, so a timer set before a large request fires before it completes.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Assembler } from '../index.js'
import { FIXTURES, load, tenMegabytes } from './helpers.mjs'

test('a timer set before a 10 MB assembleAsync fires before it completes', async () => {
  const request = tenMegabytes()
  assert.ok(JSON.stringify(request).length > 10e6)
  const assembler = new Assembler(100000)
  const happened = []
  setTimeout(() => happened.push('timer'), 1)
  // And the loop keeps turning while the pool works: work done on this thread would let an
  // interval tick once at most, after it. (Here it ticks 24 to 36 times.)
  let ticks = 0
  const interval = setInterval(() => ticks++, 1)
  const report = await assembler.assembleAsync(request).then((report) => {
    happened.push('report')
    return report
  })
  clearInterval(interval)
  assert.deepEqual(happened, ['timer', 'report'])
  assert.ok(ticks >= 3, `the interval ticked ${ticks} times`)
  assert.deepEqual(report, assembler.assemble(request))
  assert.ok(report.citations.length > 100)
})

test('assembleManyAsync: the same timer fires first, and the reports are assembleMany\'s', async () => {
  const requests = Array.from({ length: 40 }, () => load(`${FIXTURES}/bench-english.json`))
  const assembler = new Assembler(4000)
  const happened = []
  setTimeout(() => happened.push('timer'), 1)
  const reports = await assembler.assembleManyAsync(requests, { threads: 2 }).then((reports) => {
    happened.push('reports')
    return reports
  })
  assert.deepEqual(happened, ['timer', 'reports'])
  assert.deepEqual(reports, assembler.assembleMany(requests))
})

test('a refused request rejects the promise with the error assemble throws', async () => {
  const assembler = new Assembler(100)
  const bad = [{ content: 'a', score: 1 }, { score: 1 }]
  let thrown
  try {
    assembler.assemble(bad)
  } catch (err) {
    thrown = err
  }
  await assert.rejects(assembler.assembleAsync(bad), (err) => {
    assert.ok(err instanceof Error)
    assert.equal(err.code, thrown.code)
    assert.equal(err.message, thrown.message)
    return true
  })
  await assert.rejects(assembler.assembleManyAsync([[{ content: 'a', score: 1 }], bad]), {
    code: 'INVALID_RESULT',
    message: 'requests[1]: results[1]: missing field `content`',
  })
})
