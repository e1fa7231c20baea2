// The SSE answers a server is sending. An SSE producer usually never returns, so without this a closing App would hold
// each connection until close_timeout_ms and then cut it; with it, each stream gets its end first and its client sees a
// complete answer, as a WebSocket gets its 1001 close.
import type { Readable } from 'node:stream'
import { within } from '../maybe-promise.js'
import { end_sse } from './sse.js'

/** The open SSE answers of one server, ended together when it closes. */
export class OpenStreams {
  readonly #open = new Map<Readable, Promise<void>>()

  /** How many answers are open. */
  get size(): number {
    return this.#open.size
  }

  /** Tracks `stream` until `sent` settles (its answer was written out, or its connection closed). */
  add(stream: Readable, sent: Promise<void>): void {
    this.#open.set(
      stream,
      sent.then(
        () => void this.#open.delete(stream),
        () => void this.#open.delete(stream),
      ),
    )
  }

  /**
   * Ends every open SSE answer; resolves once each one was sent, or after `grace_ms` (the App then cuts what is left).
   */
  async end_all(grace_ms: number): Promise<void> {
    if (this.#open.size === 0) return
    const sent = [...this.#open.values()]
    for (const stream of this.#open.keys()) end_sse(stream)
    await within(Promise.all(sent), grace_ms, undefined)
  }
}
