// Bad configuration and bad input throw an Error with the library's one-line message and
// a code naming the kind; the command says the same.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Assembler } from '../index.js'
import { FIXTURES, checkError, cliError, cliFailure, load, runCli, tempFile, thrown } from './helpers.mjs'

// Each: the command's options, the same configuration, and the code of the kind.
const BAD_CONFIGURATIONS = [
  [['--budget', '3', '--header', 'A header of many words'], [3, { header: 'A header of many words' }], 'HEADER_OVER_BUDGET'],
  [['--budget', '10', '--min-truncated-tokens', '11'], [10, { minTruncatedTokens: 11 }], 'MIN_TRUNCATED_OVER_BUDGET'],
  [['--min-score', 'NaN'], [100, { minScore: NaN }], 'NAN_MIN_SCORE'],
  [['--encoding', 'o300k_base'], [100, { encoding: 'o300k_base' }], 'UNKNOWN_ENCODING'],
  [['--format', 'yaml'], [100, { format: 'yaml' }], 'UNKNOWN_NAME'],
  [['--model', 'gpt-0'], [100, { model: 'gpt-0' }], 'UNKNOWN_MODEL'],
  [['--model', 'gpt-4', '--reserve-output', '8000', '--prompt-tokens', '192'],
    [null, { model: 'gpt-4', reserveOutput: 8000, promptTokens: 192 }], 'WINDOW_TOO_SMALL'],
  [['--encoding', 'p50k_base', '--engine', 'bpe-openai'], [100, { encoding: 'p50k_base', engine: 'bpe-openai' }], 'ENGINE_LACKS_ENCODING'],
]

test('configuration errors carry the library\'s message, which the command prints', () => {
  for (const [args, [budget, options], code] of BAD_CONFIGURATIONS) {
    // Both name the setting as their caller spells it; the problem after it is the same, and
    // so is the code (where the command's parser, not the library, refused the flag, it
    // wraps the library's words in clap's).
    const message = checkError(thrown(() => new Assembler(budget, options)), code)
    const [setting, problem] = [message.slice(0, message.indexOf(': ')), message.slice(message.indexOf(': ') + 2)]
    const command = cliFailure(args)
    assert.ok(command.message.endsWith(problem), `${command.message}\n${message}`)
    if (command.message.startsWith('--')) {
      assert.equal(command.message, `--${setting.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${problem}`)
      assert.equal(command.code, code)
    }
  }
  // Names the command's parser lists for itself (its message is clap's), in the library's
  // own words here.
  assert.equal(checkError(thrown(() => new Assembler(100, { overflow: 'spill' })), 'UNKNOWN_NAME'),
    'overflow: unknown overflow policy `spill` (expected truncate, stop or skip)')
  assert.match(checkError(thrown(() => new Assembler(100, { order: 'random' })), 'UNKNOWN_NAME'), /^order: unknown order `random`/)
  const key = tempFile('short', 'short')
  const message = checkError(thrown(() => new Assembler(100, { sealKey: 'short' })), 'SEAL_KEY_TOO_SHORT')
  assert.equal(cliError(['--seal-key-file', key]), message.replace(/^sealKey: /, '--seal-key-file: '))
})

