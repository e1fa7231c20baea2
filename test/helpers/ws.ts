// Test helpers for WebSocket routes: a `ws` client that queues what it receives, and the refusal of an upgrade.
import { request } from 'node:http'
import WebSocket from 'ws'

/** A connected client with every message it received, in order (text as strings, binary as Buffers). */
export interface Client {
  readonly ws: WebSocket
  readonly received: Array<string | Buffer>
  /** Resolves with the next message not yet taken (or one already queued). */
  next(): Promise<string | Buffer>
  /** Like `next`, but resolves with undefined when nothing arrives within `ms`. */
  poll(ms: number): Promise<string | Buffer | undefined>
  /** Resolves with the close code and reason once the connection closed. */
  readonly closed: Promise<{ code: number; reason: string }>
}

/** An upgrade answered with HTTP instead of 101. */
export interface Refusal {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * Opens `ws://127.0.0.1:<port><path>`, offering `protocols` as subprotocols (ws then fails the connection unless the
 * 101 selects one of them); rejects with a `Refusal` when the server answers the upgrade with HTTP.
 */
export function connect(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  protocols: readonly string[] = [],
): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, [...protocols], { headers })
  const received: Array<string | Buffer> = []
  let taken = 0
  const waiting: Array<(m: string | Buffer | undefined) => void> = []
  ws.on('message', (data: Buffer, binary: boolean) => {
    const m = binary ? data : data.toString('utf8')
    received.push(m)
    const w = waiting.shift()
    if (w) {
      taken++
      w(m)
    }
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  const client: Client = {
    ws,
    received,
    closed,
    next: () =>
      taken < received.length
        ? Promise.resolve(received[taken++]!)
        : new Promise((resolve) => waiting.push(resolve as never)),
    poll: (ms) => {
      if (taken < received.length) return Promise.resolve(received[taken++]!)
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1)
          resolve(undefined)
        }, ms)
        const take = (m: string | Buffer | undefined): void => {
          clearTimeout(timer)
          resolve(m)
        }
        waiting.push(take)
      })
    },
  }
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () =>
        reject(
          Object.assign(new Error(`upgrade refused with ${res.statusCode}`), {
            status: res.statusCode!,
            headers: res.headers,
            body,
          }),
        ),
      )
    })
    ws.once('error', (err) => reject(err))
  })
}

/** The refusal of an upgrade that must be refused; fails when a socket opens. */
export async function refused(port: number, path: string, headers: Record<string, string> = {}): Promise<Refusal> {
  try {
    const c = await connect(port, path, headers)
    c.ws.terminate()
  } catch (err) {
    const r = err as Partial<Refusal>
    if (r.status !== undefined) return { status: r.status, headers: r.headers ?? {}, body: r.body ?? '' }
    throw err
  }
  throw new Error(`the upgrade to ${path} was accepted`)
}

/** The server's answer to a hand-made upgrade request: a 101's headers, or a refusal's status, headers and body. */
export interface HandshakeAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * Sends an upgrade request with exactly `headers` (a valid key and version 13 unless given, and `Upgrade: websocket`;
 * a list is sent as that many header lines), as a client that does not check the answer; a 101's socket is destroyed
 * at once.
 */
export function handshake(
  port: number,
  path: string,
  headers: Record<string, string | string[]> = {},
): Promise<HandshakeAnswer> {
  const req = request({
    host: '127.0.0.1',
    port,
    path,
    headers: {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
      ...headers,
    },
  })
  return new Promise((resolve, reject) => {
    req.once('upgrade', (res, socket) => {
      socket.destroy()
      resolve({ status: res.statusCode!, headers: res.headers, body: '' })
    })
    req.once('response', (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.once('error', reject)
    req.end()
  })
}
