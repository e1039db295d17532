// The package from a CommonJS project (what `npm init -y` makes) and from an ES module one, in
// JavaScript and in TypeScript: a user's project depends on node/ as `npm install path/to/node`
// links it, and each program assembles and resolves as the package's own tests do.

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'

import { ROOT } from './helpers.mjs'

const PACKAGE = join(ROOT, 'node')
const TSC = join(PACKAGE, 'node_modules', 'typescript', 'bin', 'tsc')
const work = mkdtempSync(join(tmpdir(), 'mentor-context-modules-'))
after(() => rmSync(work, { recursive: true, force: true }))

// What each program prints: the chip its answer cites, from the report alone.
const EXPECTED = '1 Prices'

/** A project in its own folder, `mentor-context` linked into its node_modules as npm links it. */
function project (name, packageJson, files) {
  const dir = join(work, name)
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(PACKAGE, join(dir, 'node_modules', 'mentor-context'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson))
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
  return dir
}

function run (dir, command, args) {
  const done = spawnSync(command, args, { cwd: dir, encoding: 'utf8' })
  assert.equal(done.status, 0, `${command} ${args.join(' ')}: ${done.stdout}${done.stderr}`)
  return done.stdout.trim()
}

const BODY = `
const report = new Assembler(500).assemble([{ content: 'Plan B costs 12 EUR.', title: 'Prices', score: 0.9 }])
const chip = resolveCitations(report, 'It costs 12 EUR [1].').cited[0]
console.log(chip.citation.index, chip.citation.title)
`

test('CommonJS: require finds the package, in a project npm init -y makes', () => {
  const dir = project('cjs', { name: 'cjs', version: '1.0.0', main: 'index.js' }, {
    'index.js': `const { Assembler, resolveCitations } = require('mentor-context')\n${BODY}`,
  })
  assert.equal(run(dir, process.execPath, ['index.js']), EXPECTED)
})

test('ES module: import finds the named exports, with top-level await', () => {
  const dir = project('esm', { name: 'esm', type: 'module' }, {
    'index.js': `import { Assembler, resolveCitations } from 'mentor-context'\nawait Promise.resolve()\n${BODY}`,
  })
  assert.equal(run(dir, process.execPath, ['index.js']), EXPECTED)
})

const TSCONFIG = JSON.stringify({
  compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, outDir: 'out', skipLibCheck: true, types: [] },
  files: ['main.ts'],
})

test('TypeScript in a CommonJS project: the import compiles to require, with the types', () => {
  const dir = project('ts-cjs', { name: 'ts-cjs', version: '1.0.0' }, {
    'tsconfig.json': TSCONFIG,
    // No top-level await here: a CommonJS module cannot have one (the README says so).
    'main.ts': `import { Assembler, resolveCitations } from 'mentor-context'\ndeclare const console: { log (...a: unknown[]): void }\n${BODY}`,
  })
  run(dir, process.execPath, [TSC, '-p', '.'])
  assert.equal(run(dir, process.execPath, ['out/main.js']), EXPECTED)
})

test('TypeScript in an ES module project: import and top-level await, with the types', () => {
  const dir = project('ts-esm', { name: 'ts-esm', type: 'module' }, {
    'tsconfig.json': TSCONFIG,
    'main.ts': `import { Assembler, resolveCitations } from 'mentor-context'\ndeclare const console: { log (...a: unknown[]): void }\nawait Promise.resolve()\n${BODY}`,
  })
  run(dir, process.execPath, [TSC, '-p', '.'])
  assert.equal(run(dir, process.execPath, ['out/main.js']), EXPECTED)
})
