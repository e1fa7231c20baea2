// Streamed responses: `res.stream()` bodies and server-sent events, opened by the adapter when it commits the answer.
import { pipeline, type Readable, type Transform } from 'node:stream'
import { sse_readable, type SseProducer } from './sse.js'
import { to_readable, type StreamSource } from './source.js'

export { check_source, ERR_STREAM_BAD_SOURCE, to_readable, type StreamSource } from './source.js'
export { OpenStreams } from './open.js'
export {
  end_sse,
  ERR_STREAM_BAD_EVENT,
  format_event,
  sse_readable,
  type Every,
  type SseEvent,
  type SseOptions,
  type SseProducer,
  type SseSink,
} from './sse.js'

/** A streamed body kept by a Response until it is committed. */
export type StreamedBody =
  | { readonly kind: 'stream'; readonly source: StreamSource; readonly inner?: StreamedBody }
  | { readonly kind: 'sse'; readonly producer: SseProducer; readonly heartbeat_ms: number }

/** The Readable to send for `body`; an SSE producer starts now. */
export function open_body(body: StreamedBody, last_event_id: string | undefined): Readable {
  return body.kind === 'stream'
    ? to_readable(body.source)
    : sse_readable(body.producer, last_event_id, body.heartbeat_ms)
}

/** Lets go of a body that will not be sent (a HEAD request, or a handler that failed after choosing it). */
export function discard_body(body: StreamedBody): void {
  // An encoded body (compression) has not opened the body it wraps: that one holds what must be let go.
  if (body.kind === 'stream' && body.inner !== undefined) return discard_body(body.inner)
  if (body.kind === 'stream' && typeof (body.source as Readable).destroy === 'function')
    (body.source as Readable).destroy()
}

/**
 * `body` sent through `transform` (a compressor): a stream body whose source opens `body` only when it is read, so an
 * SSE producer still starts when the answer is sent, and a body never sent opens nothing. The client going away
 * destroys the whole pipeline, source included.
 */
export function encoded_body(
  body: StreamedBody,
  last_event_id: string | undefined,
  transform: () => Transform,
): StreamedBody {
  return { kind: 'stream', source: opened_through(body, last_event_id, transform), inner: body }
}

async function* opened_through(
  body: StreamedBody,
  last_event_id: string | undefined,
  transform: () => Transform,
): AsyncGenerator<Buffer> {
  const out = pipeline(open_body(body, last_event_id), transform(), () => {
    // An error reaches the reader through the transform's own iteration below.
  })
  yield* out as AsyncIterable<Buffer>
}
