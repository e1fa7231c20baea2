// Test helper: a request a closing App receives on a keep-alive connection still busy when close() began, which the
// server still answers (Fastify's `return503OnClosing`, or fw in its place).
import net from 'node:net'
import type { App } from '../../index.js'
import type { AppOptions } from '../../lib/config.js'
import { gate, listening, type Teardown } from './build.js'
import { parse, type SocketResponse } from './http.js'

/** An App being closed while its `GET /slow` is held, and the gates that say where the close is. */
export interface ClosingApp {
  readonly app: App
  readonly port: number
  /** Opens once `/slow` has arrived. */
  readonly arrived: Promise<void>
  /** Lets `/slow` answer. */
  readonly release: () => void
  /** Opens once the App's close has begun (Fastify's `preClose`). */
  readonly closing: Promise<void>
}

/**
 * Listens with `setup`'s routes, a `GET /slow` held until `release()`, and `drain_ms: 0` unless `options` says
 * otherwise: the set-up of a request sent on a connection still busy while the App closes.
 */
export async function closing_app(
  t: Teardown,
  setup: (app: App) => void,
  options: AppOptions = {},
): Promise<ClosingApp> {
  const arrived = gate()
  const release = gate()
  const closing = gate()
  const { app, port } = await listening(
    t,
    (app) => {
      app.get('/slow', async (_req, res) => {
        arrived.open()
        await release.promise
        res.json('ok', true)
      })
      setup(app)
      app.fastify.addHook('preClose', (done) => (closing.open(), done()))
    },
    { drain_ms: 0, ...options },
  )
  return { app, port, arrived: arrived.promise, release: release.open, closing: closing.promise }
}

/**
 * `closing_app`, then sends `/slow` on a keep-alive connection (with `headers`), closes the App and, once its close has
 * begun, sends `GET <path>` (with `headers`) on that connection, still busy. Resolves, once the App has closed, with
 * the app and the two answers the connection received: `/slow`'s, then the one to the request sent while closing.
 */
export async function sent_while_closing(
  t: Teardown,
  setup: (app: App) => void,
  path: string,
  { options = {}, headers = '' }: { options?: AppOptions; headers?: string } = {},
): Promise<{ app: App; slow: SocketResponse; refused: SocketResponse }> {
  const { app, port, arrived, release, closing } = await closing_app(t, setup, options)
  const socket = net.connect(port, '127.0.0.1')
  t.teardown(() => socket.destroy())
  let text = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
  // A server that keeps the connection open after its answers is cut after 2 s: the answers read so far are checked.
  const ended = new Promise((resolve) => socket.once('close', resolve))
  const cut = setTimeout(() => socket.destroy(), 2000)
  t.teardown(() => clearTimeout(cut))
  socket.write(`GET /slow HTTP/1.1\r\nHost: a\r\n${headers}\r\n`)
  await arrived
  const closed = app.close()
  await closing
  socket.write(`GET ${path} HTTP/1.1\r\nHost: a\r\n${headers}\r\n`)
  // Node answers a connection's requests in order: the second one's answer waits for /slow's.
  await new Promise((resolve) => setTimeout(resolve, 25))
  release()
  await closed
  await ended
  const second = text.indexOf('HTTP/1.1 ', 1)
  return { app, slow: parse(text.slice(0, second)), refused: parse(second === -1 ? '' : text.slice(second)) }
}
