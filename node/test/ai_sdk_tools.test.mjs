// The agent example (examples/ai_sdk_tools.mjs) through the Vercel AI SDK's tool API:
// `generateText` with its tools and `stopWhen: stepCountIs(2)`, the model being the test
// model `ai/test` ships (MockLanguageModelV3), which calls the search first and answers
// second. What the SDK sent the model in each step is checked against what the assembler
// counted: the tool definitions, the fitted history, the call, the context as its result,
// the room for the answer. Nothing leaves the process.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'

import { generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'

import { openAiMessages, retrievalAgent, toolDefinitions } from '../examples/ai_sdk_tools.mjs'
import { resolveCitations } from '../index.js'
import { FIXTURES, load } from './helpers.mjs'

// A small ChatML template that writes the tools into the system message, with its tokenizer.
const CHATML = join(FIXTURES, 'prompt', 'chatml-tools')
const ANSWER = 'Business costs 27 EUR per seat and month [1].'
const RESERVE = 256
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
}

/** The agent's run at `window`: the SDK's result, the test model (also in `seen`), the agent. */
async function run (window, seen = {}) {
  const [system, ...history] = load(join(FIXTURES, 'prompt', 'conversation.json'))
  const searches = []
  const agent = await retrievalAgent({
    system: system.content,
    settings: {
      window,
      reserve: RESERVE,
      chatTemplate: join(CHATML, 'tokenizer_config.json'),
      tokenizerFile: join(CHATML, 'tokenizer.json'),
    },
    name: 'search_prices',
    description: "Looks a plan's price up.",
    inputSchema: z.object({ plan: z.enum(['A', 'B']), years: z.array(z.number().int()).optional() }),
    search: async (input) => {
      searches.push(input)
      return load(join(FIXTURES, 'pricing.json'))
    },
    // Another tool of the agent: its definition is sent, so it is counted too.
    tools: {
      open_ticket: tool({
        description: 'Opens a support ticket.',
        inputSchema: z.object({ subject: z.string() }),
        execute: async () => 'opened',
      }),
    },
  })
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call_7', toolName: 'search_prices', input: '{"plan":"B"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: ANSWER }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  })
  seen.model = model
  const result = await generateText({
    model,
    system: agent.system,
    messages: history,
    tools: agent.tools,
    prepareStep: agent.prepareStep,
    stopWhen: stepCountIs(2),
    maxOutputTokens: agent.prompts.reserve,
  })
  assert.deepEqual(searches, [{ plan: 'B' }])
  return { result, model, agent }
}

for (const window of [4096, 1500]) {
  test(`the model gets exactly what was counted: tools, fitted history, the context as the result (window ${window})`, async () => {
    const { result, model, agent } = await run(window)
    const prompt = agent.prompt()
    assert.equal(result.text, ANSWER)
    assert.equal(model.doGenerateCalls.length, 2)
    // The tool definitions the SDK sent, in both steps, are the ones counted.
    const counted = agent.definitions
    assert.deepEqual(counted, await toolDefinitions(agent.tools))
    assert.deepEqual(counted.map((d) => d.function.name), ['open_ticket', 'search_prices'])
    for (const call of model.doGenerateCalls) {
      assert.deepEqual(call.tools.map(({ name, description, inputSchema }) =>
        ({ type: 'function', function: { name, description, parameters: inputSchema } })), counted)
    }
    assert.ok(prompt.parts.tools > 0)
    assert.equal(Object.values(prompt.parts).reduce((a, b) => a + b, 0), prompt.tokenCount)
    assert.ok(prompt.tokenCount + RESERVE <= window, `${prompt.tokenCount} + ${RESERVE} > ${window}`)
    // The second step sent the counted messages: the fitted history (the oldest whole
    // turns gone in the short window), the call, the context as its result (the SDK's text
    // output, verbatim), and the reserve as the answer's limit.
    const second = model.doGenerateCalls[1]
    assert.deepEqual(openAiMessages(second.prompt), prompt.messages)
    assert.deepEqual(prompt.dropped.map((d) => d.index), window === 1500 ? [1, 2] : [])
    const { type, toolCallId, toolName, output } = second.prompt.at(-1).content[0]
    assert.deepEqual({ type, toolCallId, toolName, output }, { type: 'tool-result', toolCallId: 'call_7',
      toolName: 'search_prices', output: { type: 'text', value: prompt.context.context } })
    assert.match(output.value, /^\[1\] Subscription plans and prices/)
    assert.equal(second.maxOutputTokens, RESERVE)
    // The answer's markers are the context's chips.
    const cited = resolveCitations(prompt.context, result.text).cited
    assert.deepEqual(cited.map((c) => c.citation.title), ['Subscription plans and prices'])
  })
}

test('the tools take their room from the context', async () => {
  const [system, ...history] = load(join(FIXTURES, 'prompt', 'conversation.json'))
  const call = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'search_prices', input: {} }] }
  const conversation = [system, ...openAiMessages([...history, call])]
  const results = load(join(FIXTURES, 'pricing.json'))
  const settings = { system: system.content, name: 'search_prices', description: "Looks a plan's price up.",
    inputSchema: z.object({ plan: z.string() }), search: async () => results }
  const base = { window: 1400, reserve: RESERVE, chatTemplate: join(CHATML, 'tokenizer_config.json'),
    tokenizerFile: join(CHATML, 'tokenizer.json') }
  const one = (await retrievalAgent({ ...settings, settings: base })).prompts.assemble(conversation, results)
  const many = (await retrievalAgent({ ...settings, settings: base, tools: {
    open_ticket: tool({ description: 'Opens a support ticket.', inputSchema: z.object({ subject: z.string() }) }),
  } })).prompts.assemble(conversation, results)
  assert.ok(many.parts.tools > one.parts.tools && one.parts.tools > 0)
  assert.ok(many.parts.context < one.parts.context)
  assert.ok(many.tokenCount + RESERVE <= 1400 && one.tokenCount + RESERVE <= 1400)
})

test('a search that cannot fit ends the run with the library\'s error, and nothing uncounted is sent', async () => {
  // The system message, the question, the template and the two tools leave no room.
  const seen = {}
  await assert.rejects(run(1100, seen), (error) => error.code === 'WINDOW_TOO_SMALL' && /window of 1100/.test(error.message))
  assert.equal(seen.model.doGenerateCalls.length, 1)
})
