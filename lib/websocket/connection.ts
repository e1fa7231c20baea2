// One open WebSocket as a handler sees it: send, receive, close and rooms, with the route's limits applied to each
// message and each message handled in the log context of the upgrade request.
import { randomUUID } from 'node:crypto'
import { enter_request, request_context, request_entry, type RequestEntry, type StoredContext } from '../log/context.js'
import { logger } from '../log/index.js'
import { logf_in } from '../log/logger.js'
import { is_thenable } from '../maybe-promise.js'
import type { Request } from '../request.js'
import { option_checker } from '../options.js'
import { CLOSE, ERR_WS_BAD_OPTION } from './errors.js'
import type { WsRateLimit, WsSettings } from './options.js'

/** What fw uses of the host's socket (a `ws` WebSocket satisfies it). */
export interface RawSocket {
  readonly readyState: number
  readonly bufferedAmount: number
  /** The subprotocol its 101 selected, '' for none (a `ws` WebSocket has it; a socket without it selected none). */
  readonly protocol?: string
  send(data: string | Buffer, options?: { binary: boolean }): void
  close(code?: number, reason?: string): void
  terminate(): void
  ping(): void
  /** Stops reading from the peer (TCP backpressure); what was read already may still be emitted. */
  pause(): void
  /** Reads from the peer again. */
  resume(): void
  on(event: 'message', fn: (data: Buffer | ArrayBuffer | Buffer[], is_binary: boolean) => void): unknown
  on(event: 'close', fn: (code: number, reason: Buffer) => void): unknown
  on(event: 'pong', fn: () => void): unknown
  on(event: 'error', fn: (err: Error) => void): unknown
}

/** A received message: a text frame as a string, a binary frame as a Buffer. */
export type WsMessage = string | Buffer

/** What `send` and `broadcast` take: text, bytes (a binary frame), or any other value sent as JSON text. */
export type Outgoing = string | Buffer | ArrayBuffer | ArrayBufferView | number | boolean | null | object

/** A message ready for the wire, and whether it is a binary frame. */
export interface Frame {
  readonly data: string | Buffer
  readonly binary: boolean
}

/** The room registry as a connection uses it. */
export interface RoomMembership {
  join(conn: WebSocketConnection, room: string): void
  leave(conn: WebSocketConnection, room: string): void
}

/** A message as a frame: JSON for values; a text stays a string (ws writes it straight into the frame). */
export function frame_of(message: Outgoing): Frame {
  if (typeof message === 'string') return { data: message, binary: false }
  if (Buffer.isBuffer(message)) return { data: message, binary: true }
  if (message instanceof ArrayBuffer) return { data: Buffer.from(message), binary: true }
  if (ArrayBuffer.isView(message))
    return { data: Buffer.from(message.buffer, message.byteOffset, message.byteLength), binary: true }
  return { data: JSON.stringify(message) ?? 'null', binary: false }
}

/** A frame as bytes, encoded once for a broadcast to many sockets or a bus. */
export function encoded({ data, binary }: Frame): { readonly data: Buffer; readonly binary: boolean } {
  return { data: typeof data === 'string' ? Buffer.from(data) : data, binary }
}

function bytes_of(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)
}

const OPEN = 1
// ws copies its send options into a frame's own: one object of each kind serves every send.
const TEXT = Object.freeze({ binary: false })
const BINARY = Object.freeze({ binary: true })
const log = logger('ws')

/**
 * The `ws` a WebSocket handler receives.
 * @example
 * app.ws('/ws/echo', (ws) => ws.on_message((m) => ws.send(m)))
 */
export class WebSocketConnection {
  /** Unique across instances, so `broadcast(..., { except: ws.id })` works through a room bus. */
  readonly id: string = randomUUID()
  /** The upgrade request, with the state its middleware set (`req.state(JwtClaims)`). */
  readonly request: Request
  readonly #raw: RawSocket
  readonly #settings: WsSettings
  readonly #rooms: RoomMembership
  /** The upgrade request's log context. */
  readonly #ctx: StoredContext
  /** How each message enters it: one entry for the socket's messages, which all arrive in one frame. */
  readonly #enter_message: RequestEntry
  readonly #joined = new Set<string>()
  readonly #on_message: Array<(message: WsMessage) => unknown> = []
  readonly #on_close: Array<(code: number, reason: string) => unknown> = []
  #window_start = 0
  #window_count = 0
  #alive = true
  #last_seen = Date.now()
  #dropped = 0
  /**
   * Messages received while the route's handler is still awaiting before its first `on_message`, in order; undefined
   * otherwise (always, for a handler that registers at once).
   */
  #held: WsMessage[] | undefined
  /** The bytes held; past `max_payload` the socket is paused until the messages are taken or dropped. */
  #held_bytes = 0
  /** The close code and reason once the connection has closed. */
  #ended: readonly [code: number, reason: string] | undefined
  #heartbeat: NodeJS.Timeout | undefined
  #idle: NodeJS.Timeout | undefined

