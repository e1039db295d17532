// An agent through the Vercel AI SDK's tool API: `generateText` with a search tool
// (`tool({ description, inputSchema, execute })`) and two steps (`stopWhen: stepCountIs(2)`).
// The model (the test model `ai/test` ships, MockLanguageModelV3) calls the search; the
// tool's `execute` fits the whole prompt with a PromptAssembler that counts the same tool
// definitions the SDK sends, and returns the context as the tool result; `prepareStep` sends
// the history as it was fitted. What the SDK sent the model in the second step is checked
// against what was counted. Nothing leaves the process.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'

import { asSchema, generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'

import { PromptAssembler, resolveCitations } from '../index.js'
import { FIXTURES, load } from './helpers.mjs'

// A small ChatML template that writes the tools into the system message, with its tokenizer.
const CHATML = join(FIXTURES, 'prompt', 'chatml-tools')
const ANSWER = 'Business costs 27 EUR per seat and month [1].'
const RESERVE = 256
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
}

/** The tool definitions the SDK sends for `tools`, in OpenAI's shape (the library's). */
async function definitions (tools) {
  return Promise.all(Object.entries(tools).map(async ([name, { description, inputSchema }]) => (
    { type: 'function', function: { name, description, parameters: await asSchema(inputSchema).jsonSchema } })))
}

/** What a step's messages say, in OpenAI's shape: the SDK's parts as the chat API's fields. */
function openAiMessages (messages) {
  const text = (content) => typeof content === 'string'
    ? content
    : content.filter((part) => part.type === 'text').map((part) => part.text).join('')
  return messages.map((message) => {
    const calls = typeof message.content === 'string' ? [] : message.content.filter((part) => part.type === 'tool-call')
    if (message.role === 'tool') {
      const [result] = message.content
      return { role: 'tool', tool_call_id: result.toolCallId, name: result.toolName, content: result.output.value }
    }
    if (calls.length === 0) return { role: message.role, content: text(message.content) }
    return {
      role: 'assistant',
      content: text(message.content),
      tool_calls: calls.map((call) => ({
        id: call.toolCallId, type: 'function', function: { name: call.toolName, arguments: JSON.stringify(call.input) },
      })),
    }
  })
}

/** The agent: the SDK's run, what the model was sent, and the prompts the tool assembled. */
async function agent (window) {
  const [system, ...history] = load(join(FIXTURES, 'prompt', 'conversation.json'))
  const assembled = []
  const tools = {
    search_prices: tool({
      description: "Looks a plan's price up.",
      inputSchema: z.object({ plan: z.enum(['A', 'B']), years: z.array(z.number().int()).optional() }),
      // The search's results become the context of the whole prompt, fitted to what the
      // window leaves after the tools and the history; the model gets it as the result.
      execute: async (input, { toolCallId, messages }) => {
        const pending = { role: 'assistant', content: '', tool_calls: [{ id: toolCallId, type: 'function',
          function: { name: 'search_prices', arguments: JSON.stringify(input) } }] }
        const conversation = [{ role: 'system', content: system.content }, ...openAiMessages(messages), pending]
        const prompt = prompts.assemble(conversation, load(join(FIXTURES, 'pricing.json')))
        assembled.push(prompt)
        return prompt.messages.at(-1).content
      },
    }),
  }
  // The same definitions the SDK sends, counted: the tool set is the one source of both.
  const counted = await definitions(tools)
  const prompts = new PromptAssembler({
    window,
    reserve: RESERVE,
    chatTemplate: join(CHATML, 'tokenizer_config.json'),
    tokenizerFile: join(CHATML, 'tokenizer.json'),
    contextIn: 'tool',
    tools: counted,
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
  const result = await generateText({
    model,
    system: system.content,
    messages: history,
    tools,
    stopWhen: stepCountIs(2),
    maxOutputTokens: RESERVE,
    // The step after the search sends the history as fitted: the turns the assembler
    // dropped (indices of its conversation, the system message at 0) are not sent.
    prepareStep: ({ stepNumber, messages }) => {
      const dropped = new Set(assembled.at(-1)?.dropped.map((d) => d.index) ?? [])
      return stepNumber === 0 ? {} : { messages: messages.filter((_, i) => !dropped.has(i + 1)) }
    },
  })
  return { result, model, counted, prompt: assembled.at(-1) }
}

test('the search tool returns the context fitted with the tools, and the model gets exactly what was counted', async () => {
  for (const window of [4096, 1100]) {
    const { result, model, counted, prompt } = await agent(window)
    assert.equal(result.text, ANSWER)
    assert.equal(model.doGenerateCalls.length, 2)
    // The assembler counted the tool definitions the SDK sent, in both steps.
    for (const call of model.doGenerateCalls) {
      assert.deepEqual(call.tools.map(({ name, description, inputSchema }) =>
        ({ type: 'function', function: { name, description, parameters: inputSchema } })), counted)
    }
    assert.ok(prompt.parts.tools > 0)
    assert.equal(Object.values(prompt.parts).reduce((a, b) => a + b, 0), prompt.tokenCount)
    assert.ok(prompt.tokenCount + RESERVE <= window, `${prompt.tokenCount} + ${RESERVE} > ${window}`)
    // The second step sent the counted messages: the fitted history, the call, the context
    // as its result (the SDK's text output, verbatim), and room for the answer.
    const second = model.doGenerateCalls[1]
    assert.deepEqual(openAiMessages(second.prompt), prompt.messages)
    const { type, toolCallId, toolName, output } = second.prompt.at(-1).content[0]
    assert.deepEqual({ type, toolCallId, toolName, output }, { type: 'tool-result', toolCallId: 'call_7',
      toolName: 'search_prices', output: { type: 'text', value: prompt.context.context } })
    assert.match(output.value, /^\[1\] Subscription plans and prices/)
    assert.equal(second.maxOutputTokens, RESERVE)
    assert.equal(prompt.dropped.length > 0, window === 1100)
    // The answer's markers are the context's chips.
    const cited = resolveCitations(prompt.context, result.text).cited
    assert.deepEqual(cited.map((c) => c.citation.title), ['Subscription plans and prices'])
  }
})
