// Committing a buffered Response to Fastify's reply: status, headers, then the body, a file or a stream.
import { stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { CODE_NOT_FOUND } from '../lib/app.js'
import { error_body } from '../lib/http-error.js'
import type { LogCore } from '../lib/log/core.js'
import { with_request } from '../lib/log/index.js'
import type { Response } from '../lib/response.js'
import { log_mismatch, type ResponseCheck, type ResponseMismatch } from '../lib/validation/response-check.js'
import { send_streamed } from './stream.js'

/** Sends the buffered response; a stream that fails after its first byte is logged through the App's `log`. */
export function commit(
  reply: FastifyReply,
  res: Response,
  log: LogCore | undefined,
): FastifyReply | Promise<FastifyReply> {
  reply.code(res.status_code)
  reply.headers(res.headers())
  if (res.kind === 'file') return send_file(reply, res.payload as string)
  if (res.streamed !== undefined) return send_streamed(reply, res.streamed, log)
  return reply.send(res.payload)
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
    if (mismatch instanceof Promise) return mismatch.then((m) => sent(m, reply, res, log, freq))
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
  if (mismatch !== undefined) with_request(freq.id, freq, log, log_mismatch, mismatch)
  return commit(reply, res, log)
}

/**
 * What a bound handler hands Fastify: nothing once the reply has gone out, else what is still running (a file being
 * opened, a stream being piped). A reply already sent is a thenable that Fastify and a resolving promise would each
 * wait on for nothing; one not yet sent must be waited on, or Fastify would answer the handler's `undefined` over the
 * stream.
 */
export function pending(sent: FastifyReply | Promise<FastifyReply>): FastifyReply | Promise<FastifyReply> | undefined {
  return sent instanceof Promise || !sent.sent ? sent : undefined
}

/** Answers in fw's error shape (`{ok:false, error, message}`) straight on the reply, for failures outside a chain. */
export function send_error(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(error_body(code, message)))
}

async function send_file(reply: FastifyReply, path: string): Promise<FastifyReply> {
  const st = await stat(path).catch(() => undefined)
  if (!st?.isFile()) {
    reply.removeHeader('cache-control')
    return send_error(reply, 404, CODE_NOT_FOUND, 'File not found')
  }
  const has_cache_control = reply.hasHeader('cache-control')
  return reply.sendFile(basename(path), dirname(path), { cacheControl: !has_cache_control, dotfiles: 'allow' })
}
