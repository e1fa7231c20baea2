// Committing a buffered Response to Fastify's reply: status, headers, then the body, a file or a stream. A streamed
// answer (the Response's stream or SSE producer) becomes a Readable that Fastify pipes to the socket: Fastify destroys
// it when the client goes away, answers an error before the first byte through the error handler (500 JSON), and after
// it cuts the connection and logs the error. A file goes as `@fastify/send`'s stream, held to its Content-Length, and
// fails the same way. Open SSE answers are ended when the server closes.
import { ReadStream, type Stats } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, Server } from 'node:http'
import { constants as h2, type ServerHttp2Stream } from 'node:http2'
import { Readable } from 'node:stream'
import { basename, dirname } from 'node:path'
import type * as FastifySend from '@fastify/send'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CODE_NOT_FOUND } from '../lib/app.js'
import { error_body } from '../lib/http-error.js'
import { http_date, imf_fixdate } from '../lib/http-token.js'
import { lazy } from '../lib/lazy.js'
import type { LogCore } from '../lib/log/core.js'
import { logf_in } from '../lib/log/logger.js'
import { is_thenable } from '../lib/maybe-promise.js'
import { observed, report } from '../lib/observability/events.js'
import { CODE_PRECONDITION_FAILED, CODE_RANGE_NOT_SATISFIABLE, type Response } from '../lib/response.js'
import { discard_body, held_to_length, open_body, OpenStreams, type StreamedBody } from '../lib/stream/index.js'
import {
  MISMATCH_LOGGER,
  MISMATCH_MESSAGE,
  mismatch_pairs,
  type ResponseCheck,
  type ResponseMismatch,
} from '../lib/validation/response-check.js'
import { body_left_unread } from './body.js'
import { context_of, log_failure } from './request-lines.js'

/** Sends the buffered response; a stream that fails after its first byte is logged through the App's `log`. */
export function commit(
  reply: FastifyReply,
  res: Response,
  log: LogCore | undefined,
): FastifyReply | Promise<FastifyReply> {
  // Every 401 and 403 fw answers is sent from here: the one place auth refusals are counted by code for metrics.
  if (res.refused !== undefined && observed()) report({ kind: 'auth_refused', code: res.refused })
  reply.code(res.status_code)
  // Header by header, as reply.headers() does, without the array of names it makes for every response.
  const headers = res.headers()
  for (const name in headers) reply.header(name, headers[name])
  // The framing is the host's: a Transfer-Encoding a handler sets would go out beside the Content-Length Fastify gives a
  // buffered body (RFC 9112 6.1 forbids both), its chunks read as body by a client that trusts the length.
  if (headers['transfer-encoding'] !== undefined) reply.removeHeader('transfer-encoding')
  if (reply.request.raw.httpVersionMajor === 2) drop_connection_specific(reply, headers)
  else if (body_left_unread(reply.request)) reply.header('connection', 'close')
  if (res.kind === 'file') return send_file(reply, res.payload as string, log)
  if (res.streamed !== undefined) {
    // Its length is unknown until it ends, so it goes out chunked (a HEAD with no length): a Content-Length a handler
    // set would frame it, and one that lies would run the rest of the body into the next answer on the connection.
    if (headers['content-length'] !== undefined) reply.removeHeader('content-length')
    return send_streamed(reply, res.streamed, log)
  }
  if (res.status_code !== 304) return reply.send(res.payload)
  // A 304 carries no body (Node sends none), and Fastify would give an empty one `Content-Length: 0`, which RFC 9110 8.6
  // allows only when the 200 it stands for is empty too. Nor a Content-Type: representation metadata a 304 should not
  // carry (RFC 9110 15.4.5), and the client's stored answer has its own (Express drops it too).
  reply.removeHeader('content-type')
  return reply.send(undefined)
}

/** The HTTP/1 connection-specific fields other than Transfer-Encoding, which RFC 9113 8.2.2 forbids in HTTP/2. */
const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te']

/**
 * Leaves out of an HTTP/2 answer the connection-specific fields a handler set: Node refuses to send them, and throws
 * again from Fastify's error handler, out of the process.
 */
function drop_connection_specific(reply: FastifyReply, headers: Readonly<Record<string, unknown>>): void {
  for (const name of CONNECTION_SPECIFIC) if (headers[name] !== undefined) reply.removeHeader(name)
}

/**
 * The `onSend` hook of the HEAD route fw registers beside each GET route, in place of Fastify's automatic one, which
 * gives a 204 or 304 without a body `Content-Length: 0` (RFC 9110 8.6 forbids it on a 204, and allows it on a 304 only
 * for an empty representation): the GET route's answer without its body, with the length the body would have had.
 */
