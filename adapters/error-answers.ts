// Error answers: failures before a chain (body refused, malformed URL), a chain that threw, each in fw's error shape.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ERR_BODY_TOO_LARGE } from '../lib/body/errors.js'
import {
  answer_error,
  clear_for_error,
  CODE_INTERNAL,
  type ErrorMapper,
  type FailureLines,
} from '../lib/error-answer.js'
import { httpCode } from '../lib/errors.js'
import type { LogCore } from '../lib/log/core.js'
import type { Request } from '../lib/request.js'
import type { Response } from '../lib/response.js'
import { commit, send_error, type Commit } from './commit.js'
import { log_failure } from './failure-line.js'
const CODE_TOO_LARGE = httpCode('payload_too_large')
const CODE_BAD_REQUEST = httpCode('bad_request')

/** Answers a request refused before its chain ran with `status`, `code` and `message`. */
export type Refuse = (
  freq: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
) => unknown

/** A refusal answered as is, with no middleware around it (requests no route matched). */
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
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === ERR_BODY_TOO_LARGE.code)
      return refuse(freq, reply, 413, CODE_TOO_LARGE, 'Request body is too large')
    const status = err.statusCode ?? 500
    if (status >= 400 && status < 500) return refuse(freq, reply, status, CODE_BAD_REQUEST, err.message)
    log_failure(freq, log, 'request failed', err)
    return send_error(reply, 500, CODE_INTERNAL, 'Internal Server Error')
  }
}

/** Fastify's `frameworkErrors`: router-level failures (a malformed URL) in the `{ok:false, error, message}` shape. */
export function framework_error(echo_id: boolean) {
  return (err: FastifyError, freq: FastifyRequest, reply: FastifyReply): void => {
    if (echo_id) reply.header('x-request-id', freq.id)
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400
    void send_error(reply, status, CODE_BAD_REQUEST, status === 400 ? 'Bad Request' : err.message)
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
  if (lines instanceof Promise) return lines.then((l) => answered(freq, reply, res, log, l, send))
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
  for (const [message, err] of lines) log_failure(freq, log, message, err)
  return send(reply, res, log, freq)
}
