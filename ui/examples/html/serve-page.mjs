// Serves this page and ui/ and passes /v1/ on to `mentor-context serve`: what the reverse
// proxy in front of an application does (nginx, Caddy, your backend), in node:http alone.
//
//   mentor-context serve --listen 127.0.0.1:18080 --budget 1500 &
//   node ui/examples/html/serve-page.mjs http://127.0.0.1:18080   # then open http://127.0.0.1:8080/
import { readFile } from 'node:fs/promises'
import { createServer, request as forward } from 'node:http'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const UI = join(HERE, '..', '..')
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8' }
const POLICY = { 'Content-Security-Policy': "default-src 'self'" }

/** The page's server, passing /v1/ to the service at `service` (its origin). */
export function pageServer (service) {
  return createServer(async (request, response) => {
    // The URL's parser has resolved `..` segments: what is left is under this folder or ui/.
    const path = new URL(request.url, 'http://localhost').pathname
    if (path.startsWith('/v1/')) {
      const upstream = forward(new URL(path, service), { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode, answer.headers)
        answer.pipe(response)
      })
      upstream.on('error', () => { response.writeHead(502, POLICY); response.end() })
      return request.pipe(upstream)
    }
    if (path === '/favicon.ico') return response.writeHead(204, POLICY).end()
    const file = path === '/' ? join(HERE, 'index.html') : path.startsWith('/ui/') ? join(UI, path.slice(4)) : join(HERE, path)
    const type = TYPES[extname(file)]
    const body = type && await readFile(file).catch(() => null)
    response.writeHead(body ? 200 : 404, body ? { ...POLICY, 'Content-Type': type } : POLICY)
    response.end(body || undefined)
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  pageServer(process.argv[2] ?? 'http://127.0.0.1:18080').listen(8080, '127.0.0.1')
}
