// Development presets of the security middleware, ready for `app.use`.
import { adapt_ctx, type Middleware } from '../../compose.js'
import { cors } from '../security/cors.js'
import { csrf } from '../security/csrf.js'
import { security_headers } from '../security/headers.js'
import { rate_limit } from '../security/rate-limit.js'

/** The origin of a local front-end dev server, which `cors_dev` allows. */
export const DEV_ORIGIN = 'http://localhost:5173'

/**
 * CORS for development: the front-end dev server's origin (or the ones given), credentials allowed.
 * @example
 * app.use('/api', fw.middleware.app.cors_dev())
 */
export function cors_dev(origins: readonly string[] = [DEV_ORIGIN]): Middleware {
  return adapt_ctx(cors({ origins, allow_credentials: true }))
}

/**
 * CSRF with the defaults: cookie `csrf_token` (not Secure, SameSite=Lax), header `x-csrf-token`, form field `_csrf`.
 * @example
 * app.use(fw.middleware.app.csrf_dev())
 */
export function csrf_dev(): Middleware {
  return adapt_ctx(csrf())
}

/**
 * Security headers for development: the defaults without HSTS or a CSP (development runs over plain HTTP, where the
 * default CSP's `upgrade-insecure-requests` would send the page's own requests to an HTTPS port nobody serves).
 * @example
 * app.use(fw.middleware.app.security_headers_dev())
 */
export function security_headers_dev(): Middleware {
  return adapt_ctx(security_headers({ hsts: false, csp: false }))
}

/**
 * Rate limit for development: 60 requests per 60 seconds per client address.
 * @example
 * app.use('/api', fw.middleware.app.rate_limit_dev())
 */
export function rate_limit_dev(): Middleware {
  return adapt_ctx(rate_limit({ max_requests: 60, window_seconds: 60 }))
}