  /** `ctx`: the log context the upgrade request ran in (its App's log core); by default one holding its id. */
  constructor(
    raw: RawSocket,
    request: Request,
    settings: WsSettings,
    rooms: RoomMembership,
    ctx: StoredContext = request_context(request.id(), undefined, undefined),
  ) {
    this.#raw = raw
    this.request = request
    this.#settings = settings
    this.#rooms = rooms
    this.#ctx = ctx
    this.#enter_message = request_entry(ctx)
    raw.on('message', (data, binary) => this.#receive(data, binary))
    raw.on('close', (code, reason) => this.#gone(code, reason.toString()))
    raw.on('pong', () => (this.#alive = true))
    // ws reports protocol errors (oversized frame, invalid UTF-8) here, then closes with 1009 / 1007 itself.
    raw.on('error', (err) => enter_request(ctx, log_protocol_error, this, err))
    if (settings.heartbeat_ms > 0) this.#heartbeat = setInterval(() => this.#beat(), settings.heartbeat_ms).unref()
    if (settings.idle_timeout_ms > 0) this.#idle_after(settings.idle_timeout_ms)
  }

  /** Whether the socket is open (messages can be sent). */
  get open(): boolean {
    return this.#ended === undefined && this.#raw.readyState === OPEN
  }

  /**
   * The subprotocol the 101 selected: for a route with `protocols`, the first of them the client offered; for one
   * without, ws's choice, the client's first offer; '' when the client offered none.
   */
  get protocol(): string {
    return this.#raw.protocol ?? ''
  }

  /** Rooms this connection is in. */
  get rooms(): ReadonlySet<string> {
    return this.#joined
  }

  /** Messages dropped because the client was slow (`on_backpressure: 'drop'`). */
  get dropped(): number {
    return this.#dropped
  }

  /** Sends text, bytes (a binary frame) or a value as JSON; false when it was not sent (closed, or dropped). */
  send(message: Outgoing): boolean {
    // A text, the common message, goes out as it is: no frame object.
    if (typeof message === 'string') return this.#write(message, false)
    const { data, binary } = frame_of(message)
    return this.#write(data, binary)
  }

  /** @internal Sends an encoded frame, applying the high-water mark. */
  deliver(frame: Frame): boolean {
    return this.#write(frame.data, frame.binary)
  }

  #write(data: string | Buffer, binary: boolean): boolean {
    if (!this.open) return false
    if (this.#raw.bufferedAmount > this.#settings.high_water_mark) {
      // A client that does not read would otherwise grow the server's memory without bound.
      if (this.#settings.on_backpressure === 'drop') this.#dropped++
      else this.close(CLOSE.try_again_later, 'client too slow')
      return false
    }
    // ws builds each frame's options by spreading these over its defaults, which tell a text from a Buffer already: a
    // string sent as text needs none (spreading nothing is cheaper than spreading an object).
    if (typeof data === 'string' && !binary) this.#raw.send(data)
    else this.#raw.send(data, binary ? BINARY : TEXT)
    return true
  }

  /**
   * Calls `fn` with every message: text frames as strings, binary frames as Buffers. Registered after an await of the
   * route's handler, it first gets what the client sent meanwhile, in order.
   */
  on_message(fn: (message: WsMessage) => unknown): this {
    // The first handler gets the held messages from a microtask, once the code registering it has run to its end.
    if (this.#on_message.push(fn) === 1 && this.#held !== undefined) queueMicrotask(() => this.#flush())
    return this
  }

  /**
   * @internal Runs the route's handler (in the caller's context); a throw or a rejection fails the connection. While the
   * promise it returns is pending and no `on_message` is registered, what the client sends is held here, up to
   * `max_payload` bytes; past that the socket is paused, and TCP holds the rest.
   */
  run(handler: (ws: WebSocketConnection, req: Request) => unknown): void {
    let r: unknown
    try {
      r = handler(this, this.request)
    } catch (err) {
      return this.fail(err)
    }
    const later = watch(this, r)
    if (later === undefined || this.#on_message.length > 0 || !this.open) return
    this.#held = []
    // Settled (after a rejection's fail) without a message handler: what was held is dropped and the socket read again.
    const settled = (): void => {
      if (this.#on_message.length === 0) this.#release()
    }
    later.then(settled, settled)
  }

  /** Gives the held messages to the message handlers, in order, then reads the socket again. */
  #flush(): void {
    const held = this.#held
    if (held === undefined) return
    for (const message of held) {
      // A handler that closed the connection (or failed) gets nothing more, as when the messages arrive one by one.
      if (!this.open) break
      this.#enter_message(WebSocketConnection.#handle, this, message)
    }
    this.#release()
  }

  /** Drops what is held and reads the socket again if it was paused; the paused time does not count as idle. */
  #release(): void {
    if (this.#held === undefined) return
    const paused = this.#paused
    this.#held = undefined
    this.#held_bytes = 0
    if (!paused) return
    this.#last_seen = Date.now()
    this.#raw.resume()
  }

  /**
   * Calls `fn(code, reason)` once the connection has closed, whoever closed it; at once when it has closed already (a
   * handler that registers it after an await the client did not wait for).
   */
  on_close(fn: (code: number, reason: string) => unknown): this {
    if (this.#ended === undefined) this.#on_close.push(fn)
    else this.#closed_with([fn], ...this.#ended)
    return this
  }

  /**
   * Starts the closing handshake (default 1000); the peer has a grace period to answer before it is cut. A code a close
   * frame may not carry (RFC 6455 section 7.4: 1004-1006, 1015, below 1000, 1016-2999, from 5000) or a reason over 123
   * bytes in UTF-8 (a control frame's payload is at most 125) throws `FW_ERR_WS_BAD_OPTION`, whether or not the
   * connection is still open, and the connection stays as it was.
   */
  close(code: number = CLOSE.normal, reason = ''): void {
    check_close(code, reason)
    if (this.#ended !== undefined || this.#raw.readyState > OPEN) return
    this.#raw.close(code, reason)
    // Held messages are not handled after the close; reading again lets the peer's answer in.
    this.#release()
  }

  /** Cuts the connection without a closing handshake. */
  terminate(): void {
    this.#raw.terminate()
  }

  /** Joins a room: `app.rooms.broadcast(room, ...)` reaches this connection until it leaves or closes. */
  join(room: string): this {
    if (this.#ended === undefined && !this.#joined.has(room)) {
      this.#joined.add(room)
      this.#rooms.join(this, room)
    }
    return this
  }

  /** Leaves a room. */
  leave(room: string): this {
    if (this.#joined.delete(room)) this.#rooms.leave(this, room)
    return this
  }

  #receive(data: Buffer | ArrayBuffer | Buffer[], binary: boolean): void {
    // Once the server has sent its close frame (1008, 1009, 1011, 1001...), what the peer still sends before answering
    // it is not handled: a client closed for its rate or a failure would otherwise be served until ws cuts it (30 s).
    if (!this.open) return
    if (this.#idle !== undefined) this.#last_seen = Date.now()
    const bytes = bytes_of(data)
    if (bytes.length > this.#settings.max_payload) return this.close(CLOSE.too_big, 'message too big')
    const limit = this.#settings.rate_limit
    if (limit !== undefined && this.#over_rate(limit))
      return this.close(CLOSE.policy_violation, 'message rate limit exceeded')
    // toString() with no encoding is Buffer's UTF-8 fast path; naming 'utf8' looks the encoding up on every message.
    if (this.#held === undefined)
      this.#enter_message(WebSocketConnection.#handle, this, binary ? bytes : bytes.toString())
    // For a handler still awaiting: the message waits, in order, for its on_message.
    else this.#hold(binary ? bytes : bytes.toString(), bytes.length)
  }

  #hold(message: WsMessage, size: number): void {
    const paused = this.#paused
    this.#held!.push(message)
    this.#held_bytes += size
    // What ws has read already may still arrive once paused, and is held too.
    if (!paused && this.#paused) this.#raw.pause()
  }

  /** Whether the socket is paused: what is held has passed `max_payload` (`#release` resumes it). */
  get #paused(): boolean {
    return this.#held_bytes > this.#settings.max_payload
  }

  /** Calls the message handlers, one by one; #receive runs it in the connection's log context. */
  static readonly #handle = (conn: WebSocketConnection, message: WsMessage): void => {
    const fns = conn.#on_message
    // A handler registered while this message is handled gets the next one, not this one (as EventEmitter and
    // addEventListener); a close emptying the list stops the loop.
    for (let i = 0, n = fns.length; i < n && i < fns.length; i++) {
      const fn = fns[i]!
      try {
        watch(conn, fn(message))
      } catch (err) {
        conn.fail(err)
      }
    }
  }

  #over_rate(limit: WsRateLimit): boolean {
    const now = Date.now()
    if (now - this.#window_start >= limit.window_ms) {
      this.#window_start = now
      this.#window_count = 0
    }
    return ++this.#window_count > limit.max_messages
  }

  /**
   * Checks for idleness when the wait may be over; a message since only moves the next check (no timer per message).
   */
  #idle_after(ms: number): void {
    this.#idle = setTimeout(() => {
      // Paused, the socket hears nothing from the client: the wait starts again once it reads (#release).
      if (this.#paused) return this.#idle_after(this.#settings.idle_timeout_ms)
      const left = this.#last_seen + this.#settings.idle_timeout_ms - Date.now()
      if (left > 0) this.#idle_after(left)
      else this.close(CLOSE.normal, 'idle timeout')
    }, ms).unref()
  }

  #beat(): void {
    // The previous ping went unanswered: the peer is gone without a close frame (a dead TCP connection).
    if (!this.#alive && !this.#paused) return this.#raw.terminate()
    // Paused, ws reads no pong: the peer counts as alive, and has a whole interval to answer once read again.
    this.#alive = this.#paused
    this.#raw.ping()
  }

  #gone(code: number, reason: string): void {
    if (this.#ended !== undefined) return
    this.#ended = [code, reason]
    this.#held = undefined
    clearInterval(this.#heartbeat)
    clearTimeout(this.#idle)
    for (const room of this.#joined) this.#rooms.leave(this, room)
    this.#joined.clear()
    this.#closed_with(this.#on_close.splice(0), code, reason)
    this.#on_message.length = 0
  }

  #closed_with(fns: ReadonlyArray<(code: number, reason: string) => unknown>, code: number, reason: string): void {
    this.in_context(() => dispatch(this, fns, code, reason))
  }

  /** @internal Runs `fn` in the log context of the upgrade request. */
  in_context(fn: () => void): void {
    enter_request(this.#ctx, call, fn, undefined)
  }

  /** @internal A handler failed: log it with its stack, close this socket with 1011; the process goes on. */
  fail(err: unknown): void {
    // A rejection arrives after the message's synchronous part: the line is given the upgrade's context.
    logf_in(this.#ctx, 'ws', 'error', 'ws handler failed', ['id', this.id, 'path', this.request.path(), 'err', err])
    this.close(CLOSE.internal_error, 'internal error')
  }
}

/** @internal Calls each callback with `args`; a throw or a rejection fails the connection (1011, logged). */
export function dispatch<A extends unknown[]>(
  conn: WebSocketConnection,
  fns: ReadonlyArray<(...args: A) => unknown>,
  ...args: A
): void {
  for (const fn of fns) {
    try {
      watch(conn, fn(...args))
    } catch (err) {
      conn.fail(err)
    }
  }
}

/**
 * A handler's rejection fails the connection as its throw does. Any thenable counts (a promise library's, a lazy
 * builder's, another realm's), adopted once into the native promise returned (a lazy builder's work runs once);
 * undefined for a handler that answered no thenable.
 */
function watch(conn: WebSocketConnection, r: unknown): Promise<unknown> | undefined {
  if (!is_thenable(r)) return undefined
  // Promise.resolve gives a native promise back as it is: no allocation for the common async handler.
  const later = Promise.resolve(r)
  later.catch((err: unknown) => conn.fail(err))
  return later
}

const check_close_args = option_checker(ERR_WS_BAD_OPTION, 'ws.close')

/** Throws unless `code` and `reason` fit a close frame (what ws would refuse with a TypeError or RangeError). */
function check_close(code: unknown, reason: unknown): void {
  const sendable =
    typeof code === 'number' &&
    Number.isInteger(code) &&
    ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999))
  check_close_args.must(sendable, 'code', '1000-1003, 1007-1014 or 3000-4999', code)
  const fits = typeof reason === 'string' && Buffer.byteLength(reason) <= 123
  check_close_args.must(fits, 'reason', 'a string of at most 123 bytes in UTF-8', reason)
}

function call(fn: () => void): void {
  fn()
}

function log_protocol_error(conn: WebSocketConnection, err: Error): void {
  log.logf('info', 'ws protocol error', 'id', conn.id, 'reason', err.message)
}
