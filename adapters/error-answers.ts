// Error answers in fw's `{ok:false, error, message}` shape: failures before a chain (body refused, malformed URL), a
// chain that threw, and requests Node's HTTP parser refuses before Fastify sees them (a malformed request line, bad
// chunking, a duplicate Content-Length, headers too large, a request timeout), and requests a closing App's server
// still receives.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { CODE_UNSUPPORTED_MEDIA_TYPE, ERR_BODY_TOO_LARGE } from '../lib/body/errors.js'
import {
  answer_error,
  clear_for_error,
  CODE_INTERNAL,
  type ErrorMapper,
  type FailureLines,
} from '../lib/error-answer.js'
import { httpCode } from '../lib/errors.js'
import { error_body, status_text } from '../lib/http-error.js'
import type { LogCore } from '../lib/log/core.js'
import { is_thenable } from '../lib/maybe-promise.js'
import { CODE_NOT_READY } from '../lib/observability/errors.js'
import type { Request } from '../lib/request.js'
import type { Response } from '../lib/response.js'
import { commit, send_error, type Commit } from './commit.js'
import { trace_refused } from './observability.js'
import { client_gone, log_failure, request_id } from './request-lines.js'

const CODE_TOO_LARGE = httpCode('payload_too_large')
const CODE_BAD_REQUEST = httpCode('bad_request')
const CODE_HEADERS_TOO_LARGE = httpCode('headers_too_large')
const CODE_TIMEOUT = httpCode('request_timeout')
const CODE_NOT_IMPLEMENTED = httpCode('not_implemented')

/** Answers a request refused before its chain ran with `status`, `code` and `message`. */
export type Refuse = (
  freq: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
) => unknown

/** A refusal answered as is, with no middleware around it (before the App is mounted). */
const plain_refusal: Refuse = (_freq, reply, status, code, message) => send_error(reply, status, code, message)

/**
 * A Fastify error handler for failures raised before the chain (body too large, unreadable body, bad request), which
 * `refuse` answers: a route's own runs its middleware first, so CORS, security headers, rate limits and auth apply to
 * the 4xx as to any answer. Anything else is logged and answered 500. `echo_id` adds the request id, as on every
 * answer.
 */
export function error_handler(echo_id: boolean, log: LogCore | undefined, refuse: Refuse = plain_refusal) {
  return (err: FastifyError, freq: FastifyRequest, reply: FastifyReply): unknown => {
    if (echo_id) reply.header('x-request-id', freq.id)
    // A method the router has no tree for (any token an HTTP/2 client sends) skips the not-found chain and its hooks:
    // Fastify's fallback raises it here, so its span (with `app.tracing()`) starts here, and it is answered as RFC 9110
    // 15.6.2 asks for a method the server does not recognise.
    if (err.code === 'FST_ERR_NOT_FOUND') {
      trace_refused(freq.server, freq, reply)
      return refuse(freq, reply, 501, CODE_NOT_IMPLEMENTED, 'Method not implemented')
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === ERR_BODY_TOO_LARGE.code)
      return refuse(freq, reply, 413, CODE_TOO_LARGE, 'Request body is too large')
    const status = err.statusCode ?? 500
    // A Content-Type the router cannot parse (`;;;`): the code and words of a body reader's refusal of its type.
    if (status === 415) return refuse(freq, reply, 415, CODE_UNSUPPORTED_MEDIA_TYPE, 'Unsupported content type')
    if (status >= 400 && status < 500) return refuse(freq, reply, status, CODE_BAD_REQUEST, err.message)
    if (gone_mid_body(freq, err)) {
      client_gone(freq, log)
      return send_error(reply, 500, CODE_INTERNAL, 'Internal Server Error')
    }
    log_failure(freq, log, 'request failed', err)
    return send_error(reply, 500, CODE_INTERNAL, 'Internal Server Error')
  }
}

/**
 * Fastify's `frameworkErrors`: router-level failures (a malformed URL) in the `{ok:false, error, message}` shape. No
 * hook runs for them, so with `app.tracing()` their span (no route: no `http.route`) is started here; `freq.server` is
 * the root instance, whose requests `tracing()` traces. The App's global middleware runs first, as for its 404 (CORS,
 * security headers, rate limits; one that answers has the last word); it reads the path as sent, which does not
 * throw on a malformed escape. `unmatched` gives the App's refusal of a request no route matched once it is mounted
 * (none before: the answer is sent as it is). A host that mounts the App answers them with its own handler.
 */
