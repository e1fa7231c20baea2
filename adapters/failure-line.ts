// The error line of a request that failed: under `[fastify]`, with the stack in `err` and the request's context given,
// since a failure often comes after an `await`, where the request's context need not have followed.
import type { FastifyRequest } from 'fastify'
import type { LogCore } from '../lib/log/core.js'
import { logger, with_request } from '../lib/log/index.js'

const fastify_log = logger('fastify')

/**
 * Logs `message` at `error` for the request `freq`, with `rid=` and through its App's log core `log`, whatever runs it.
 * @example
 * log_failure(freq, log, 'handler failed', err)
 */
export function log_failure(freq: FastifyRequest, log: LogCore | undefined, message: string, err: unknown): void {
  with_request(freq.id, freq, log, write_failure, message, err)
}

function write_failure(message: string, err: unknown): void {
  fastify_log.logf('error', message, 'err', err)
}
