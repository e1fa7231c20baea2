// Server-sent events: a producer writes events to a sink; the sink is a Readable with backpressure, a heartbeat
// comment, and an AbortSignal fired when the client goes away.
import { Readable } from 'node:stream'
import { defineError } from '../errors.js'
import { ignore } from '../maybe-promise.js'

export const ERR_STREAM_BAD_EVENT = defineError(
  'FW_ERR_STREAM_BAD_EVENT',
  (field: string, value: unknown) =>
    `server-sent event ${field} must ${field === 'retry' ? 'be an integer >= 0' : 'hold no CR, LF or NUL'}; got ${JSON.stringify(value)}`,
)

export const ERR_STREAM_CLOSED = defineError(
  'FW_ERR_STREAM_CLOSED',
  () => 'the stream is closed: its client went away, its producer ended or the server is closing',
)

/** One event: `data` a string (sent as is, line by line) or any other value (sent as JSON). */
export interface SseEvent {
  readonly data: unknown
  readonly event?: string
  readonly id?: string
  /** The reconnection delay the client should use, in ms. */
  readonly retry?: number
}

/** What a producer writes to. Each write resolves when the stream can take more (backpressure). */
export interface SseSink {
  /**
   * Sends an event. A bad event rejects (`FW_ERR_STREAM_BAD_EVENT`, or the TypeError of data JSON cannot write); it
   * never throws. Once the stream is closed it sends nothing and rejects with `FW_ERR_STREAM_CLOSED`, so a producer
   * that only awaits it ends; that rejection is already handled (`void sink.send(e)` raises no unhandled rejection),
   * and a producer ending with it is not logged.
   */
  send(event: SseEvent): Promise<void>
  /**
   * Sends a comment line (`: text`), which clients ignore; used to keep proxies from closing an idle connection. Once
   * the stream is closed it rejects as `send` does.
   */
  comment(text: string): Promise<void>
  /** Fires when the client goes away, or when the server shuts down (the stream is then ended). */
  readonly signal: AbortSignal
  /** Whether the stream is over (client gone, the producer done, or the server shutting down). */
  readonly closed: boolean
  /** The `Last-Event-ID` a reconnecting client sent (the first, if it sent more than one), or undefined. */
  readonly last_event_id: string | undefined
}

/** Writes the events of one SSE answer; the stream ends when its promise settles (a rejection is logged). */
export type SseProducer = (sink: SseSink) => unknown

/** Options of `res.sse()`. */
export interface SseOptions {
  /** Milliseconds between heartbeat comments (default 15000; 0 for none). */
  heartbeat_ms?: number
}

/** Starts a repeating timer and returns its stop function; tests pass a fake one. */
export type Every = (fn: () => void, ms: number) => () => void

const real_every: Every = (fn, ms) => {
  const timer = setInterval(fn, ms)
  timer.unref()
  return () => clearInterval(timer)
}

const BAD_FIELD = /[\r\n\0]/
const LINE_BREAK = /[\r\n]/
const done = Promise.resolve()

