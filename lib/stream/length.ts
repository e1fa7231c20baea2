// A byte stream held to the length its answer declared. A file that shrinks while it is sent (a log rotated, truncated)
// ends early without an error (`fs.ReadStream` reads the short file as its end), and an answer ending short of its
// Content-Length would look complete to a client that does not count (an HTTP/2 stream ended with END_STREAM).
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream'
import { ignore } from '../maybe-promise.js'

/**
 * `source` passed on as it is, failing at its end when it gave fewer than `length` bytes, as with a read error: the
 * answer is cut rather than ended. An error of `source` is the result's; destroying the result destroys `source`.
 */
export function held_to_length(source: Readable, length: number): Readable {
  return pipeline(source, new LengthCheck(length), ignore)
}

/** Counts the bytes going through; its end fails when fewer came than declared. */
class LengthCheck extends Transform {
  readonly #length: number
  #sent = 0

  constructor(length: number) {
    super()
    this.#length = length
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#sent += chunk.length
    done(null, chunk)
  }

  override _flush(done: TransformCallback): void {
    if (this.#sent < this.#length)
      return done(new Error(`the file ended after ${this.#sent} of ${this.#length} bytes: it shrank while it was sent`))
    done()
  }
}
