// One name per setting, in every front end: the library's settings, enumerated from its serde
// description, are accepted in camelCase here and as the command's flags under the same names
// (`maxBlocks`, `--max-blocks`); an unknown one is refused in the same words with the same code;
// the TypeScript `Settings` and its value unions are the library's; every error code is the
// library's.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'

import { Assembler, ErrorCode, PromptAssembler } from '../index.js'
import { FIXTURES, runCli, tempFile, thrown } from './helpers.mjs'

const native = createRequire(import.meta.url)('../mentor-context.node')
const DTS = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
const PRICING = join(FIXTURES, 'pricing.json')
const TEKKEN = join(FIXTURES, 'tokenizers', 'tekken-tiny.json')
const CONVERSATION = join(FIXTURES, 'prompt', 'conversation.json')
const CHATML = join(FIXTURES, 'prompt', 'chatml-tools')

/** The `Settings` interface of index.d.ts: each field and its type, in order. */
function declared () {
  const body = DTS.match(/export interface Settings \{([^}]*)\}/)
  assert.ok(body, 'no interface Settings')
  return body[1].split('\n').map((line) => line.trim()).filter((line) => /^\w+\?:/.test(line))
    .map((line) => [line.match(/^\w+/)[0], line.slice(line.indexOf(':') + 1).trim()])
}

/** Each setting: a value, the settings it needs beside it, and whether it is a whole
 * prompt's. A setting without a case fails the first test. */
function cases (keyFile) {
  const context = { budget: 400 }
  const prompt = { window: 8192, chatTemplate: 'harmony' }
  const chatml = { window: 8192, chatTemplate: join(CHATML, 'tokenizer_config.json'), tokenizerFile: join(CHATML, 'tokenizer.json') }
  return {
    budget: [300, {}, false],
    encoding: ['cl100k_base', context, false],
    model: ['gpt-4', context, false],
    reserveOutput: [1000, { model: 'gpt-4' }, false],
    promptTokens: [192, { model: 'gpt-4' }, false],
    engine: ['tiktoken', context, false],
    tokenizerFile: [TEKKEN, context, false],
    tokenizerKind: ['tekken', { ...context, tokenizerFile: TEKKEN }, false],
    format: ['xml', context, false],
    dialect: ['cohere', context, false],
    header: ['Cite as [n].', context, false],
    hideMetadataKeys: [['chunk_id'], context, false],
    maxHeadTokens: [60, context, false],
    overflow: ['skip', context, false],
    duplicates: ['keep', context, false],
    order: ['edges', context, false],
    minScore: [0.5, context, false],
    maxBlocks: [2, context, false],
    maxPerSource: [1, context, false],
    minTruncatedTokens: [10, context, false],
    cacheBytes: [1 << 20, context, false],
    sealKeyFile: [keyFile, context, false],
    cacheControl: [true, { ...context, dialect: 'anthropic' }, false],
    strict: [true, context, false],
    window: [8192, { chatTemplate: 'harmony' }, true],
    reserve: [512, prompt, true],
    chatTemplate: ['harmony', { window: 8192 }, true],
    date: ['2026-12-04', prompt, true],
    contextIn: ['system', prompt, true],
    historyMaxTokens: [900, prompt, true],
    trimStep: [0.5, prompt, true],
    allowSpecialTokensInMessages: [true, prompt, true],
    tools: [JSON.parse(readFileSync(join(CHATML, 'tools.json'), 'utf8')), chatml, true],
    templateOptions: [{ enable_thinking: false }, chatml, true],
  }
}

/** `settings` as the command's flags; a JSON file for those whose flag reads one. */
function flags (settings) {
  return Object.entries(settings).flatMap(([name, value]) => {
    const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    if (name === 'tools' || name === 'templateOptions') return [flag, tempFile(`${name}.json`, JSON.stringify(value))]
    if (value === true) return [flag]
    if (Array.isArray(value)) return value.flatMap((item) => [flag, String(item)])
    return [flag, String(value)]
  })
}

test('every setting is an option and a flag under its one name', () => {
  const table = cases(tempFile('key', 'a key of thirty-two bytes, test!'))
  const names = native._settingsNames()
  assert.deepEqual(Object.keys(table), names, 'a case per setting, in the library\'s order')
  assert.deepEqual(declared().map(([name]) => name), [...names, 'sealKey'], 'Settings types every setting')
  for (const [name, [value, beside, wholePrompt]] of Object.entries(table)) {
    const settings = { ...beside, [name]: value }
    const done = wholePrompt
      ? runCli(['prompt', ...flags(settings), '--conversation', CONVERSATION, PRICING])
      : runCli(['assemble', ...flags(settings), PRICING])
    assert.equal(done.status, 0, `${name}: ${done.stderr}`)
    if (wholePrompt) new PromptAssembler(settings)
    else new Assembler(null, settings)
  }
})

test('an unknown setting is refused in the same words and code everywhere', () => {
  const err = thrown(() => new Assembler(100, { maxBlock: 3 }))
  assert.equal(err.code, 'UNKNOWN_SETTING')
  assert.equal(err.message, 'unknown setting `maxBlock` (did you mean `maxBlocks`?)')
  const done = runCli(['assemble', '--budget', '100', '--max-block', '3', PRICING])
  assert.equal(done.stderr, 'mentor-context: error[UNKNOWN_SETTING]: unknown setting `--max-block` (did you mean `--max-blocks`?)\n')
  // Another front end's spelling is not read, and the right one is named.
  assert.equal(thrown(() => new Assembler(100, { max_blocks: 3 })).message,
    'unknown setting `max_blocks` (did you mean `maxBlocks`?)')
})

test('the typed values are the library\'s names', () => {
  const types = Object.fromEntries(declared())
  for (const [name, ...choices] of native._settingsChoices()) {
    assert.equal(types[name], choices.map((choice) => `'${choice}'`).join(' | '), name)
    const err = thrown(() => new Assembler(100, { [name]: 'no-such-name' }))
    assert.ok(['UNKNOWN_NAME', 'UNKNOWN_ENCODING'].includes(err.code), `${name}: ${err.code}`)
    assert.ok(err.message.startsWith(`${name}: `), err.message)
  }
})

test('every error code is the library\'s', () => {
  assert.deepEqual(Object.values(ErrorCode), [...native._errorCodes(), 'LIBRARY_ERROR'])
  const sealed = new Assembler(500, { sealKey: 'a key of thirty-two bytes, test!' })
  const report = sealed.assemble([{ content: 'Plan B costs 12 EUR.', score: 0.9 }])
  const edited = { ...report, citations: report.citations.map((c) => ({ ...c, score: 0.1 })) }
  const err = thrown(() => sealed.assembleFollowUp(edited, []))
  assert.deepEqual([err.code, err.reason], ['PREVIOUS_TURN_MISMATCH', 'SEAL_MISMATCH'])
  const plain = new Assembler(500)
  const first = plain.assemble([{ content: 'Plan B costs 12 EUR.', score: 0.9 }])
  const changed = { ...first, context: first.context.replace('12', '13') }
  const block = thrown(() => plain.assembleFollowUp(changed, []))
  assert.deepEqual([block.code, block.reason, block.block], ['PREVIOUS_TURN_MISMATCH', 'EDITED_BLOCK', 1])
})
