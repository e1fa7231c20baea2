// Reading a body stream under a byte limit: whole into a Buffer, or passed through with the limit counted.
import { Transform, type Readable } from 'node:stream'
import { ERR_BODY_TOO_LARGE } from './errors.js'
import { ignore } from '../maybe-promise.js'

/** The declared `Content-Length` when it exceeds `limit` (the body need not be read to refuse it), else false. */
export function declared_too_large(content_length: string | undefined, limit: number): boolean {
  return content_length !== undefined && Number(content_length) > limit
}

/** Called once with the whole body, or with why it could not be read. */
export type WholeBodyDone = (err: Error | null, body: Buffer | undefined) => void

/**
 * Reads `source` whole and calls `done` once: with `FW_ERR_BODY_TOO_LARGE` as soon as the bytes received exceed `limit`
 * (the rest is left unread), with the stream's own error when the client goes away, else with the bytes. No promise:
 * the adapter hands the result to a callback, and this runs for every request with a body.
 */
export function read_whole(source: Readable, limit: number, done: WholeBodyDone): void {
  new WholeBody(source, limit, done).start()
}

/** One read in progress. The listeners are assigned, not declared, so a per-request read makes no named closure. */
class WholeBody {
  readonly #source: Readable
  readonly #limit: number
  readonly #done: WholeBodyDone
  readonly #on_data: (chunk: Buffer) => void
  readonly #on_end: () => void
  readonly #on_error: (err: Error) => void
  #chunks: Buffer[] = []
  #size = 0

  constructor(source: Readable, limit: number, done: WholeBodyDone) {
    this.#source = source
    this.#limit = limit
    this.#done = done
    this.#on_data = (chunk) => this.#data(chunk)
    this.#on_end = () =>
      cut_short(source)
        ? this.#finish(aborted_error(), undefined)
        : this.#finish(null, this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size))
    this.#on_error = (err) => this.#finish(err, undefined)
  }

  start(): void {
    this.#source.on('data', this.#on_data).on('end', this.#on_end).on('error', this.#on_error)
  }

  #data(chunk: Buffer): void {
    this.#size += chunk.length
    if (this.#size <= this.#limit) return void this.#chunks.push(chunk)
    this.#source.pause()
    this.#finish(ERR_BODY_TOO_LARGE(this.#limit), undefined)
  }

  #finish(err: Error | null, body: Buffer | undefined): void {
    this.#source.off('data', this.#on_data).off('end', this.#on_end).off('error', this.#on_error)
    // The chunks are views of the socket's 64 KiB read buffers. Kept here, they held every buffer of a body alive for
    // as long as this reader stayed reachable: 1 MiB uploads cost twice the CPU, most of it in garbage collection.
    this.#chunks.length = 0
    this.#done(err, body)
  }
}

/** What a body read fails with when its client went away before sending all of it, as Node fails an HTTP/1.1 one. */
export const aborted_error = (): Error => Object.assign(new Error('aborted'), { code: 'ECONNRESET' })

/**
 * Whether `source`, a request whose body has ended, was cut short rather than sent whole. Node's HTTP/2 compatibility
 * layer ends a request's body cleanly when its stream closes, reset by the client (`aborted`) or ended by the server
 * (its request timeout: the stream is destroyed before the body's end), where an HTTP/1.1 request fails with ECONNRESET.
 */
export function cut_short(source: Readable): boolean {
  const r = source as { aborted?: boolean; stream?: { destroyed?: boolean } }
  return r.aborted === true || r.stream?.destroyed === true
}

/** `source` passed through, failing with `FW_ERR_BODY_TOO_LARGE` once more than `limit` bytes have gone by. */
export function limited(source: Readable, limit: number): Readable {
  let size = 0
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length
      cb(size > limit ? ERR_BODY_TOO_LARGE(limit) : null, chunk)
    },
    flush(cb) {
      cb(cut_short(source) ? aborted_error() : null)
    },
  })
  // The client going away (ECONNRESET, aborted) fails the reader rather than leaving it waiting; one already gone
  // before the handler asked emits nothing more, so it fails at once. The counter may fail while nobody listens (a
  // handler holding the stream before it reads, a multipart reader that stopped): its reader learns it from `errored`
  // or its own listener, and the event without one must not end the process.
  counter.on('error', ignore)
  const on_error = (err: Error): void => void counter.destroy(err)
  if (source.destroyed && !source.readableEnded) return counter.destroy(aborted_error())
  // Kept after the counter closes: a request decides to emit its 'error' a tick before it does, and a listener removed
  // in between would leave that emit with none (destroying a closed counter does nothing).
  source.on('error', on_error)
  counter.once('close', () => source.unpipe(counter))
  return source.pipe(counter)
}
