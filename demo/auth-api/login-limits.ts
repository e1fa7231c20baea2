// Production mode's limits on login attempts (one count per client address, one per email) and on registrations (per
// client address), on the security module's rate limit.
import { createHash } from 'node:crypto'
import { adapt_ctx, type Ctx, type CtxMiddleware, type Middleware } from '../../index.js'
import { rate_limit, type RateLimitStore } from '../../lib/middleware/security/index.js'
import { normalise_email } from './bodies.js'
import type { AuthApiConfig } from './options.js'

/** The login body's email as validation will see it ('' when there is none). */
function email_of(ctx: Ctx): string {
  return normalise_email(ctx.req.json().value('email', ''))
}

/** The per-email counting key: a digest of the email, so no address sits in the store in clear. */
function email_key(ctx: Ctx): string {
  return 'email:' + createHash('sha256').update(email_of(ctx)).digest('base64url').slice(0, 22)
}

/** Counts only requests that name an email; the rest are left to the per-address limit (and to validation). */
function per_email(limit: CtxMiddleware): CtxMiddleware {
  return function login_limit_per_email(ctx, next) {
    return email_of(ctx) === '' ? next() : limit(ctx, next)
  }
}

/** What every limit here shares: the clock, and the store when one is given. */
function shared_of(config: AuthApiConfig): { now: () => number; store?: RateLimitStore } {
  return {
    now: config.now,
    ...(config.rate_limit_store === undefined ? {} : { store: config.rate_limit_store }),
  }
}

/**
 * The middleware that limits `POST /auth/login`: per client address first, then per email (trimmed, lowercased), each
 * answering 429 `rate_limit_exceeded` with `Retry-After`. Every attempt counts, successful or not.
 */
export function login_limits(config: AuthApiConfig): Middleware[] {
  const shared = shared_of(config)
  return [
    adapt_ctx(rate_limit({ ...config.login_limit_per_ip, key: 'ip', namespace: 'auth-login-ip', ...shared })),
    adapt_ctx(
      per_email(
        rate_limit({ ...config.login_limit_per_email, key_fn: email_key, namespace: 'auth-login-email', ...shared }),
      ),
    ),
  ]
}

/**
 * The middleware that limits `POST /auth/register` per client address, answering 429 `rate_limit_exceeded` with
 * `Retry-After`: it bounds how many emails one address can probe (409 `email_taken` says which are registered) and how
 * many accounts it can create. Every attempt counts, valid or not.
 */
export function register_limit(config: AuthApiConfig): Middleware {
  return adapt_ctx(
    rate_limit({ ...config.register_limit_per_ip, key: 'ip', namespace: 'auth-register-ip', ...shared_of(config) }),
  )
}