export function framework_error(echo_id: boolean, unmatched: () => Refuse | undefined) {
  return (err: FastifyError, freq: FastifyRequest, reply: FastifyReply): void => {
    if (echo_id) reply.header('x-request-id', freq.id)
    trace_refused(freq.server, freq, reply)
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400
    const refuse = unmatched() ?? plain_refusal
    void refuse(freq, reply, status, CODE_BAD_REQUEST, status === 400 ? 'Bad Request' : err.message)
  }
}

/**
 * A handler or middleware threw: the headers about the failed body go (those that middleware set for the exchange,
 * such as CORS, security headers and rate-limit counters, stay), the answer is never cached, and `on_error` (when the
 * request has one) or the error's default answer fills it (see `answer_error`). Server errors are logged with their
 * stack, which the answer never carries.
 */
export function fail(
  freq: FastifyRequest,
  reply: FastifyReply,
  req: Request,
  res: Response,
  err: unknown,
  log: LogCore | undefined,
  on_error: ErrorMapper | undefined,
  send: Commit = commit,
): FastifyReply | Promise<FastifyReply> {
  clear_for_error(res)
  const lines = answer_error(err, req, res, on_error)
  if (is_thenable(lines)) return Promise.resolve(lines).then((l) => answered(freq, reply, res, log, l, send))
  return answered(freq, reply, res, log, lines, send)
}

function answered(
  freq: FastifyRequest,
  reply: FastifyReply,
  res: Response,
  log: LogCore | undefined,
  lines: FailureLines,
  send: Commit,
): FastifyReply | Promise<FastifyReply> {
  // A handler reading a streamed body (stream_body) fails with the reader's ECONNRESET when its client left.
  for (const [message, err] of lines)
    if (gone_mid_body(freq, err)) client_gone(freq, log)
    else log_failure(freq, log, message, err)
  return send(reply, res, log, freq)
}

/**
 * Whether `err` is a body read cut short because its client reset the connection, or because Node cut it for its
 * request timeout (after its own 408): nobody is left to answer, and the server did not fail.
 */
function gone_mid_body(freq: FastifyRequest, err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ECONNRESET' && freq.raw.socket?.destroyed !== false
}

/** The answer for a parser error code: status, `error` code and message. */
export function client_error_answer(code: string | undefined): { status: number; code: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, code: CODE_HEADERS_TOO_LARGE, message: 'Request headers are too large' }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: CODE_TIMEOUT, message: 'Request timeout' }
  return { status: 400, code: CODE_BAD_REQUEST, message: 'Bad Request' }
}

/** Fastify's `clientErrorHandler`: writes the answer on the raw socket and closes it, as Node's own handler does. */
export function client_error(err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  // A reset connection has nobody to answer; a socket that has already sent a response must not get a second one.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  if (!socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true) {
    socket.destroy(err)
    return
  }
  const a = client_error_answer(err.code)
  const body = JSON.stringify(error_body(a.code, a.message))
  socket.end(
    `HTTP/1.1 ${a.status} ${status_text(a.status)}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** The body of `closing_refusal`'s 503, built once. */
const CLOSING_BODY = JSON.stringify(error_body(CODE_NOT_READY, 'Server is closing, retry later'))
const CLOSING_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(CLOSING_BODY)),
}

/**
 * Answers a request the App's server receives once its close stops serving (on a connection still busy then) with 503
 * `not_ready` in fw's shape, where Fastify's `return503OnClosing` answered `{"error":"Service Unavailable",...}`. An
 * HTTP/1.1 connection is closed after it, as Fastify closes it; `echo_id` adds `x-request-id` (a well-formed incoming
 * one, else a new one), as on every answer.
 */
export function closing_refusal(echo_id: boolean): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.httpVersionMajor !== 2) res.setHeader('connection', 'close')
    if (echo_id) res.setHeader('x-request-id', request_id(req))
    res.writeHead(503, CLOSING_HEADERS)
    res.end(CLOSING_BODY)
  }
}
