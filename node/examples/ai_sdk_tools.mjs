// An agent through the Vercel AI SDK's tool API, with retrieval as the answer to the model's
// own search call, counted as one whole prompt: the tool definitions, the history, the call
// and the retrieved context fit the model's window (`tokenCount + reserve <= window`).
//
//   const agent = await retrievalAgent({
//     system: 'Answer from the documents; cite them as [n].',
//     settings: { window: 32768, reserve: 2048, chatTemplate: 'Qwen3-8B/tokenizer_config.json',
//                 tokenizerFile: 'Qwen3-8B/tokenizer.json' },
//     name: 'search_docs', description: 'Searches the documentation.',
//     inputSchema: z.object({ query: z.string() }),
//     search: async ({ query }) => yourRetrieval(query),  // results in the .NET wire form
//   })
//   const result = await generateText({ model, system: agent.system, messages, tools: agent.tools,
//     prepareStep: agent.prepareStep, stopWhen: stepCountIs(5), maxOutputTokens: agent.prompts.reserve })
//
// The search tool's `execute` runs the search and fits the whole conversation with a
// `PromptAssembler` (`contextIn: 'tool'`) that counts the same tool definitions the SDK sends
// (from the one tool set); it returns the fitted context, which the SDK sends the model as
// the tool's result. `prepareStep` leaves out the oldest turns the assembler dropped, so the
// next step sends the messages that were counted. The count is exact for a model served
// with the template and tokenizer given (vLLM, TGI, llama.cpp behind an OpenAI-compatible
// chat endpoint); steps after a search add their own messages, which no one counted. A
// search that cannot fit (the window too small for the rest) ends the run with the
// library's error, before anything uncounted is sent.
// node/test/ai_sdk_tools.test.mjs runs it with the SDK's test model.
import { asSchema, tool } from 'ai'

import { PromptAssembler } from '../index.js'

/**
 * The definitions the SDK sends for a tool set, in the OpenAI shape the library takes:
 * `[{ type: 'function', function: { name, description, parameters } }]`.
 */
export async function toolDefinitions (tools) {
  return Promise.all(Object.entries(tools).map(async ([name, { description, inputSchema }]) => ({
    type: 'function',
    function: { name, description, parameters: await asSchema(inputSchema).jsonSchema },
  })))
}

/**
 * The SDK's messages (a step's `messages`, or the prompt a model is called with) in the
 * OpenAI shape the library takes: text parts joined, tool calls as `tool_calls` with their
 * input as JSON text, a tool result's text output as the `tool` message's content.
 */
export function openAiMessages (messages) {
  const text = (content) => typeof content === 'string'
    ? content
    : content.filter((part) => part.type === 'text').map((part) => part.text).join('')
  return messages.map((message) => {
    if (message.role === 'tool') {
      const [result] = message.content
      return { role: 'tool', tool_call_id: result.toolCallId, name: result.toolName, content: result.output.value }
    }
    const calls = typeof message.content === 'string' ? [] : message.content.filter((part) => part.type === 'tool-call')
    if (calls.length === 0) return { role: message.role, content: text(message.content) }
    return {
      role: 'assistant',
      content: text(message.content),
      tool_calls: calls.map((call) => ({
        id: call.toolCallId,
        type: 'function',
        function: { name: call.toolName, arguments: JSON.stringify(call.input) },
      })),
    }
  })
}

/**
 * The search tool (beside the agent's other `tools`), the assembler that counts them all
 * (their `definitions`), and the `prepareStep` that sends the history as fitted. `prompt()`
 * is the last whole prompt a search assembled (its `context` has the citation chips for the
 * answer's `[n]` markers).
 */
export async function retrievalAgent ({ system, settings, name, description, inputSchema, search, tools = {} }) {
  let last
  const all = {
    ...tools,
    [name]: tool({
      description,
      inputSchema,
      execute: async (input, { toolCallId, messages }) => {
        // The SDK's messages so far (without the system message and the call itself),
        // then the call this result answers.
        const pending = {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: toolCallId, type: 'function', function: { name, arguments: JSON.stringify(input) } }],
        }
        const conversation = [{ role: 'system', content: system }, ...openAiMessages(messages), pending]
        last = prompts.assemble(conversation, await search(input))
        return last.messages.at(-1).content
      },
    }),
  }
  const definitions = await toolDefinitions(all)
  const prompts = new PromptAssembler({ ...settings, contextIn: 'tool', tools: definitions })
  // The SDK would send a failed search's error to the model as its result, in a prompt no
  // one counted; the run stops with the library's error (WINDOW_TOO_SMALL, ...) instead.
  // The assembler's indices count the system message as 0; the SDK's messages leave it out.
  const prepareStep = ({ steps, messages }) => {
    const failed = steps.at(-1)?.content.find((part) => part.type === 'tool-error' && part.toolName === name)
    if (failed !== undefined) throw failed.error
    if (last === undefined || last.dropped.length === 0) return {}
    const dropped = new Set(last.dropped.map((d) => d.index))
    return { messages: messages.filter((_, i) => !dropped.has(i + 1)) }
  }
  return { system, tools: all, definitions, prompts, prepareStep, prompt: () => last }
}
