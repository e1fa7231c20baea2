// Shutdown under load: 200 keep-alive clients loop on a route taking 50-200 ms; the server process gets SIGTERM. Every
// request the server started handling gets its full answer (handler starts counted by the server = complete answers counted
// by the clients), new connections are refused, and the process exits 0 within close_timeout_ms.
// Other kinds of clients (SSE streams, WebSockets: they must get their end or a 1001 close) join through `LoadClient`.
import http from 'node:http'
import net from 'node:net'
import t from 'tap'
import { start_child_server } from '../helpers/child-server.js'

const CLOSE_TIMEOUT_MS = 5000

/** One kind of client of the shutdown test: it loads the server until the server goes away, then says what it got. */
interface LoadClient {
  /** Runs until the server closes the connection or refuses; resolves with the complete answers and the refusals. */
  run(port: number): Promise<{ complete: number; refused: number; cut: number }>
}

/** A keep-alive HTTP client looping on GET /slow: a complete answer is a 200 with its whole JSON body. */
const slow_route_client = (agent: http.Agent): LoadClient => ({
  async run(port) {
    const counts = { complete: 0, refused: 0, cut: 0 }
    for (;;) {
      const outcome = await new Promise<'complete' | 'refused' | 'cut'>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/slow', agent }, (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (d: string) => (body += d))
          res.on('end', () => resolve(res.statusCode === 200 && body.startsWith('{"ok":true') ? 'complete' : 'refused'))
          res.on('error', () => resolve('cut'))
        })
        req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'refused' : 'cut'))
      })
      counts[outcome]++
      if (outcome !== 'complete') return counts
    }
  },
})

/** Whether a new TCP connection is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy()
      resolve(false)
    })
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'))
  })
}

t.test('SIGTERM under load', async (t) => {
  const server = await start_child_server(t, 'test/reliability/fixtures/reliability-app.ts', { env: { FW_CLOSE_TIMEOUT_MS: String(CLOSE_TIMEOUT_MS) } })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 200 })
  t.teardown(() => agent.destroy())
  const clients: LoadClient[] = Array.from({ length: 200 }, () => slow_route_client(agent))
  const results = Promise.all(clients.map((c) => c.run(server.port)))
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 100))
  const new_refused = await refused(server.port)
  const [code, signal] = await server.exited
  const exit_ms = performance.now() - signalled
  const totals = (await results).reduce((a, r) => ({ complete: a.complete + r.complete, refused: a.refused + r.refused, cut: a.cut + r.cut }))
  const m = /handled started=(\d+) finished=(\d+)/.exec(server.output())
  t.ok(m, 'the server reported its handler counts')
  const [started, finished] = [Number(m?.[1]), Number(m?.[2])]
  t.ok(started > 200, `the clients kept the route busy (${started} handler starts)`)
  t.equal(totals.complete, started, 'every handler start reached its client as a complete answer')
  t.equal(finished, started, 'every started handler finished')
  t.ok(new_refused, 'a new connection after SIGTERM is refused')
  t.same([code, signal], [0, null], 'the process exits 0')
  t.ok(exit_ms < CLOSE_TIMEOUT_MS, `within close_timeout_ms (${exit_ms.toFixed(0)} ms of ${CLOSE_TIMEOUT_MS})`)
  t.comment(`clients: ${totals.complete} complete, ${totals.refused} refused (503 or ECONNREFUSED), ${totals.cut} cut before an answer`)
})
