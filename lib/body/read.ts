// Reading a body stream under a byte limit: whole into a Buffer, or passed through with the limit counted.
import { Transform, type Readable } from 'node:stream'
import { ERR_BODY_TOO_LARGE } from './errors.js'

/** The declared `Content-Length` when it exceeds `limit` (the body need not be read to refuse it), else false. */
export function declared_too_large(content_length: string | undefined, limit: number): boolean {
  return content_length !== undefined && Number(content_length) > limit
}

/**
 * Reads `source` whole. Rejects with `FW_ERR_BODY_TOO_LARGE` as soon as the bytes received exceed `limit` (the rest is
 * left unread), and with the stream's own error when the client goes away.
 */
export function read_all(source: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (err: unknown, value?: Buffer): void => {
      source.off('data', on_data).off('end', on_end).off('error', on_error)
      if (err === undefined) resolve(value!)
      else reject(err)
    }
    const on_data = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        source.pause()
        done(ERR_BODY_TOO_LARGE(limit))
        return
      }
      chunks.push(chunk)
    }
    const on_end = (): void => done(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    const on_error = (err: unknown): void => done(err)
    source.on('data', on_data).on('end', on_end).on('error', on_error)
  })
}

/** `source` passed through, failing with `FW_ERR_BODY_TOO_LARGE` once more than `limit` bytes have gone by. */
export function limited(source: Readable, limit: number): Readable {
  let size = 0
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length
      cb(size > limit ? ERR_BODY_TOO_LARGE(limit) : null, chunk)
    },
  })
  // The client going away (ECONNRESET, aborted) fails the reader rather than leaving it waiting.
  const on_error = (err: Error): void => void counter.destroy(err)
  source.on('error', on_error)
  counter.once('close', () => {
    source.off('error', on_error)
    source.unpipe(counter)
  })
  return source.pipe(counter)
}