/** An event in the wire format (`event:`, `id:`, `retry:`, one `data:` line per line of data, a blank line). */
export function format_event(e: SseEvent): string {
  let out = ''
  if (e.event !== undefined) out += `event: ${check_field('event', e.event)}\n`
  if (e.id !== undefined) out += `id: ${check_field('id', e.id)}\n`
  if (e.retry !== undefined) {
    // A safe integer: past 2^53 JavaScript writes `1e+21`, which no client reads as a number of milliseconds.
    if (!Number.isSafeInteger(e.retry) || e.retry < 0) throw ERR_STREAM_BAD_EVENT('retry', e.retry)
    out += `retry: ${e.retry}\n`
  }
  const data = typeof e.data === 'string' ? e.data : (JSON.stringify(e.data) ?? 'null')
  // Most data is one line: no split, no array.
  if (!LINE_BREAK.test(data)) return `${out}data: ${data}\n\n`
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`
  return out + '\n'
}

function check_field(name: string, value: string): string {
  if (typeof value !== 'string' || BAD_FIELD.test(value)) throw ERR_STREAM_BAD_EVENT(name, value)
  return value
}

/**
 * The Readable of an SSE answer, running `producer` at once. Its first chunk goes out once the producer's synchronous
 * part and the microtasks it queued have run (the events written meanwhile, or an empty chunk): that write sends the
 * answer's status and headers, so a client sees them before the first event. A producer failing before then leaves
 * nothing written (the answer is still the 500).
 */
export function sse_readable(
  producer: SseProducer,
  last_event_id: string | undefined,
  heartbeat_ms = 15_000,
  every: Every = real_every,
): Readable {
  return new SseStream(producer, last_event_id, heartbeat_ms, every)
}

/**
 * Text sent in one chunk: the events a producer writes without waiting on anything else go out together once it pauses
 * (one socket write instead of one per event), or as soon as this much is waiting.
 */
const BATCH_CHARS = 8 * 1024

/**
 * An SSE answer. Events are queued as text and pushed in batches (at the end of the current tick, or once `BATCH_CHARS`
 * are waiting); while the consumer is behind (a push returned false) every write waits for it to read.
 */
class SseStream extends Readable {
  readonly #abort = new AbortController()
  readonly #stop_heartbeat: () => void
  readonly #flush_soon: () => void
  #over = false
  /** Whether a chunk was pushed: the first one, even empty, makes the socket write the answer's head. */
  #opened = false
  #queued = ''
  #flush_pending = false
  /** Resolves every writer waiting for the consumer; undefined while it keeps up. */
  #drained: { promise: Promise<void>; resolve: () => void } | undefined
  /** What every write answers once the stream is over: made at the first such write, its rejection already handled. */
  #refused: Promise<void> | undefined

  constructor(producer: SseProducer, last_event_id: string | undefined, heartbeat_ms: number, every: Every) {
    // Object mode: each batch goes to the socket as the string it is, up to 4 batches ahead of it.
    super({ objectMode: true, highWaterMark: 4 })
    const comment = (text: string): Promise<void> => this.#write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`)
    const is_closed = (): boolean => this.#over || this.destroyed
    const sink: SseSink = {
      send: (event) => {
        // A refused event (FW_ERR_STREAM_BAD_EVENT, data JSON cannot write) rejects, as the Promise send returns says.
        let text: string
        try {
          text = format_event(event)
        } catch (err) {
          return Promise.reject(err as Error)
        }
        return this.#write(text)
      },
      comment,
      signal: this.#abort.signal,
      get closed() {
        return is_closed()
      },
      last_event_id,
    }
    this.#flush_soon = () => {
      this.#flush_pending = false
      if (this.#drained === undefined) this.#flush()
    }
    this.#stop_heartbeat = heartbeat_ms > 0 ? every(() => void comment('heartbeat'), heartbeat_ms) : () => {}
    Promise.resolve()
      .then(() => {
        const result = producer(sink)
        this.#flush_later()
        return result
      })
      .then(
        () => this.#end(),
        (err: unknown) => this.#fail(err),
      )
  }

  /** Ends the stream from outside the producer (see `end_sse`). */
  finish(): void {
    this.#end()
    if (!this.#abort.signal.aborted) this.#abort.abort()
  }

  override _read(): void {
    const drained = this.#drained
    if (drained === undefined) return
    this.#drained = undefined
    this.#flush()
    drained.resolve()
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.#queued = ''
    this.#close()
    if (!this.#abort.signal.aborted) this.#abort.abort()
    cb(err)
  }

  #write(text: string): Promise<void> {
    if (this.#over || this.destroyed) return this.#closed()
    this.#queued += text
    if (this.#drained === undefined) {
      if (this.#queued.length >= BATCH_CHARS) this.#flush()
      else this.#flush_later()
    }
    return this.#waiting()
  }

  /**
   * A write after the end: a rejection, so that a producer looping on `await sink.send()` alone stops instead of spinning
   * on resolved promises forever, and handled here, so that a write nobody awaits raises no unhandled rejection. The
   * producer's own rejection with it lands in `#fail` after the end, which ignores it.
   */
  #closed(): Promise<void> {
    if (this.#refused === undefined) {
      this.#refused = Promise.reject(ERR_STREAM_CLOSED())
      this.#refused.catch(ignore)
    }
    return this.#refused
  }

  /**
   * Flushes on the next tick. Scheduled from a microtask (the producer's start, its writes), that tick comes only once
   * the microtasks queued meanwhile (a producer's `await` of something already settled) have run too.
   */
  #flush_later(): void {
    if (this.#flush_pending) return
    this.#flush_pending = true
    process.nextTick(this.#flush_soon)
  }

  /** What a writer waits on: the consumer's next read while it is behind, else nothing. */
  #waiting(): Promise<void> {
    return this.#drained?.promise ?? done
  }

  /**
   * Pushes what is queued, or an empty chunk for the answer's head if nothing was pushed yet; a consumer that is behind
   * makes the next writes wait for its next read.
   */
  #flush(): void {
    if ((this.#queued === '' && this.#opened) || this.#over || this.destroyed) return
    const text = this.#queued
    this.#queued = ''
    this.#opened = true
    if (!this.push(text) && this.#drained === undefined) {
      let resolve!: () => void
      const promise = new Promise<void>((r) => (resolve = r))
      this.#drained = { promise, resolve }
    }
  }

  #end(): void {
    if (this.#over || this.destroyed) return
    this.#close()
    // What is queued goes out first, even past the high-water mark: the stream ends after it.
    if (this.#queued !== '') this.push(this.#queued)
    this.#queued = ''
    this.push(null)
  }

  #fail(err: unknown): void {
    // Once the stream is over (ended by the server closing, or its client gone), a rejection is the producer stopping
    // on its signal (a timer or fetch given it rejects with an AbortError): it must not cut the end already queued for
    // a client still reading the last events.
    if (this.#over || this.destroyed) return
    this.destroy(err instanceof Error ? err : new Error(String(err)))
  }

  #close(): void {
    this.#over = true
    this.#stop_heartbeat()
    const drained = this.#drained
    this.#drained = undefined
    drained?.resolve()
  }
}

/**
 * Ends an SSE answer because the server is shutting down: what is queued is sent, then the body ends (a client can tell
 * this from a cut connection), and the producer's signal fires so that a producer waiting on a timer stops. False for a
 * Readable that is not an SSE answer.
 */
export function end_sse(stream: Readable): boolean {
  if (!(stream instanceof SseStream)) return false
  stream.finish()
  return true
}
