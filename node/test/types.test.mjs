// The TypeScript types are generated from the Rust side (index.d.ts, by `napi build`); these
// check them against what crosses, so that they cannot drift from `assemble --json`.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test } from 'node:test'

import * as mentor from '../index.js'
import { FIXTURES, interfaceFields, load, matches } from './helpers.mjs'

const DTS = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')

test('reports, chips, omissions and windows have the keys the types declare', () => {
  const key = 'a key of thirty-two bytes, test!'
  const assembler = new mentor.Assembler(null, { model: 'gpt-4o', reserveOutput: 127000, promptTokens: 200, sealKey: key })
  const report = assembler.assemble(load(`${FIXTURES}/pricing.json`))
  assert.ok(report.window && report.headroom >= 0 && report.seal && report.omitted.length)
  matches('Report', report)
  matches('ModelWindow', report.window)
  for (const chip of report.citations) matches('Citation', chip)
  for (const omission of report.omitted) matches('Omission', omission)
  matches('Layout', report.layout)
  assert.deepEqual(interfaceFields('Report').filter(([, optional]) => optional).map(([k]) => k), ['window', 'headroom', 'seal', 'dialect', 'layout'])
})

test('dialects\' reports, entries and resolutions have the keys the types declare', () => {
  const results = load(`${FIXTURES}/pricing.json`)
  const names = { anthropic: 'AnthropicSearchResult', 'anthropic-documents': 'AnthropicDocument', bedrock: 'BedrockDocument', cohere: 'CohereDocument', mistral: 'MistralReference' }
  for (const [dialect, name] of Object.entries(names)) {
    const assembler = new mentor.Assembler(600, { dialect, cacheControl: true })
    const report = assembler.assemble(results)
    matches('Report', report)
    const entries = assembler.entries(report)
    for (const entry of entries) matches(name, entry)
    if (dialect === 'bedrock') {
      for (const { document } of entries) {
        matches('BedrockDocumentBlock', document)
        matches('BedrockTextSource', document.source)
        matches('CitationsConfig', document.citations)
      }
    }
    if (!dialect.startsWith('anthropic')) continue
    const last = entries[entries.length - 1]
    matches('CacheControl', last.cache_control)
    matches('CitationsConfig', last.citations)
    if (dialect === 'anthropic') matches('TextBlock', last.content[0])
    else matches('PlainTextSource', last.source)
  }
  const assembler = new mentor.Assembler(600, { dialect: 'cohere' })
  const report = assembler.assemble(results)
  const response = readFileSync(`${FIXTURES}/responses/cohere.json`, 'utf8')
  const resolution = assembler.resolveResponse(report, response)
  matches('Resolution', resolution)
  matches('Cited', resolution.cited[0])
  matches('Quote', resolution.cited[0].quotes[0])
  const stream = assembler.responseStream(report)
  const outs = readFileSync(`${FIXTURES}/responses/cohere.jsonl`, 'utf8').trim().split('\n').map((line) => stream.pushEvent(line))
  for (const out of outs) matches('StreamOutput', out)
  matches('CitedEvent', outs.flatMap((out) => out.events).find((e) => e.type === 'cited'))
  matches('StreamEnd', stream.finish())
})

test('resolutions and stream outputs have the keys the types declare', () => {
  const report = new mentor.Assembler(600).assemble(load(`${FIXTURES}/support.json`))
  const resolution = mentor.resolveCitations(report, 'See [1] and [9].', { renumber: true })
  matches('Resolution', resolution)
  matches('Cited', resolution.cited[0])
  matches('MarkerSpan', resolution.cited[0].spans[0])
  matches('UnknownMarker', resolution.unknown[0])
  const stream = new mentor.CitationStream(report)
  const out = stream.push('See [1] and [9] ')
  matches('StreamOutput', out)
  matches('CitedEvent', out.events.find((e) => e.type === 'cited'))
  matches('UnknownEvent', out.events.find((e) => e.type === 'unknown'))
  matches('StreamEnd', stream.finish())
})

test('the package exports what the addon does, and the error codes at run time', () => {
  const native = createRequire(import.meta.url)('../mentor-context.node')
  // What starts with `_` is the benchmark's (node/src/bench.rs), not the package's.
  const api = Object.keys(native).filter((name) => !name.startsWith('_'))
  assert.deepEqual(Object.keys(mentor).filter((k) => k !== 'default').sort(), api.sort())
  for (const name of api) assert.match(DTS, new RegExp(`export declare (class|function|enum) ${name}\\b`))
  assert.ok(!/_bench/.test(DTS))
  // Each enum's values at run time are the ones its declaration lists.
  const declared = (name) => {
    const body = DTS.match(new RegExp(`export declare enum ${name} \\{([\\s\\S]*?)\\n\\}`))[1]
    return [...body.matchAll(/^\s+\w+ = '([A-Z_]+)',$/gm)].map((m) => m[1])
  }
  for (const name of ['ErrorCode', 'TemplateErrorKind']) {
    assert.deepEqual(Object.values(mentor[name]).sort(), declared(name).sort(), name)
  }
  assert.equal(declared('TemplateErrorKind').length, 9)
})