export function head_on_send(
  _freq: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: null, payload: null) => void,
): void {
  const status = reply.statusCode
  const length_allowed = status >= 200 && status !== 204 && status !== 304
  if (payload === undefined || payload === null) {
    if (length_allowed) reply.header('content-length', '0')
  } else if (typeof (payload as Readable).resume === 'function') {
    // A stream is drained unsent; its failure is nobody's to hear.
    ;(payload as Readable).on('error', () => {}).resume()
  } else if (length_allowed) reply.header('content-length', String(Buffer.byteLength(payload as string | Buffer)))
  done(null, null)
}

/** How a route's answers are committed: `commit` itself, or `checked_commit` of its response check. */
export type Commit = (
  reply: FastifyReply,
  res: Response,
  log: LogCore | undefined,
  freq: FastifyRequest,
) => FastifyReply | Promise<FastifyReply>

/**
 * `commit` after the route's response check (`check_responses`): an answer contradicting its declared schema goes out
 * as the 500 the check put in its place, after one line at `error` for the request.
 */
export function checked_commit(check: ResponseCheck): Commit {
  const send = (reply: FastifyReply, res: Response, log: LogCore | undefined, freq: FastifyRequest) => {
    const mismatch = check(res)
    if (is_thenable(mismatch)) return Promise.resolve(mismatch).then((m) => sent(m, reply, res, log, freq))
    return sent(mismatch, reply, res, log, freq)
  }
  return send
}

function sent(
  mismatch: ResponseMismatch | undefined,
  reply: FastifyReply,
  res: Response,
  log: LogCore | undefined,
  freq: FastifyRequest,
): FastifyReply | Promise<FastifyReply> {
  if (mismatch !== undefined)
    logf_in(context_of(freq, log), MISMATCH_LOGGER, 'error', MISMATCH_MESSAGE, mismatch_pairs(mismatch))
  return commit(reply, res, log)
}

/**
 * What a bound handler hands Fastify: nothing once the reply has gone out, else what is still running (a file being
 * opened, a stream being piped). A reply already sent is a thenable that Fastify and a resolving promise would each
 * wait on for nothing; one not yet sent must be waited on, or Fastify would answer the handler's `undefined` over the
 * stream.
 */
export function pending(sent: FastifyReply | Promise<FastifyReply>): FastifyReply | Promise<FastifyReply> | undefined {
  // `instanceof Promise`, not `is_thenable`: a FastifyReply is itself a thenable, and fw's own commit gives only native
  // promises.
  return sent instanceof Promise || !sent.sent ? sent : undefined
}

/** Answers in fw's error shape (`{ok:false, error, message}`) straight on the reply, for failures outside a chain. */
export function send_error(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  // The error body goes out as it is: a Content-Encoding set for the body it replaces (a compressed stream that failed
  // before its first byte) would make it undecodable.
  reply.removeHeader('content-encoding')
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(error_body(code, message)))
}

/**
 * `@fastify/send` (ETags, ranges, conditional requests, content types), loaded by the first file an app sends: a
 * Fastify plugin such as `@fastify/static` would have to be registered before the server starts, in every app.
 */
const file_sender = lazy<typeof FastifySend>('@fastify/send')

