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
 *
 * `owned`: the chunks `source` emits are buffers made for this read alone (Node's copies of an HTTP/1 request's body
 * bytes). Their memory is then freed once they are joined, or the read fails, rather than at V8's next full collection
 * (see `release`), on every chunk but the one given as the body, unless another `data` listener saw them too.
 */
export function read_whole(source: Readable, limit: number, done: WholeBodyDone, owned = false): void {
  // Where nothing can be freed (Node 20), the chunks are not watched for it either.
  new WholeBody(source, limit, done, owned && CAN_DETACH).start()
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
  #owned: boolean

  constructor(source: Readable, limit: number, done: WholeBodyDone, owned: boolean) {
    this.#source = source
    this.#limit = limit
    this.#done = done
    this.#owned = owned
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
    // A chunk another listener was given may be held there: none of this read's is freed then.
    if (this.#owned && this.#source.listenerCount('data') !== 1) this.#owned = false
    this.#size += chunk.length
    this.#chunks.push(chunk)
    if (this.#size <= this.#limit) return
    this.#source.pause()
    this.#finish(ERR_BODY_TOO_LARGE(this.#limit), undefined)
  }

  #finish(err: Error | null, body: Buffer | undefined): void {
    this.#source.off('data', this.#on_data).off('end', this.#on_end).off('error', this.#on_error)
    if (this.#owned) for (const chunk of this.#chunks) if (chunk !== body) release(chunk)
    // Kept here, the chunks stayed alive for as long as this reader stayed reachable: 1 MiB uploads cost twice the CPU,
    // most of it in garbage collection.
    this.#chunks.length = 0
    this.#done(err, body)
  }
}

/** An `ArrayBuffer` with ES2024's `transfer`, which Node 20's V8 lacks. */
type Detachable = ArrayBuffer & { transfer(length: number): ArrayBuffer }

/** Whether this runtime can detach an `ArrayBuffer` (Node 22 and later): decided once, at load. */
const CAN_DETACH = typeof (ArrayBuffer.prototype as Partial<Detachable>).transfer === 'function'

/**
 * Frees the memory of `chunk` now, when it spans a whole `ArrayBuffer` (never a slice of a shared one, such as
 * Node's pool) and the runtime can detach one (`ArrayBuffer.prototype.transfer`, Node 22 and later; elsewhere it is
 * left to the collector). The chunk reads as empty afterwards. V8 holds such memory outside its heap until a collection
 * finds the buffer dead, and collects in full whenever enough of it has piled up since the last full collection: with
 * 1 MiB uploads, about every 40 uploads, and every 55-60 once their chunks are freed here (bench/notes.ts, 2026-11-29).
 */
export function release(chunk: Buffer): void {
  if (!CAN_DETACH || chunk.byteOffset !== 0 || chunk.buffer.byteLength !== chunk.length) return
  try {
    ;(chunk.buffer as Detachable).transfer(0)
  } catch {
    // Not detachable (a WebAssembly memory's buffer): it stays the collector's.
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
