// Production mode's limits on login attempts: one count per client address, one per email, on the security module's
// rate limit.
import { createHash } from 'node:crypto'
import { adapt_ctx, type Ctx, type CtxMiddleware, type Middleware } from '../../index.js'
import { rate_limit } from '../../lib/middleware/security/index.js'
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

/**
 * The middleware that limits `POST /auth/login`: per client address first, then per email (trimmed, lowercased), each
 * answering 429 `rate_limit_exceeded` with `Retry-After`. Every attempt counts, successful or not.
 */
export function login_limits(config: AuthApiConfig): Middleware[] {
  const shared = {
    now: config.now,
    ...(config.rate_limit_store === undefined ? {} : { store: config.rate_limit_store }),
  }
  return [
    adapt_ctx(rate_limit({ ...config.login_limit_per_ip, key: 'ip', namespace: 'auth-login-ip', ...shared })),
    adapt_ctx(
      per_email(
        rate_limit({ ...config.login_limit_per_email, key_fn: email_key, namespace: 'auth-login-email', ...shared }),
      ),
    ),
  ]
}
