// The cost of a Node `assemble` against its floor: the Rust call, plus V8's fastest way to
// build the same report, `JSON.parse` of its JSON text, timed in the same run (tinybench).
//
//   node node/benches/assemble.mjs [ROUNDS]     (after `npm run build` in node/)
//
// On the 50 x 2 KiB request (fixtures/bench-english.json) at budget 4,000. Each round times
// every task for a fraction of a second, in turn; a round's figure is the ratio of medians
// within it, so that the machine's load, which moves from minute to minute on a shared
// machine, meets both sides; the figure is the median of the rounds, with their range.
//
// tinybench times each task in a loop of its own, where the Rust call alone keeps the
// tokenizer's tables in the processor's caches; inside `assemble` the input read before it
// has moved some of them out. So the same four are also timed call by call in alternation,
// as python/benches/measure.py times the Python calls, and both figures are printed.
import { readFileSync } from 'node:fs'

import { Bench } from 'tinybench'

import { createRequire } from 'node:module'

import { Assembler } from '../index.js'

// The hooks of node/src/bench.rs, which the package does not export.
const native = createRequire(import.meta.url)('../mentor-context.node')

const rounds = Number(process.argv[2] ?? 11)
const fixture = process.argv[3] ?? new URL('../../fixtures/bench-english.json', import.meta.url)
const results = JSON.parse(readFileSync(fixture, 'utf8'))
const assembler = new Assembler(4000)
const json = assembler.assembleJson(results)
// The Rust call alone: the same request, read once, assembled with nothing crossing. And
// the report alone, built as assemble builds it, from a report read once.
assembler._benchRead(results)
native._benchKeep(json)

const tasks = {
  rust: () => assembler._benchAssemble(),
  'JSON.parse': () => JSON.parse(json),
  assemble: () => assembler.assemble(results),
  assembleJson: () => assembler.assembleJson(results),
  'building the report': () => native._benchBuild(),
}

const figures = {
  'assemble / (rust + JSON.parse)': [],
  'assembleJson / rust': [],
  'assemble / rust': [],
  'building the report / JSON.parse': [],
}
const medians = []
for (let round = 0; round < rounds; round++) {
  const bench = new Bench({ time: 300, warmupTime: 100 })
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn)
  bench.runSync()
  const p50 = Object.fromEntries(bench.tasks.map((task) => [task.name, task.result.latency.p50]))
  medians.push(p50)
  figures['assemble / (rust + JSON.parse)'].push(p50.assemble / (p50.rust + p50['JSON.parse']))
  figures['assembleJson / rust'].push(p50.assembleJson / p50.rust)
  figures['assemble / rust'].push(p50.assemble / p50.rust)
  figures['building the report / JSON.parse'].push(p50['building the report'] / p50['JSON.parse'])
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(`${rounds} rounds; ${results.length} results, a report of ${json.length} bytes`)
for (const [name, values] of Object.entries(figures)) {
  const sorted = values.slice().sort((a, b) => a - b)
  console.log(`${name.padEnd(32)} median ${median(values).toFixed(3)}, range ${sorted[0].toFixed(3)} to ${sorted.at(-1).toFixed(3)}`)
}
const us = (name) => `${(median(medians.map((m) => m[name])) * 1000).toFixed(1)} us`
console.log(`medians: rust ${us('rust')}, JSON.parse ${us('JSON.parse')}, assemble ${us('assemble')}, assembleJson ${us('assembleJson')}`)

const times = Object.fromEntries(Object.keys(tasks).map((name) => [name, []]))
for (let call = 0; call < 2500; call++) {
  for (const [name, fn] of Object.entries(tasks)) {
    const start = process.hrtime.bigint()
    fn()
    times[name].push(Number(process.hrtime.bigint() - start) / 1000)
  }
}
// The first 500 calls warm up.
const m = Object.fromEntries(Object.entries(times).map(([name, t]) => [name, median(t.slice(500))]))
console.log(`alternated, 2000 calls each: assemble / (rust + JSON.parse) ${(m.assemble / (m.rust + m['JSON.parse'])).toFixed(3)}, ` +
  `assembleJson / rust ${(m.assembleJson / m.rust).toFixed(3)}; rust ${m.rust.toFixed(1)} us, ` +
  `JSON.parse ${m['JSON.parse'].toFixed(1)} us, assemble ${m.assemble.toFixed(1)} us; ` +
  `building the report / JSON.parse ${(m['building the report'] / m['JSON.parse']).toFixed(3)}`)
