// The error line of a request that failed: under `[fastify]`, with the stack in `err` and the request's context given,
// since a failure often comes after an `await`, where the request's context need not have followed.
import type { FastifyRequest } from 'fastify'
import { request_context } from '../lib/log/context.js'
import type { LogCore } from '../lib/log/core.js'
import { logf_in } from '../lib/log/logger.js'

/**
 * Logs `message` at `error` for the request `freq`, with `rid=` and through its App's log core `log`, whatever runs it.
 * @example
 * log_failure(freq, log, 'handler failed', err)
 */
export function log_failure(freq: FastifyRequest, log: LogCore | undefined, message: string, err: unknown): void {
  logf_in(request_context(freq.id, freq, log), 'fastify', 'error', message, ['err', err])
}
