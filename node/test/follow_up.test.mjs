// Follow-up turns, as tests/library/follow_up.rs has them, over the three-turn conversation
// in fixtures/conversation/: each turn's text starts with the previous text up to its
// closing, byte for byte; earlier chips keep their numbers; new results equal to earlier
// blocks are not repeated; the budget holds. Every turn is also the command's
// `assemble --previous`, byte for byte.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Assembler } from '../index.js'
import { FIXTURES, cliError, load, runCli, tempFile, thrown } from './helpers.mjs'

const turn = (n) => `${FIXTURES}/conversation/turn-${n}.json`
const CLOSING = { plain: '', xml: '</documents>\n' }

/** The report as a backend keeps it between turns: written as JSON, read back. */
const stored = (report) => JSON.parse(JSON.stringify(report))

/** `assemble --json --previous` of the command, on the same previous report. */
function commandTurn (args, previous, results) {
  const path = tempFile('previous.json', JSON.stringify(previous))
  const done = runCli(['assemble', '--json', ...args, '--previous', path, results])
  assert.equal(done.status, 0, done.stderr)
  return done.stdout
}

/** Everything a follow-up turn promises, for `next` after `previous` with `results`. */
function checkFollowUp (previous, next, results, close) {
  assert.ok(next.tokenCount <= next.budget)
  const prefix = previous.context.slice(0, previous.context.length - close.length)
  assert.ok(previous.context.endsWith(close))
  assert.ok(next.context.startsWith(prefix), 'prefix changed')
  assert.ok(next.context.endsWith(close))
  const earlier = previous.citations.length
  assert.deepEqual(next.citations.slice(0, earlier), previous.citations)
  next.citations.forEach((chip, n) => assert.equal(chip.index, n + 1))
  const inputs = [...next.citations.slice(earlier).map((c) => c.inputIndex), ...next.omitted.map((o) => o.inputIndex)]
  assert.deepEqual(inputs.sort((a, b) => a - b), results.map((_, n) => n))
}

test('three turns keep the prefix, the numbers and the budget, as the command does', () => {
  for (const format of ['plain', 'xml']) {
    for (const budget of [150, 300, 450, 700, 2000]) {
      const args = ['--budget', String(budget), '--format', format]
      const assembler = new Assembler(budget, { format })
      const [one, two, three] = [1, 2, 3].map((n) => load(turn(n)))
      const first = stored(assembler.assemble(one))
      const second = assembler.assembleFollowUp(first, two)
      checkFollowUp(first, second, two, CLOSING[format])
      assert.equal(JSON.stringify(second), JSON.stringify(JSON.parse(commandTurn(args, first, turn(2)))))
      const third = assembler.assembleFollowUp(stored(second), three)
      checkFollowUp(second, third, three, CLOSING[format])
      assert.equal(JSON.stringify(third), JSON.stringify(JSON.parse(commandTurn(args, second, turn(3)))))
      // The first turn's text survives two turns.
      assert.ok(third.context.startsWith(first.context.slice(0, first.context.length - CLOSING[format].length)))
    }
  }
})

test('repeats of earlier blocks are reported, new ones fill the budget', () => {
  const assembler = new Assembler(2000)
  const [one, two, three] = [1, 2, 3].map((n) => load(turn(n)))
  const first = assembler.assemble(one)
  assert.equal(first.citations.length, 3)
  const second = assembler.assembleFollowUp(first, two)
  // turn-2 input 1 is turn-1's price list again; input 2 shares its URL, not its content.
  assert.equal(second.omitted.find((o) => o.inputIndex === 1).reason, 'alreadyInContext')
  assert.deepEqual(second.citations.slice(3).map((c) => c.inputIndex), [0, 2, 3])
  const third = assembler.assembleFollowUp(second, three)
  assert.deepEqual(third.citations.slice(6).map((c) => [c.index, c.inputIndex]), [[7, 0], [8, 2], [9, 3]])
  assert.equal(third.omitted[0].reason, 'alreadyInContext')
  assert.equal(third.omitted[0].inputIndex, 1)
})

test('budgets past the previous text stay within the budget, as the command\'s', () => {
  const first = new Assembler(2000).assemble(load(turn(1)))
  for (let budget = first.tokenCount; budget < first.tokenCount + 250; budget += 17) {
    const next = new Assembler(budget).assembleFollowUp(first, load(turn(2)))
    assert.ok(next.tokenCount <= budget, `${next.tokenCount} > ${budget}`)
    assert.equal(JSON.stringify(next), JSON.stringify(JSON.parse(commandTurn(['--budget', String(budget)], first, turn(2)))))
  }
})