test('options the command refuses through its parser are refused in words', () => {
  for (const [options, message] of [
    [[-5, {}], /^budget: negative; expected a whole number, 0 or more$/],
    [[1.5, {}], /^budget: expected a whole number, 0 or more, got 1\.5$/],
    [['400', {}], /^budget: expected a whole number, 0 or more, got a string$/],
    [[10, { maxBlocks: -1 }], /^maxBlocks: negative/],
    [[undefined, {}], /^budget: missing/],
    [[10, { model: 'gpt-4o', reserveOutput: 10 }], /^budget: cannot be used with reserveOutput: the model's window sets the budget/],
    [[10, { model: 'gpt-4o', encoding: 'cl100k_base' }], /^model: cannot be used with encoding: both choose the encoding/],
    [[10, { reserveOutput: 10 }], /^reserveOutput: needs model/],
    [[10, { format: 3 }], /^format: invalid type: .*3.*, expected a format: plain or xml$/],
    [[10, { strict: 'yes' }], /^strict: expected true or false, got the string "yes"$/],
    [[10, { hideMetadataKeys: 'page' }], /^hideMetadataKeys: expected a list of strings/],
    [[10, { sealKey: 12345678901234567 }], /^sealKey: expected a string or a Uint8Array/],
    [[10, { budget: 20 }], /^budget: given twice/],
  ]) {
    const err = thrown(() => new Assembler(...options))
    assert.match(checkError(err, err.code), message)
    assert.ok(['INVALID_SETTING', 'INVALID_ARGUMENT'].includes(err.code), err.code)
  }
  assert.equal(checkError(thrown(() => new Assembler(10, { maxblocks: 3 })), 'UNKNOWN_SETTING'),
    'unknown setting `maxblocks` (did you mean `maxBlocks`?)')
  assert.match(checkError(thrown(() => new Assembler(10, 'xml')), 'INVALID_ARGUMENT'), /^options: expected an object, got a string$/)
  assert.throws(() => new Assembler(100).withBudget(-1), { code: 'INVALID_ARGUMENT', message: /^budget: negative/ })
})

// Each: a request, the problem the library names (the command names it at its line and
// column), and where the error says it is.
const BAD_REQUESTS = [
  [[{ content: 'a', score: 1 }, { score: 1 }], 'missing field `content`', 'results[1]'],
  [[{ content: 'a' }], 'missing field `score`', 'results[0]'],
  [[{ content: 'a', score: 'high' }], 'invalid value: string "high"', 'results[0]'],
  [[{ content: 'a', score: 1, Content: 'b' }], '`content` is given twice', 'results[0]'],
  [[{ content: 'a', score: 1, title: 5 }], 'invalid type: integer `5`, expected a string', 'results[0]'],
  [[{ content: 'a', score: 1, metadata: { page: 3 } }], 'invalid type: integer `3`', 'results[0]'],
  [[{ content: 'a', score: 1.5e300 }], 'not a finite 32-bit number', 'results[0]'],
  [[{ content: 'a', score: 1 }, 7], 'expected a result object', 'results[1]'],
]

test('a bad result is named by its index, with the problem the command names', () => {
  for (const [request, problem, where] of BAD_REQUESTS) {
    const path = tempFile('request.json', JSON.stringify(request))
    assert.ok(cliError(['--json'], path).includes(problem), problem)
    const message = checkError(thrown(() => new Assembler(100).assemble(request)), 'INVALID_RESULT')
    assert.ok(message.startsWith(`${where}: `), message)
    assert.ok(message.includes(problem), message)
  }
})

test('values JSON cannot carry are refused by name too, never a crash', () => {
  for (const [result, problem] of [
    [{ content: 'a', score: NaN }, 'score NaN is not a finite 32-bit number'],
    [{ content: 'a', score: Infinity }, 'score inf is not a finite 32-bit number'],
    [{ content: 'a\ud800', score: 1 }, 'a lone surrogate'],
    [{ content: 'a', score: 1, ['\udc00']: 'x' }, 'a lone surrogate'],
    [{ content: 'a', score: 10n }, 'invalid type: bigint'],
    [{ content: 'a', score: 1, metadata: { k: { deeper: 'x' } } }, 'invalid type: map, expected a string'],
  ]) {
    const message = checkError(thrown(() => new Assembler(100).assemble([{ content: 'ok', score: 1 }, result])), 'INVALID_RESULT')
    assert.ok(message.startsWith('results[1]: '), message)
    assert.ok(message.includes(problem), message)
  }
})

test('an unknown property nested beyond any depth, or in a cycle, is passed over', async () => {
  const deep = {}
  let nested = deep
  for (let n = 0; n < 100000; n++) nested = nested.k = {}
  const cycle = { name: 'loop' }
  cycle.self = cycle
  process.on('warning', ignore)
  const report = new Assembler(100).assemble([{ content: 'a', score: 1, deep, cycle }])
  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve))
  process.off('warning', ignore)
  assert.equal(report.citations.length, 1)
})

function ignore () {}

test('what is not an array of results says what it is', () => {
  for (const [value, found] of [
    ['[]', 'a string'], [5, '5'], [undefined, 'undefined'], [null, 'null'], [() => 1, 'a function'], [{ content: 'a', score: 1 }, 'an object, a single result: wrap it in [ ]'], [{ text: 'a' }, 'an object'],
    [{ results: [{ content: 'a', score: 1 }] }, 'an object holding an array in `results`; pass the array itself'],
  ]) {
    const message = checkError(thrown(() => new Assembler(100).assemble(value)), 'INVALID_RESULT')
    assert.equal(message, `results: expected an array of results, got ${found}`)
  }
})

test('strict refuses an unknown property as the command\'s --strict does', () => {
  const fixture = `${FIXTURES}/dotnet/unknown-properties.json`
  const command = cliError(['--strict'], fixture)
  const message = checkError(thrown(() => new Assembler(400, { strict: true }).assemble(load(fixture))), 'INVALID_RESULT')
  const problem = message.split(': ').slice(1).join(': ')
  assert.ok(problem.startsWith('unknown property'), problem)
  assert.ok(command.endsWith(problem), `${command}\n${problem}`)
})

test('an unknown property warns as the command warns, once per name', async () => {
  const fixture = `${FIXTURES}/dotnet/unknown-properties.json`
  const done = runCli(['assemble', '--budget', '400', fixture])
  const expected = done.stderr.trim().split('\n').map((line) => line.split(': warning: ')[1].split(' (--strict')[0].split(': ').slice(1).join(': '))
  const warnings = []
  const listen = (warning) => warnings.push(warning)
  process.on('warning', listen)
  new Assembler(400).assemble(load(fixture))
  await new Promise((resolve) => setImmediate(resolve))
  process.off('warning', listen)
  assert.ok(expected.length > 0)
  assert.deepEqual(warnings.map((w) => w.message.split(' (strict: true')[0]), expected)
  assert.ok(warnings.every((w) => w.name === 'MentorContextWarning' && w.code === 'UNKNOWN_PROPERTY'))
})

test('after a refused request the next one is assembled as if it were the first', () => {
  const assembler = new Assembler(1000)
  const good = load(`${FIXTURES}/pricing.json`)
  const expected = new Assembler(1000).assembleJson(good)
  assert.throws(() => assembler.assemble([...good, { score: 1 }]), { code: 'INVALID_RESULT' })
  assert.equal(assembler.assembleJson(good), expected)
})
