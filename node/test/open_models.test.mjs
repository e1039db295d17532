// PromptAssembler on the open models' own files: the same JSON as `mentor-context prompt
// --json`, byte for byte, for Llama 3, Llama 3.1, Qwen 3, DeepSeek V3, Gemma 3 and Mistral's
// Tekken. The files are what `.ci/tokenizer-data` fetches into the folder MENTOR_TOKENIZER_DATA
// names (`.ci/run` sets it); without it these tests are skipped, with it a missing file fails.
// The library itself is checked against transformers and mistral-common in
// tests/library/whole_prompt/reference.rs; here the binding is held to the command.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { PromptAssembler } from '../index.js'
import { FIXTURES, load, runCli, tempFile } from './helpers.mjs'

const DATA = process.env.MENTOR_TOKENIZER_DATA
const MODELS = ['llama3', 'llama3_1', 'qwen3', 'deepseek_v3', 'gemma3', 'tekken_240911']
const DATE = '2026-12-03'
const RESULTS = join(FIXTURES, 'bench-english.json')

/** The options and the command's flags for `model`'s files. */
function template (model) {
  if (model.startsWith('tekken')) {
    const tekken = join(DATA, `${model}.json`)
    assert.ok(existsSync(tekken), tekken)
    return [{ chatTemplate: 'mistral', tokenizerFile: tekken }, ['--chat-template', 'mistral', '--tokenizer-file', tekken]]
  }
  const config = join(DATA, model, 'tokenizer_config.json')
  const tokenizer = join(DATA, model, 'tokenizer.json')
  assert.ok(existsSync(config) && existsSync(tokenizer), join(DATA, model))
  return [{ chatTemplate: config, tokenizerFile: tokenizer }, ['--chat-template', config, '--tokenizer-file', tokenizer]]
}

/** A system message, `turns` turns in three languages, then the question. */
function conversation (turns) {
  const asked = ['How does sync work offline?', 'Wie funktioniert die Synchronisierung?', '同步如何离线工作？']
  const chat = [{ role: 'system', content: 'Answer from the documents; cite them as [n].' }]
  for (let turn = 0; turn < turns; turn++) {
    chat.push({ role: 'user', content: `${turn}: ${asked[turn % 3]}` })
    chat.push({ role: 'assistant', content: `Turn ${turn}: it syncs later [1]. `.repeat(8) })
  }
  chat.push({ role: 'user', content: 'And what does it cost?' })
  return chat
}

for (const model of MODELS) {
  test(`${model}: assembleJson is \`prompt --json\` byte for byte`, { skip: !DATA && 'MENTOR_TOKENIZER_DATA is not set' }, () => {
    const [options, flags] = template(model)
    const results = load(RESULTS)
    let dropped = 0
    for (const [window, turns] of [[8192, 20], [2048, 20], [1024, 0]]) {
      const chat = conversation(turns)
      const path = tempFile('conversation.json', JSON.stringify(chat))
      const done = runCli(['prompt', RESULTS, '--conversation', path, '--window', String(window),
        '--reserve', '512', '--date', DATE, '--json', ...flags])
      assert.equal(done.status, 0, done.stderr)
      const prompts = new PromptAssembler({ ...options, window, reserve: 512, date: DATE })
      const json = prompts.assembleJson(chat, results)
      assert.equal(json + '\n', done.stdout, `${model} at ${window}`)
      const prompt = JSON.parse(json)
      assert.ok(prompt.tokenCount + 512 <= window)
      assert.equal(Object.values(prompt.parts).reduce((a, b) => a + b, 0), prompt.tokenCount)
      assert.match(prompt.messages.at(-1).content, /And what does it cost\?$/)
      dropped += prompt.dropped.length
    }
    assert.ok(dropped > 0, 'the 2,048-token window drops turns')
  })
}