test('earlier blocks over the budget are an error with the command\'s message', () => {
  const first = new Assembler(2000).assemble(load(turn(1)))
  const tokens = first.tokenCount
  const err = thrown(() => new Assembler(tokens - 1).assembleFollowUp(first, load(turn(2))))
  assert.equal(err.code, 'EARLIER_BLOCKS_OVER_BUDGET')
  assert.equal(err.message, `the earlier turns' blocks take ${tokens} tokens, more than the budget of ${tokens - 1}`)
  const path = tempFile('previous.json', JSON.stringify(first))
  assert.equal(cliError(['--budget', String(tokens - 1), '--previous', path], turn(2)), `${path}: ${err.message}`)
  // Exactly the budget: nothing new fits, nothing old is lost.
  const full = new Assembler(tokens).assembleFollowUp(first, load(turn(2)))
  assert.equal(full.context, first.context)
  assert.deepEqual(full.citations, first.citations)
})

test('a report from another assembler, or edited, is refused naming what differs', () => {
  const two = load(turn(2))
  const plain = new Assembler(2000).assemble(load(turn(1)))
  const xml = new Assembler(2000, { format: 'xml' }).assemble(load(turn(1)))
  for (const [previous, assembler] of [[plain, new Assembler(2000, { format: 'xml' })], [xml, new Assembler(2000)]]) {
    assert.throws(() => assembler.assembleFollowUp(previous, two), { code: 'PREVIOUS_TURN_MISMATCH' })
  }
  assert.throws(() => new Assembler(2000, { encoding: 'cl100k_base' }).assembleFollowUp(plain, two), /o200k_base/)
  assert.throws(() => new Assembler(2000, { header: 'Sources:' }).assembleFollowUp(plain, two), { code: 'PREVIOUS_TURN_MISMATCH' })
  const renumbered = stored(plain)
  renumbered.citations.reverse()
  assert.throws(() => new Assembler(2000).assembleFollowUp(renumbered, two), /numbered/)
  // One word of a block's content changed: the command refuses it with the same words.
  const edited = stored(plain)
  edited.context = edited.context.replace('seat', 'sEat')
  assert.notEqual(edited.context, plain.context)
  const err = thrown(() => new Assembler(2000).assembleFollowUp(edited, two))
  assert.equal(err.code, 'PREVIOUS_TURN_MISMATCH')
  assert.match(err.message, /^the previous report does not fit this assembler: block \d+/)
  const path = tempFile('previous.json', JSON.stringify(edited))
  assert.equal(cliError(['--budget', '2000', '--previous', path], turn(2)), `${path}: ${err.message}`)
})

test('a sealed report continues; one byte changed anywhere is refused', () => {
  const sealKey = 'a key of thirty-two bytes, test!'
  const assembler = new Assembler(2000, { sealKey })
  const first = assembler.assemble(load(turn(1)))
  const next = assembler.assembleFollowUp(first, load(turn(2)))
  assert.equal(next.seal.length, 64)
  assert.ok(next.context.startsWith(first.context))
  for (const edit of [
    (r) => { r.citations[0].title += '!' },
    (r) => { r.tokenCount += 1 },
    (r) => { r.seal = r.seal.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
  ]) {
    const changed = stored(first)
    edit(changed)
    assert.throws(() => assembler.assembleFollowUp(changed, load(turn(2))), { code: 'PREVIOUS_TURN_MISMATCH' })
  }
  // Unsealed, the same report is read back block by block, and continued without a seal.
  assert.equal(new Assembler(2000).assembleFollowUp(first, load(turn(2))).seal, undefined)
})

test('a stored report may be given as its JSON text, and bad text says where', () => {
  const assembler = new Assembler(2000)
  const first = assembler.assemble(load(turn(1)))
  const two = load(turn(2))
  assert.deepEqual(assembler.assembleFollowUp(JSON.stringify(first), two), assembler.assembleFollowUp(first, two))
  for (const [previous, message] of [
    ['{"context": ', /^previous: line 1, column 12: EOF while parsing a value$/],
    ['  ', /^previous: empty; expected a report of assemble$/],
    ['[1]', /^previous: a JSON array; expected a report of assemble/],
    [[first], /^previous: an array; expected a report of assemble/],
    [{ context: 'x' }, /^previous: missing field `tokenCount`$/],
  ]) {
    assert.throws(() => assembler.assembleFollowUp(previous, two), { code: 'INVALID_REPORT', message })
  }
})
