// Streamed responses: `res.stream()` bodies and server-sent events, opened by the adapter when it commits the answer.
import { pipeline, Readable, type Transform } from 'node:stream'
import { sse_readable, type SseProducer } from './sse.js'
import { to_readable, type StreamSource } from './source.js'
import { ignore } from '../maybe-promise.js'

export { check_source, ERR_STREAM_BAD_SOURCE, to_readable, type StreamSource } from './source.js'
export { held_to_length } from './length.js'
export { OpenStreams } from './open.js'
export {
  end_sse,
  ERR_STREAM_BAD_EVENT,
  ERR_STREAM_CLOSED,
  format_event,
  sse_readable,
  type Every,
  type SseEvent,
  type SseOptions,
  type SseProducer,
  type SseSink,
} from './sse.js'

/**
 * A streamed body kept by a Response until it is committed: a source, an SSE producer, or either sent through a
 * transform (compression), which opens nothing before the answer is sent.
 */
export type StreamedBody =
  | { readonly kind: 'stream'; readonly source: StreamSource }
  | { readonly kind: 'sse'; readonly producer: SseProducer; readonly heartbeat_ms: number }
  | { readonly kind: 'encoded'; readonly inner: StreamedBody; readonly transform: () => Transform }

/** A body opened for sending: the Readable sent, and the SSE answer it carries (itself, or inside an encoding). */
export interface OpenedBody {
  readonly sent: Readable
  readonly sse: Readable | undefined
}

/** The Readable to send for `body`, with the SSE answer in it for the server to end when it closes; a producer starts now. */
export function open_body(body: StreamedBody, last_event_id: string | undefined): OpenedBody {
  if (body.kind === 'stream') return { sent: to_readable(body.source), sse: undefined }
  if (body.kind === 'sse') {
    const sse = sse_readable(body.producer, last_event_id, body.heartbeat_ms)
    return { sent: sse, sse }
  }
  const opened = open_body(body.inner, last_event_id)
  // The transform is what is sent. Destroying it (the client went away) fails the pipeline, which destroys the opened
  // body too: an SSE producer's signal fires at once. An error reaches the reader as the transform's own.
  return { sent: pipeline(opened.sent, body.transform(), ignore), sse: opened.sse }
}

/** Lets go of a body that will not be sent (a HEAD request, or a handler that replaced it): nothing was opened. */
export function discard_body(body: StreamedBody): void {
  if (body.kind === 'encoded') return discard_body(body.inner)
  if (body.kind === 'stream') close_source(body.source)
}

/**
 * Closes a source never read: a Readable is destroyed, a web ReadableStream cancelled, an async iterable's iterator
 * returned (a generator's `finally` runs). A source that refuses (a locked stream, a rejecting `return()`) is let be.
 */
function close_source(source: StreamSource): void {
  try {
    if (source instanceof Readable) return void source.destroy()
    if (source instanceof ReadableStream) return void source.cancel().catch(ignore)
    void source[Symbol.asyncIterator]().return?.()?.catch(ignore)
  } catch {
    // A source whose iterator cannot be made holds nothing this could close.
  }
}

/**
 * `body` sent through `transform` (a compressor), opened only when the answer is sent: an SSE producer still starts
 * then, and a body never sent opens nothing.
 */
export function encoded_body(body: StreamedBody, transform: () => Transform): StreamedBody {
  return { kind: 'encoded', inner: body, transform }
}
