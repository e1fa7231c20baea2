// The App helpers for rate limiting: `rate_limit(options)` as App middleware, and `use_on_prefix` for a stricter prefix
// limit.
import type { Router } from '../../app.js'
import { adapt_ctx, type Middleware } from '../../compose.js'
import { rate_limit as rate_limit_ctx, type RateLimitOptions } from '../security/rate-limit.js'

/**
 * The rate limit as App middleware (see `fw.middleware.security.rate_limit`).
 * @example
 * app.use(fw.middleware.app.rate_limit({ max_requests: 300, window_seconds: 60 }))
 */
export function rate_limit(options: RateLimitOptions): Middleware {
  return adapt_ctx(rate_limit_ctx(options))
}

/**
 * Applies middleware under a path prefix, as `app.use(prefix, mw)`: a stricter limit there counts in addition to a
 * global one.
 * @example
 * use_on_prefix(app, '/auth', fw.middleware.app.rate_limit({ max_requests: 5, window_seconds: 60 }))
 */
export function use_on_prefix<R extends Router>(app: R, prefix: string, mw: Middleware): R {
  return app.use(prefix, mw)
}
