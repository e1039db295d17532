// A server that relays a model's streamed answer to the browser as server-sent events, each
// event exactly one output of the library's `CitationStream`, and a page where ui/'s
// `<mentor-answer>` and `<mentor-sources>` show it: the chips appear as the answer cites
// them, and no half marker is ever shown. Plain `node:http`, no framework:
//
//   import { relayServer } from './sse_relay.mjs'
//   const server = relayServer({ results, model: yourModelStream })  // results: .NET wire form
//   server.listen(8080)  // then open http://localhost:8080/
//
// `GET /answer?question=...` is the stream:
//
//   event: report   data: the report of `assemble` (what the chips show)
//   event: output   data: {"text": "...", "events": [...]}              (CitationStream.push)
//   event: end      data: {"text": "...", "events": [...], "resolution": {...}}  (finish)
//   event: failed   data: {"message": "..."}    (the model's stream threw; nothing follows)
//
// The data lines are the library's JSON as it is: the same outputs Python's stream and Rust's
// `CitationStream` give, which `<mentor-answer>`'s `append` and `finish` take as they are.
// The page (`/`) and its script (`/page.js`) are served under `default-src 'self'`, and the
// elements from `/ui/`. The model is `model(prompt)`: an async iterable of text chunks (an
// OpenAI or Anthropic SDK's text deltas); the one below replays a canned answer, so the example
// needs no key. cli/tests/browser/sse-relay.test.mjs runs it in Chromium.
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { Assembler, CitationStream } from '../index.js'

const UI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'ui')
const POLICY = { 'Content-Security-Policy': "default-src 'self'" }

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Answer</title>
<script type="module" src="/ui/mentor-context-ui.js"></script>
<script type="module" src="/page.js"></script></head><body><main>
<form id="ask"><label>Question <input name="question" required></label> <button>Ask</button></form>
<mentor-answer id="answer" sources="sources" aria-live="polite"></mentor-answer>
<h2>Sources</h2><mentor-sources id="sources"></mentor-sources></main></body></html>`

// The page's script: each event handed to the elements as it comes.
const PAGE_SCRIPT = `const answer = document.getElementById('answer')
const sources = document.getElementById('sources')
document.getElementById('ask').addEventListener('submit', (submitted) => {
  submitted.preventDefault()
  const question = new FormData(submitted.target).get('question')
  const events = new EventSource('/answer?question=' + encodeURIComponent(question))
  answer.answer = ''
  events.addEventListener('report', (e) => { sources.report = JSON.parse(e.data) })
  events.addEventListener('output', (e) => answer.append(JSON.parse(e.data)))
  events.addEventListener('end', (e) => {
    events.close()
    answer.finish(JSON.parse(e.data))
    document.body.dataset.answered = 'true'
  })
  // A model that failed, or a lost connection: keep what was shown, and do not ask again.
  events.addEventListener('failed', () => events.close())
  events.addEventListener('error', () => events.close())
})
`

/** A stand-in for a model: a canned answer in small chunks, split inside its markers. */
export async function * cannedModel (prompt) {
  for (const chunk of ['Team costs 15 EUR a seat [', '1], billed per active seat [1', ']; add-ons [3, ', '4] and [9].']) {
    yield chunk
  }
}

/** One server-sent event. */
function sse (event, data) {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * The relay: `results` (the retrieval's, in the .NET wire form) assembled at `budget` into the
 * context of the prompt given to `model`, whose answer streams back through a `CitationStream`.
 */
export function relayServer ({ results, model = cannedModel, budget = 1500 }) {
  const assembler = new Assembler(budget, { header: 'Answer from these sources; cite them as [n].' })
  return createServer(async (request, response) => {
    const url = new URL(request.url, 'http://localhost')
    if (url.pathname === '/') {
      response.writeHead(200, { ...POLICY, 'Content-Type': 'text/html; charset=utf-8' })
      return response.end(PAGE)
    }
    if (url.pathname === '/page.js' || url.pathname.startsWith('/ui/')) {
      // The URL's parser has resolved `..` segments: what is left names a file under ui/.
      const file = url.pathname === '/page.js' ? null : join(UI, url.pathname.slice(4))
      if (file !== null && !file.endsWith('.js')) return notFound(response)
      const text = file === null ? PAGE_SCRIPT : await readFile(file).catch(() => null)
      if (text === null) return notFound(response)
      response.writeHead(200, { ...POLICY, 'Content-Type': 'text/javascript; charset=utf-8' })
      return response.end(text)
    }
    if (url.pathname !== '/answer') return notFound(response)
    const report = assembler.assemble(results)
    const prompt = `${report.context}\nQuestion: ${url.searchParams.get('question') ?? ''}`
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' })
    response.write(sse('report', report))
    const stream = new CitationStream(report)
    try {
      for await (const chunk of model(prompt)) {
        const output = stream.push(chunk)
        // A chunk that ends inside a marker shows nothing yet: no event until there is some.
        if (output.text !== '' || output.events.length > 0) response.write(sse('output', output))
      }
      response.end(sse('end', stream.finish()))
    } catch (error) {
      // The page keeps what it showed and learns why the answer stopped.
      response.end(sse('failed', { message: String(error?.message ?? error) }))
    }
  })
}

function notFound (response, { url } = response.req) {
  // No icon: say so without an error in the browser's console.
  response.writeHead(url === '/favicon.ico' ? 204 : 404, POLICY)
  response.end()
}