async function send_file(reply: FastifyReply, path: string, log: LogCore | undefined): Promise<FastifyReply> {
  const st = await stat(path).catch(() => undefined)
  if (!st?.isFile()) {
    reply.removeHeader('cache-control')
    return send_error(reply, 404, CODE_NOT_FOUND, 'File not found')
  }
  // `send` decodes the path it is given, so the file's name goes in encoded; its folder is the root.
  const options = { root: dirname(path), cacheControl: !reply.hasHeader('cache-control'), dotfiles: 'allow' as const }
  // Under a status the handler set (a 404 page, a 201) the file is a plain body, not the representation conditional and
  // Range requests are about: `send` sees none of their headers, and the answer has no validators or Accept-Ranges.
  const own_status = reply.statusCode !== 200
  const sent = await file_sender()
    .send(
      own_status ? plain_request(reply.request.raw) : strict_request(reply.request.raw, st),
      encodeURI(basename(path)),
      own_status ? { ...options, ...PLAIN_FILE } : options,
    )
    .catch((err: Error) => err)
  if (sent instanceof Error) return reply.send(sent)
  if (sent.type === 'file') {
    // The file's bytes (a HEAD or 304 has none) must fill the Content-Length, or the answer fails as a stream failing
    // after its first byte does.
    const body =
      sent.stream instanceof ReadStream
        ? fail_late(reply, held_to_length(sent.stream, Number(sent.headers['Content-Length'])), log)
        : sent.stream
    // A status the handler set (other than 200) is kept; else send's own (200, 206, 304, 412, 416).
    return reply
      .code(own_status ? reply.statusCode : sent.statusCode)
      .headers(sent.headers)
      .send(body)
  }
  const error: SendError | undefined = sent.type === 'error' ? sent.metadata.error : undefined
  // The file went away (or became a folder) after the stat: the app's not-found answer, as for any unknown path.
  if (error === undefined || error.status === 404) {
    reply.callNotFound()
    return reply
  }
  // The Cache-Control was meant for the file: on this error body it would let a shared cache keep the 412 or 416 and
  // give it to every client, as the missing file's 404 above drops it. A 416 keeps the Content-Range that tells the
  // file's length. The 412 has the `etag` middleware's code; any other refusal goes to the error handler (4xx
  // bad_request).
  reply.removeHeader('cache-control')
  if (error.headers !== undefined) reply.headers(error.headers)
  if (error.status === 412) return send_error(reply, 412, CODE_PRECONDITION_FAILED, 'Precondition failed')
  if (error.status === 416) return send_error(reply, 416, CODE_RANGE_NOT_SATISFIABLE, 'Range not satisfiable')
  return reply.send(error)
}

/** `send`'s options for a file sent as a plain body: no ETag, Last-Modified or Accept-Ranges. */
const PLAIN_FILE = { etag: false, lastModified: false, acceptRanges: false }

/** The request as `send` reads it (method and headers) without its conditional and Range headers. */
function plain_request(raw: IncomingMessage): IncomingMessage {
  return { method: raw.method, headers: {} } as IncomingMessage
}

/**
 * The request as `send` reads it, with the preconditions it evaluates more leniently than RFC 9110 13 adjusted; the
 * request itself when it has neither If-Match, a Range with If-Range or on a HEAD (`send` answers that 206), nor a date
 * other than an IMF-fixdate. `send`'s ETag is always weak (`W/"size-mtime"`), and If-Match and If-Range compare entity
 * tags strongly (13.1.1, 13.1.5), so no tag they list matches it: If-Match other than `*` fails (412), and an If-Range
 * tag sends the whole file. An If-Range date applies the Range only when it is the Last-Modified (`send` takes any
 * later date too). With If-Match, If-Unmodified-Since is not evaluated (13.2.2). An If-Modified-Since or
 * If-Unmodified-Since that is no HTTP-date is ignored (13.1.3, 13.1.4; `send` reads it with `Date.parse`, which takes
 * `1` for 2001), one of the obsolete forms goes to `send` as an IMF-fixdate (it would read asctime in the local zone),
 * as http_cache reads them.
 */
function strict_request(raw: IncomingMessage, st: Stats): IncomingMessage {
  const h = raw.headers
  // As `send`, an empty If-Match is no precondition.
  const if_match = h['if-match']
  // An If-Range is settled here: `send` sees neither it nor the Range when it does not apply, else its date as an
  // IMF-fixdate (checked again against the file `send` opens).
  // A Range applies to GET only (RFC 9110 14.2): a HEAD's answer is the whole file's, as its GET without one would be.
  const head_range = h.range !== undefined && raw.method !== 'GET'
  const if_range = !head_range && h.range !== undefined && h['if-range'] !== undefined
  const stale_range = if_range && !range_fresh(h['if-range']!, st)
  const since = h['if-modified-since']
  const since_sent = since === undefined ? undefined : imf_fixdate(since)
  const until = if_match ? undefined : h['if-unmodified-since']
  const until_sent = until === undefined ? undefined : imf_fixdate(until)
  if (!if_match && !if_range && !head_range && since_sent === since && until_sent === until) return raw
  const headers = { ...h }
  set_date(headers, 'if-modified-since', since_sent)
  set_date(headers, 'if-unmodified-since', until_sent)
  if (if_match && if_match.trim() !== '*') headers['if-match'] = NO_TAG
  if (stale_range || head_range) delete headers.range
  if (if_range) set_date(headers, 'if-range', stale_range ? undefined : imf_fixdate(h['if-range'] as string))
  return { method: raw.method, headers } as IncomingMessage
}

/** Sets a date header of the request `send` reads, or removes it (undefined). */
function set_date(headers: IncomingMessage['headers'], name: string, value: string | undefined): void {
  if (value === undefined) delete headers[name]
  else headers[name] = value
}

