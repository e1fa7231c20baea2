// Shutdown under load: 200 keep-alive clients loop on a route taking 50-200 ms; the server process gets SIGTERM. Every
// request the server started handling gets its full answer (handler starts counted by the server = complete answers
// counted by the clients), new connections are refused, and the process exits 0 within close_timeout_ms. Beside them,
// SSE clients read an endless event stream and WebSocket clients talk to an echo route: each stream must get its end
// (the body ends, the connection is not cut) and each WebSocket a 1001 close.
import http from 'node:http'
import { once } from 'node:events'
import net from 'node:net'
import t from 'tap'
import { WebSocket } from 'ws'
import { start_child_server } from '../helpers/child-server.js'

const CLOSE_TIMEOUT_MS = 5000
const SSE_CLIENTS = 20
const WS_CLIENTS = 20

/**
 * What one client got: complete answers (a whole body, a stream's end, a 1001 close), refusals, cuts, messages read.
 */
interface Outcome {
  complete: number
  refused: number
  cut: number
  received: number
  /** How a stream or socket ended, when not complete (an error, a close code). */
  how?: string
}

/** One kind of client of the shutdown test: it loads the server until the server goes away, then says what it got. */
interface LoadClient {
  readonly kind: 'http' | 'sse' | 'ws'
  /**
   * Resolves once the client is connected and has read its first message, or has given up (at once for an HTTP client).
   */
  readonly ready: Promise<void>
  /** Runs until the server closes the connection or refuses; resolves with what the client got. */
  run(port: number): Promise<Outcome>
}

