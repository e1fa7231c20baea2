// Streamed response bodies: a Node Readable, or an async iterable of text and bytes turned into one.
import { Readable } from 'node:stream'
import { defineError } from '../errors.js'

export const ERR_STREAM_BAD_SOURCE = defineError(
  'FW_ERR_STREAM_BAD_SOURCE',
  (what: string) => `res.stream() takes a Readable or an async iterable of string or Uint8Array; got ${what}`,
)

/** What `res.stream()` sends: chunks are strings (sent as UTF-8) or bytes. */
export type StreamSource = Readable | AsyncIterable<string | Uint8Array>

/** Throws `FW_ERR_STREAM_BAD_SOURCE` unless `source` can be streamed. */
export function check_source(source: unknown): StreamSource {
  if (source instanceof Readable) return source
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
  if (source instanceof Readable) return source
  return Readable.from(chunks(source))
}

async function* chunks(source: AsyncIterable<string | Uint8Array>): AsyncGenerator<string | Buffer> {
  for await (const chunk of source) {
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) yield chunk
    else if (chunk instanceof Uint8Array) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    else throw ERR_STREAM_BAD_SOURCE(`a chunk of type ${chunk === null ? 'null' : typeof chunk}`)
  }
}