/** An If-Match `send` finds in no file's answer: the empty tag (its tags always hold the size and mtime). */
const NO_TAG = '""'

/**
 * Whether an If-Range lets the Range apply: an HTTP-date equal to the file's Last-Modified (whole seconds), never a tag.
 */
function range_fresh(if_range: string | string[], st: Stats): boolean {
  return (
    typeof if_range === 'string' &&
    !if_range.includes('"') &&
    http_date(if_range) === Math.floor(st.mtimeMs / 1000) * 1000
  )
}

/** An error `send` answers with (an http-errors error): its status, and headers such as a 416's Content-Range. */
type SendError = Error & { status?: number; headers?: Record<string, string> }

/** The open SSE answers of each server an app is mounted on. */
const open_streams = new WeakMap<Server, OpenStreams>()

/**
 * Ends the SSE answers of `instance`'s server before it stops (at most `grace_ms`), so they end instead of being cut.
 */
export function end_streams_on_close(instance: FastifyInstance, grace_ms: number): void {
  const server = instance.server as Server
  if (open_streams.has(server)) return
  const streams = new OpenStreams()
  open_streams.set(server, streams)
  instance.addHook('preClose', () => streams.end_all(grace_ms))
}

/**
 * Sends a streamed body; a HEAD request gets the headers only and the source is let go unread, as it is for a client
 * already gone.
 */
export function send_streamed(reply: FastifyReply, body: StreamedBody, log: LogCore | undefined): FastifyReply {
  // A client can leave before the answer is sent (a middleware still at work after `next()`): its connection's 'close'
  // came already, so an SSE answer would stay among the open ones for good (app.close() waiting close_timeout_ms for
  // it), its producer started for nobody. Nothing is opened for it.
  if (reply.request.method === 'HEAD' || connection_gone(reply)) {
    discard_body(body)
    // An empty stream rather than no body: the GET's length is unknown (it goes out chunked), so the HEAD hook must not
    // give this answer the `Content-Length: 0` of an empty one (RFC 9110 8.6).
    return reply.send(Readable.from([]))
  }
  const { sent: readable, sse } = open_body(body, last_event_id(reply.request))
  fail_late(reply, readable, log)
  if (sse !== undefined)
    open_streams
      .get(reply.server.server as Server)
      ?.add(sse, new Promise((resolve) => reply.raw.once('close', resolve)))
  return reply.send(readable)
}

/**
 * The `Last-Event-ID` of a reconnecting SSE client. Node joins a repeated one with `, ` into an id the server never
 * sent: the first is taken, as Node does for the single-valued headers it de-duplicates. Only a value holding a comma
 * (one id may too) is looked up among the raw lines.
 */
function last_event_id(freq: FastifyRequest): string | undefined {
  const joined = freq.headers['last-event-id']
  if (typeof joined !== 'string') return undefined
  if (!joined.includes(',')) return joined
  const raw = freq.raw.rawHeaders
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'last-event-id') return raw[i + 1]
  return joined
}

/**
 * Has `sent`, the body of `reply`, fail as a cut answer after its first byte: the error is logged and an HTTP/2 stream
 * reset. Before the first byte Fastify's error handler logs and answers 500; after it, only this line tells what
 * happened, and the answer is cut (Fastify destroys the response next).
 */
function fail_late(reply: FastifyReply, sent: Readable, log: LogCore | undefined): Readable {
  return sent.once('error', (err) => {
    if (!reply.raw.headersSent) return
    log_failure(reply.request, log, 'stream failed after the first byte', err)
    reset_h2(reply)
  })
}

/**
 * Resets the HTTP/2 stream of `reply` with INTERNAL_ERROR, so its client sees a failed answer: the destroy Fastify does
 * on a stream error closes it with NO_ERROR, which a client reads as the whole body. An HTTP/1 answer is left to that
 * destroy, which cuts its connection before the last chunk.
 */
function reset_h2(reply: FastifyReply): void {
  const stream = (reply.raw as { stream?: ServerHttp2Stream }).stream
  if (stream !== undefined && !stream.closed) stream.close(h2.NGHTTP2_INTERNAL_ERROR)
}

/** Whether the client of `reply` went away already: an HTTP/1 response is destroyed, an HTTP/2 one's stream is. */
function connection_gone(reply: FastifyReply): boolean {
  const raw = reply.raw as { destroyed?: boolean; stream?: { destroyed?: boolean } }
  return raw.destroyed === true || raw.stream?.destroyed === true
}
