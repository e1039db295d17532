// Shared by the tests: the repository's paths, its fixtures, and the `mentor-context`
// command built from this checkout, which every report and error is compared with; and the
// checks several tests make (an error and its code, a value's keys against index.d.ts).
//
// The command is MENTOR_CONTEXT_BIN if set, else target/debug or target/release of the
// checkout (`cargo build -p mentor-context-cli`).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { ErrorCode } from '../index.js'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const FIXTURES = join(ROOT, 'fixtures')

// The request fixtures: JSON arrays of results in the .NET wire form (as python/tests).
export const RESULT_FIXTURES = [
  'bench-english.json', 'bench-multilingual.json', 'duplicates.json', 'hostile-heads.json',
  'multilingual.json', 'pricing.json', 'support.json',
  'conversation/turn-1.json', 'conversation/turn-2.json', 'conversation/turn-3.json',
  'dotnet/mixed-case.json', 'dotnet/null-metadata.json', 'dotnet/pascal-case.json',
  'dotnet/string-scores.json', 'dotnet/unknown-properties.json',
].map((name) => join(FIXTURES, name))

export function load (fixture) {
  return JSON.parse(readFileSync(fixture, 'utf8'))
}

export function cli () {
  const given = process.env.MENTOR_CONTEXT_BIN
  if (given) return given
  for (const profile of ['debug', 'release']) {
    const binary = join(ROOT, 'target', profile, 'mentor-context')
    if (existsSync(binary)) return binary
  }
  throw new Error('no mentor-context command: run `cargo build -p mentor-context-cli`, or set MENTOR_CONTEXT_BIN')
}

/** Runs the command; returns its exit status, standard output and standard error. */
export function runCli (args, input) {
  const done = spawnSync(cli(), args, { input, encoding: 'utf8', maxBuffer: 1 << 28 })
  if (done.error) throw done.error
  return { status: done.status, stdout: done.stdout, stderr: done.stderr }
}

/** The standard output of `assemble --json ARGS FIXTURE`, which must succeed. */
export function cliReport (args, fixture) {
  const done = runCli(['assemble', '--json', ...args, fixture])
  if (done.status !== 0) throw new Error(done.stderr)
  return done.stdout
}

/** The one-line message of a failing `assemble`, without the program's name. */
export function cliError (args, fixture = join(FIXTURES, 'pricing.json')) {
  return cliFailure(args, fixture).message
}

/** The code and the message of the one line a failing `assemble` writes,
 * `mentor-context: error[CODE]: message`. */
export function cliFailure (args, fixture = join(FIXTURES, 'pricing.json')) {
  const done = runCli(['assemble', ...args, fixture])
  if (done.status !== 2) throw new Error(`expected exit 2, got ${done.status}: ${done.stdout}`)
  const line = done.stderr.trim()
  const found = /^mentor-context: error\[([A-Z_]+)\]: (.*)$/.exec(line)
  if (line.includes('\n') || !found) throw new Error(line)
  return { code: found[1], message: found[2] }
}

/** A file of `text` in a new temporary folder. */
export function tempFile (name, text) {
  const path = join(mkdtempSync(join(tmpdir(), 'mentor-context-')), name)
  writeFileSync(path, text)
  return path
}

/** The error `fn` throws (it must throw). */
export function thrown (fn) {
  try {
    fn()
  } catch (err) {
    return err
  }
  throw new Error('expected an error')
}

/** A request of about 10 MB: 5,000 results of 2 KB, each its own text (the event-loop test
 * and benches/plain.mjs). */
export function tenMegabytes () {
  const words = 'the plan costs twelve euros a month per seat and storage is shared '.repeat(31)
  return Array.from({ length: 5000 }, (_, n) => ({
    content: `${n} ${words}`.slice(0, 2000),
    score: (n % 997) / 997,
    sourceUrl: `https://docs.example/${n}`,
    title: `Page ${n}`,
  }))
}

const CODES = new Set(Object.values(ErrorCode))

/** `err` is an Error of one line with `code`, one of ErrorCode's; returns its message. */
export function checkError (err, code) {
  assert.ok(err instanceof Error, String(err))
  assert.equal(err.code, code, err.message)
  assert.ok(CODES.has(err.code), err.code)
  assert.ok(err.message && !err.message.includes('\n'), err.message)
  return err.message
}

const DTS = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')

/** The fields of `interface name` in index.d.ts: name and whether it is optional. */
export function interfaceFields (name) {
  const body = DTS.match(new RegExp(`export interface ${name} \\{([^}]*)\\}`))
  assert.ok(body, `no interface ${name}`)
  return body[1].split('\n').map((line) => line.trim()).filter((line) => /^\w+\??:/.test(line))
    .map((line) => [line.match(/^\w+/)[0], line.includes('?:')])
}

/** `value`'s keys are those of `interface name` in index.d.ts: every required one, and none
 * it does not declare. */
export function matches (name, value) {
  const declared = interfaceFields(name)
  const keys = Object.keys(value)
  for (const [key, optional] of declared) {
    if (!optional) assert.ok(keys.includes(key), `${name}.${key} is missing`)
  }
  for (const key of keys) assert.ok(declared.some(([d]) => d === key), `${name} does not declare ${key}`)
}
