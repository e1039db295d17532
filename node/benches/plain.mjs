// The packed codec against the plain way across (issue 34): JavaScript values as JSON text,
// `JSON.stringify` on the way in, the library's serde_json readers, `serde_json` out and
// `JSON.parse` on the way back. Both in the same run, on the same assembler.
//
//   node node/benches/plain.mjs [ROUNDS]     (after `npm run build` in node/)
//
// Cases: the 50 x 2 KiB request (fixtures/bench-english.json) at budget 4,000; a request of
// about 10 MB (5,000 results of 2 KB, the event-loop test's, from test/helpers.mjs) at
// budgets 4,000 and 100,000; a follow-up turn; resolveCitations of an answer against a whole
// report.
//
// As assemble.mjs: each round times every task of a case with tinybench, in turn, and a
// round's figure is the ratio of medians within it, so the load of a shared machine meets
// both sides; the figure is the median of the rounds, with their range. Then the same calls
// one after another in alternation, call by call, where no task keeps the caches to itself.
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { createRequire } from 'node:module'

import { Bench } from 'tinybench'

import { Assembler, resolveCitations } from '../index.js'
import { tenMegabytes } from '../test/helpers.mjs'

// The hooks of node/src/bench.rs, which the package does not export.
const native = createRequire(import.meta.url)('../mentor-context.node')

const rounds = Number(process.argv[2] ?? 11)
const english = JSON.parse(readFileSync(new URL('../../fixtures/bench-english.json', import.meta.url), 'utf8'))

/** The tasks of assembling `results`: packed, plain end to end, and for reference the Rust
 * call alone (results read once) and the three parts of the plain way. */
function assembleCase (name, budget, results, { time, calls }) {
  const assembler = new Assembler(budget)
  assembler._benchRead(results)
  const text = JSON.stringify(results)
  const report = assembler._plainAssemble(text)
  check(assembler.assemble(results), JSON.parse(report))
  return {
    name,
    time,
    calls,
    tasks: {
      packed: () => assembler.assemble(results),
      plain: () => JSON.parse(assembler._plainAssemble(JSON.stringify(results))),
      rust: () => assembler._benchAssemble(),
      'JSON.stringify': () => JSON.stringify(results),
      'plain Rust call': () => assembler._plainAssemble(text),
      'JSON.parse': () => JSON.parse(report),
    },
  }
}

function followUpCase () {
  const assembler = new Assembler(4000)
  const previous = JSON.parse(JSON.stringify(assembler.assemble(english.slice(0, 4))))
  const results = english.slice(4)
  check(assembler.assembleFollowUp(previous, results),
    JSON.parse(assembler._plainFollowUp(JSON.stringify(previous), JSON.stringify(results))))
  return {
    name: 'assembleFollowUp, 4 + 46 results',
    time: 300,
    calls: 2000,
    tasks: {
      packed: () => assembler.assembleFollowUp(previous, results),
      plain: () => JSON.parse(assembler._plainFollowUp(JSON.stringify(previous), JSON.stringify(results))),
    },
  }
}

function resolveCase () {
  const report = new Assembler(4000).assemble(english)
  // Each chip cited twice, once after a quote of its block's first words.
  const answer = report.citations.map((chip) => {
    const block = report.context.slice(report.context.indexOf(`[${chip.index}]`))
    const quote = block.split('\n')[1]?.split(' ').slice(0, 6).join(' ') ?? ''
    return `As the page says, "${quote}" [${chip.index}]. That holds here too [${chip.index}].`
  }).join(' ')
  check(resolveCitations(report, answer), JSON.parse(native._plainResolve(JSON.stringify(report), answer)))
  return {
    name: `resolveCitations, ${report.citations.length} chips`,
    time: 300,
    calls: 2000,
    tasks: {
      packed: () => resolveCitations(report, answer),
      plain: () => JSON.parse(native._plainResolve(JSON.stringify(report), answer)),
    },
  }
}

/** Both ways must give the same value, or the comparison means nothing. */
function check (packed, plain) {
  if (JSON.stringify(packed) !== JSON.stringify(plain)) throw new Error('the two ways differ')
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]
const fixed = (x) => x.toFixed(3)

function run ({ name, time, calls, tasks }) {
  const ratios = []
  const p50s = []
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time, warmupTime: time / 3 })
    for (const [task, fn] of Object.entries(tasks)) bench.add(task, fn)
    bench.runSync()
    const p50 = Object.fromEntries(bench.tasks.map((task) => [task.name, task.result.latency.p50]))
    p50s.push(p50)
    ratios.push(p50.plain / p50.packed)
  }
  const sorted = ratios.slice().sort((a, b) => a - b)
  const ms = (task) => `${task} ${median(p50s.map((m) => m[task])).toFixed(3)} ms`
  console.log(`${name}`)
  console.log(`  tinybench, ${rounds} rounds: plain / packed median ${fixed(median(ratios))}, ` +
    `range ${fixed(sorted[0])} to ${fixed(sorted.at(-1))}; ${Object.keys(tasks).map(ms).join(', ')}`)

  // Call by call in alternation; the first fifth warms up.
  const times = Object.fromEntries(Object.keys(tasks).map((task) => [task, []]))
  const total = Math.ceil(calls * 1.25)
  for (let call = 0; call < total; call++) {
    for (const [task, fn] of Object.entries(tasks)) {
      const start = process.hrtime.bigint()
      fn()
      times[task].push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  const m = Object.fromEntries(Object.entries(times).map(([task, t]) => [task, median(t.slice(total - calls))]))
  console.log(`  alternated, ${calls} calls each: plain / packed ${fixed(m.plain / m.packed)}; ` +
    Object.entries(m).map(([task, t]) => `${task} ${t.toFixed(3)} ms`).join(', '))
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ')
console.log(`load average before: ${load()}`)
const big = tenMegabytes()
const cases = [
  assembleCase('assemble, 50 x 2 KiB, budget 4,000', 4000, english, { time: 300, calls: 2000 }),
  assembleCase('assemble, 10 MB, budget 4,000', 4000, big, { time: 2000, calls: 40 }),
  assembleCase('assemble, 10 MB, budget 100,000', 100000, big, { time: 2000, calls: 40 }),
  followUpCase(),
  resolveCase(),
]
for (const which of cases) run(which)
console.log(`load average after: ${load()}`)
