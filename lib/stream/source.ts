// Streamed response bodies: a Node Readable, or an async iterable of text and bytes turned into one.
import { Readable } from 'node:stream'
import { defineError } from '../errors.js'
import { ignore } from '../maybe-promise.js'

export const ERR_STREAM_BAD_SOURCE = defineError(
  'FW_ERR_STREAM_BAD_SOURCE',
  (what: string) => `res.stream() takes a Readable or an async iterable of string or Uint8Array; got ${what}`,
)

/** What `res.stream()` sends: chunks are strings (sent as UTF-8) or bytes. */
export type StreamSource = Readable | AsyncIterable<string | Uint8Array>

/** Throws `FW_ERR_STREAM_BAD_SOURCE` unless `source` can be streamed. */
export function check_source(source: unknown): StreamSource {
  if (source instanceof Readable) {
    // Nothing listens until the answer is sent, after the middleware chain unwinds: a file that fails to open in the
    // meantime would end the process. Its error stays in `errored`, so the answer is still the 500.
    source.on('error', ignore)
    return source
  }
  if (
    source !== null &&
    typeof source === 'object' &&
    typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  ) {
    return source as AsyncIterable<string | Uint8Array>
  }
  throw ERR_STREAM_BAD_SOURCE(source === null ? 'null' : typeof source)
}

/**
 * A Readable of `source`. Reading pulls the iterable one chunk at a time (backpressure); destroying the Readable (the
 * client went away) calls the iterator's `return()`, so a generator's `finally` runs and nothing is left pending.
 */
export function to_readable(source: StreamSource): Readable {
  // An object-mode Readable may hold any value, which the socket would throw on: its chunks are checked as an
  // iterable's are. A byte stream (a file) goes as it is.
  if (source instanceof Readable && !source.readableObjectMode) return source
  return Readable.from(checked(source))
}

type Chunk = IteratorResult<string | Buffer, unknown>

/**
 * The iterator of `source` with each chunk checked as it comes: an object with `next` and `return`, not an async
 * generator over the source, which cost 380 bytes of heap a chunk (a 10 MB download: 60 KB, 12% of what it allocated).
 * `Readable.from` calls `return()` when it is destroyed; having no `throw()`, it does not throw into the source.
 *
 * The iterator of a web stream or a Readable runs its `return()` only after a read still waiting, so a client leaving
 * while such a source is idle (a proxied `fetch()` body between chunks) would leave it, and the upstream behind it,
 * open: a web stream is read through its own reader, which cancelling ends at once, and a Readable is destroyed first.
 */
function checked(source: AsyncIterable<string | Uint8Array>): AsyncIterableIterator<string | Buffer> {
  let next: () => Promise<IteratorResult<string | Uint8Array, unknown>>
  let close: (value: unknown) => unknown
  if (source instanceof ReadableStream) {
    const reader = (source as ReadableStream<string | Uint8Array>).getReader()
    next = () => reader.read() as Promise<IteratorResult<string | Uint8Array, unknown>>
    close = () => reader.cancel()
  } else {
    const it = source[Symbol.asyncIterator]()
    next = () => it.next()
    close = (value) => {
      if (source instanceof Readable) source.destroy()
      return it.return?.(value)
    }
  }
  return {
    next: () => next().then(checked_chunk),
    return: async (value?: unknown): Promise<Chunk> => {
      await close(value)
      return { done: true, value }
    },
    [Symbol.asyncIterator]() {
      return this
    },
  }
}

/** `r` with its chunk as a string or Buffer; throws `FW_ERR_STREAM_BAD_SOURCE` for any other chunk. */
function checked_chunk(r: IteratorResult<string | Uint8Array, unknown>): Chunk {
  if (r.done === true) return r
  const chunk: unknown = r.value
  if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) return r as Chunk
  if (chunk instanceof Uint8Array)
    return { done: false, value: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) }
  throw ERR_STREAM_BAD_SOURCE(`a chunk of type ${chunk === null ? 'null' : typeof chunk}`)
}