/** A keep-alive HTTP client looping on GET /slow: a complete answer is a 200 with its whole JSON body. */
const slow_route_client = (agent: http.Agent): LoadClient => ({
  kind: 'http',
  ready: Promise.resolve(),
  async run(port) {
    const counts = { complete: 0, refused: 0, cut: 0, received: 0 }
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

/** Resolvers of a `ready` promise. */
function readiness(): { ready: Promise<void>; set_ready: () => void } {
  let set_ready!: () => void
  const ready = new Promise<void>((resolve) => (set_ready = resolve))
  return { ready, set_ready }
}

/**
 * An SSE client on GET /events: complete when the body ends whole (`res.complete`), cut when the connection drops
 * first.
 */
const sse_client = (): LoadClient => {
  const { ready, set_ready } = readiness()
  return {
    kind: 'sse',
    ready,
    run: (port) =>
      new Promise((resolve) => {
        const outcome: Outcome = { complete: 0, refused: 0, cut: 0, received: 0 }
        const req = http.get({ host: '127.0.0.1', port, path: '/events', agent: false }, (res) => {
          res.setEncoding('utf8').on('data', (d: string) => {
            outcome.received += d.split('\n\n').length - 1
            if (outcome.received > 0) set_ready()
          })
          res.on('error', () => {})
          res.on('close', () => {
            if (res.statusCode === 200 && res.complete) outcome.complete++
            else [outcome.cut, outcome.how] = [1, `status ${res.statusCode}, body ${res.complete ? 'whole' : 'cut'}`]
            set_ready()
            resolve(outcome)
          })
        })
        req.on('error', (e: NodeJS.ErrnoException) => {
          set_ready()
          resolve({ ...outcome, refused: 1, how: e.code ?? e.message })
        })
      }),
  }
}

/** A WebSocket client on /ws/echo sending a message every 50 ms: complete when the server closes it with 1001. */
const ws_client = (): LoadClient => {
  const { ready, set_ready } = readiness()
  return {
    kind: 'ws',
    ready,
    run: (port) =>
      new Promise((resolve) => {
        const outcome: Outcome = { complete: 0, refused: 0, cut: 0, received: 0 }
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/echo`)
        let error = ''
        let timer: NodeJS.Timeout | undefined
        ws.on('open', () => (timer = setInterval(() => ws.send('ping'), 50)))
        ws.on('message', () => {
          outcome.received++
          set_ready()
        })
        ws.on('error', (e) => (error = e.message))
        ws.on('close', (code) => {
          clearInterval(timer)
          if (code === 1001 && error === '') outcome.complete++
          else [outcome.cut, outcome.how] = [1, `close ${code}${error && `, ${error}`}`]
          set_ready()
          resolve(outcome)
        })
      }),
  }
}

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

/** The outcomes of one kind of client, summed; `how` lists the distinct ways its clients did not complete. */
function sum(outcomes: Outcome[]): Outcome {
  const hows = [...new Set(outcomes.map((o) => o.how).filter((h) => h !== undefined))]
  const total = outcomes.reduce(
    (a, o) => ({
      complete: a.complete + o.complete,
      refused: a.refused + o.refused,
      cut: a.cut + o.cut,
      received: a.received + o.received,
    }),
    { complete: 0, refused: 0, cut: 0, received: 0 },
  )
  return hows.length === 0 ? total : { ...total, how: hows.join('; ') }
}

t.test('SIGTERM under load, with SSE streams and WebSockets open', async (t) => {
  const server = await start_child_server(t, 'test/reliability/fixtures/reliability-app.ts', {
    env: { FW_CLOSE_TIMEOUT_MS: String(CLOSE_TIMEOUT_MS) },
  })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 200 })
  t.teardown(() => agent.destroy())
  const clients: LoadClient[] = [
    ...Array.from({ length: 200 }, () => slow_route_client(agent)),
    ...Array.from({ length: SSE_CLIENTS }, sse_client),
    ...Array.from({ length: WS_CLIENTS }, ws_client),
  ]
  const results = Promise.all(clients.map(async (c) => ({ kind: c.kind, outcome: await c.run(server.port) })))
  await Promise.all([...clients.map((c) => c.ready), new Promise((resolve) => setTimeout(resolve, 1500))])
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  // A loaded server may handle the signal a while after it was sent: a connection made before that is an ordinary one.
  while (!server.output().includes('closing') && server.child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 10))
  const new_refused = await refused(server.port)
  const [code, signal] = await server.exited
  const exit_ms = performance.now() - signalled
  const of = async (kind: LoadClient['kind']): Promise<Outcome> =>
    sum((await results).filter((r) => r.kind === kind).map((r) => r.outcome))
  const [http_totals, sse, ws] = [await of('http'), await of('sse'), await of('ws')]
  const m = /handled started=(\d+) finished=(\d+)/.exec(server.output())
  t.ok(m, 'the server reported its handler counts')
  const [started, finished] = [Number(m?.[1]), Number(m?.[2])]
  t.ok(started > 200, `the clients kept the route busy (${started} handler starts)`)
  t.equal(http_totals.complete, started, 'every handler start reached its client as a complete answer')
  t.equal(finished, started, 'every started handler finished')
  t.same(
    { ended: sse.complete, not_ended: sse.how ?? 'none' },
    { ended: SSE_CLIENTS, not_ended: 'none' },
    'every SSE stream got its end, none was cut',
  )
  t.ok(sse.received >= SSE_CLIENTS, `the SSE clients read events until then (${sse.received})`)
  t.same(
    { closed_1001: ws.complete, other: ws.how ?? 'none' },
    { closed_1001: WS_CLIENTS, other: 'none' },
    'every WebSocket got a 1001 close',
  )
  t.ok(ws.received >= WS_CLIENTS, `the WebSocket clients got echoes until then (${ws.received})`)
  t.ok(new_refused, 'a new connection after SIGTERM is refused')
  t.same([code, signal], [0, null], 'the process exits 0')
  t.ok(exit_ms < CLOSE_TIMEOUT_MS, `within close_timeout_ms (${exit_ms.toFixed(0)} ms of ${CLOSE_TIMEOUT_MS})`)
  t.comment(
    `HTTP clients: ${http_totals.complete} complete, ${http_totals.refused} refused (503 or ECONNREFUSED), ${http_totals.cut} cut before an answer`,
  )
  t.comment(`SSE: ${sse.received} events; WebSocket: ${ws.received} echoes`)
})

t.test('SIGTERM with a WebSocket peer that stopped reading', async (t) => {
  // Fastify bounds its close hooks by 10 s: a close_timeout_ms that long is where a stuck peer used to fail close().
  const close_timeout_ms = 10_000
  const server = await start_child_server(t, 'test/reliability/fixtures/stuck-websocket-app.ts', {
    env: { FW_CLOSE_TIMEOUT_MS: String(close_timeout_ms) },
  })
  const stuck = new WebSocket(`ws://127.0.0.1:${server.port}/ws/flood`)
  t.teardown(() => stuck.terminate())
  stuck.on('error', () => {})
  await once(stuck, 'open')
  // The peer stops reading: the server's chunks fill the kernel's buffers, then ws's, and its 1001 never arrives.
  ;(stuck as unknown as { _socket: net.Socket })._socket.pause()
  const echo = new WebSocket(`ws://127.0.0.1:${server.port}/ws/echo`)
  const echo_closed = once(echo, 'close') as Promise<[number, Buffer]>
  await once(echo, 'open')
  while (!server.output().includes('full')) await new Promise((resolve) => setTimeout(resolve, 10))
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  const [code, signal] = await server.exited
  const exit_ms = performance.now() - signalled
  const [echo_code] = await echo_closed
  t.equal(echo_code, 1001, 'the peer that reads gets 1001')
  t.same(
    server.output().match(/^closed \d+$/gm),
    ['closed 1001', 'closed 1006'],
    'the server saw the reading peer answer its 1001, and cut the other (1006)',
  )
  t.match(server.output(), /on_close ran\nstopped\n$/, 'on_close hooks ran and run() returned')
  t.same([code, signal], [0, null], 'the process exits 0')
  // The upper bound leaves room for a loaded 2-core machine (12.1 s seen under load); the defect it guards against
  // waited for Fastify's own timer and exited 1, which the exit code above catches whatever the time.
  t.ok(
    exit_ms >= close_timeout_ms - 100 && exit_ms < close_timeout_ms + 5000,
    `the stuck peer was cut at close_timeout_ms (exit after ${exit_ms.toFixed(0)} ms)`,
  )
})
