// The coded errors of fw/redis: bad options at creation, and a Redis that cannot answer (503) or refuses a command.
import { defineError, store_unavailable } from '../errors.js'
import { define_bad_option } from '../options.js'

/** A bad option of a Redis store or connection. */
export const ERR_REDIS_BAD_OPTION = define_bad_option('REDIS')

/**
 * Redis did not answer in time, the connection is down, or the server is not ready (loading, read-only replica). A
 * `StoreUnavailable` (status 503): the middleware turns it into `session_store_unavailable`, `rate_limit_unavailable` or
 * a cache bypass.
 */
export const ERR_REDIS_UNAVAILABLE = defineError(
  'FW_ERR_REDIS_UNAVAILABLE',
  (store: string, operation: string, reason: string) => `${store}.${operation}: Redis is unavailable (${reason})`,
  503,
  store_unavailable,
)

/** Redis answered with an error that retrying will not fix (a key of another type, a script error). */
export const ERR_REDIS_COMMAND_FAILED = defineError(
  'FW_ERR_REDIS_COMMAND_FAILED',
  (store: string, operation: string, reason: string) => `${store}.${operation}: Redis refused the command (${reason})`,
)
