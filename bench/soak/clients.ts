// The soak's long-lived clients, which wrk cannot be: SSE subscribers reading the showcase's `/sse/events` and
// WebSocket clients talking in one room of its chat (`/ws/chat/{room}`). Each reconnects when its connection ends;
// their figures are taken per bucket, beside wrk's.
import http from 'node:http'
import { WebSocket } from 'ws'

/** What the long-lived clients saw since the last `take()`. */
export interface StreamFigures {
  /** SSE events read, over all subscribers. */
  sse_events: number
  /** SSE answers the server ended (each subscriber then reconnects). */
  sse_disconnects: number
  /** SSE answers that were not a 200, or connections that failed or were cut. */
  sse_errors: number
  /** SSE answers with a 5xx status. */
  sse_5xx: number
  /** Chat messages received, over all WebSocket clients. */
  ws_messages: number
  /** WebSockets the server closed (each client then reconnects). */
  ws_disconnects: number
  /** WebSocket errors: a refused upgrade, a failed or cut connection, a close with 1011. */
  ws_errors: number
  /** WebSocket closes with 1011 (a handler failed) and upgrades answered with a 5xx. */
  ws_1011: number
  /** The server's close codes, by code. */
  ws_close_codes: Record<string, number>
}

/** How many clients of each kind, and how often a WebSocket client speaks. */
export interface SoakClientOptions {
  sse: number
  ws: number
  /** Milliseconds between two messages of one WebSocket client (the chat allows 20 per 10 s). */
  ws_interval_ms?: number
}

const RECONNECT_MS = 200

const zero = (): StreamFigures => ({
  sse_events: 0,
  sse_disconnects: 0,
  sse_errors: 0,
  sse_5xx: 0,
  ws_messages: 0,
  ws_disconnects: 0,
  ws_errors: 0,
  ws_1011: 0,
  ws_close_codes: {},
})

/** SSE subscribers and chat clients against the soak server on 127.0.0.1:`port`. */
export class SoakClients {
  readonly #port: number
  readonly #options: Required<SoakClientOptions>
  readonly #closers = new Set<() => void>()
  #figures = zero()
  #stopped = false

  constructor(port: number, options: SoakClientOptions) {
    this.#port = port
    this.#options = { ws_interval_ms: 1000, ...options }
  }

  /** Connects every client; each keeps reconnecting until `stop()`. */
  start(): this {
    for (let i = 0; i < this.#options.sse; i++) this.#subscribe(undefined)
    for (let i = 0; i < this.#options.ws; i++) this.#chat(i)
    return this
  }

  /** The figures since the last call, and starts counting anew. */
  take(): StreamFigures {
    const figures = this.#figures
    this.#figures = zero()
    return figures
  }

  /** Closes every client, and reconnects none. */
  stop(): void {
    this.#stopped = true
    for (const close of this.#closers) close()
    this.#closers.clear()
  }

  #again(fn: () => void): void {
    if (!this.#stopped) setTimeout(() => void (this.#stopped || fn()), RECONNECT_MS).unref()
  }

  /** One SSE subscriber: counts `data:` lines, resumes after the last id when it reconnects. */
  #subscribe(last_id: string | undefined): void {
    const f = (): StreamFigures => this.#figures
    let last = last_id
    let rest = ''
    const headers: Record<string, string> = last === undefined ? {} : { 'last-event-id': last }
    const req = http.get({ host: '127.0.0.1', port: this.#port, path: '/sse/events', headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        f().sse_errors++
        if ((res.statusCode ?? 0) >= 500) f().sse_5xx++
      }
      res.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n')
        rest = lines.pop()!
        for (const line of lines) {
          if (line.startsWith('data:')) f().sse_events++
          else if (line.startsWith('id: ')) last = line.slice(4)
        }
      })
      res.on('error', () => {})
      res.on('close', () => {
        if (this.#stopped) return
        if (res.statusCode === 200 && res.complete) f().sse_disconnects++
        else if (res.statusCode === 200) f().sse_errors++
        this.#again(() => this.#subscribe(last))
      })
    })
    const close = (): void => void req.destroy()
    this.#closers.add(close)
    req.on('close', () => this.#closers.delete(close))
    req.on('error', () => {
      if (this.#stopped) return
      f().sse_errors++
      this.#again(() => this.#subscribe(last))
    })
  }

  /** One chat client in room `soak`: speaks every `ws_interval_ms`, counts what the room broadcasts. */
  #chat(i: number): void {
    const f = (): StreamFigures => this.#figures
    const ws = new WebSocket(`ws://127.0.0.1:${this.#port}/ws/chat/soak`, { perMessageDeflate: false })
    let timer: NodeJS.Timeout | undefined
    let n = 0
    ws.on(
      'open',
      () => (timer = setInterval(() => ws.send(`soak client ${i} message ${++n}`), this.#options.ws_interval_ms)),
    )
    ws.on('message', () => void f().ws_messages++)
    ws.on('unexpected-response', (_req, res) => {
      // A refused upgrade (a 4xx from the chat's middleware, or a 5xx): ws then emits no error of its own.
      if ((res.statusCode ?? 0) >= 500) f().ws_1011++
      f().ws_errors++
      ws.terminate()
    })
    ws.on('error', () => void (this.#stopped || f().ws_errors++))
    const close = (): void => ws.close(1000)
    this.#closers.add(close)
    ws.on('close', (code) => {
      clearInterval(timer)
      this.#closers.delete(close)
      if (this.#stopped) return
      f().ws_disconnects++
      f().ws_close_codes[code] = (f().ws_close_codes[code] ?? 0) + 1
      if (code === 1011) {
        f().ws_1011++
        f().ws_errors++
      }
      this.#again(() => this.#chat(i))
    })
  }
}
