// Development presets of the authentication middleware, ready for `app.use`, and a token signer for demos and tests.
import { randomBytes } from 'node:crypto'
import { adapt_ctx, type Middleware } from '../../compose.js'
import { api_key } from '../auth/api-key.js'
import { fast_jwt, jwt_allowing_weak_secret } from '../auth/jwt.js'
import { option_checker } from '../../options.js'
import { session_allowing_weak_secret } from '../auth/session.js'
import { ERR_AUTH_BAD_OPTION } from '../auth/errors.js'

const check = option_checker(ERR_AUTH_BAD_OPTION, 'sign_dev_token')

/**
 * API key authentication for development: the one key, from header `x-api-key` or query parameter `api_key`.
 * @example
 * app.use('/secure', fw.middleware.app.api_key_dev(process.env.FW_API_KEY!))
 */
export function api_key_dev(key: string): Middleware {
  return adapt_ctx(api_key({ allowed_keys: [key], query_param: 'api_key' }))
}

/**
 * Bearer JWT (HS256) for development: expiry is not checked, so long-lived demonstration tokens keep working, and a
 * secret shorter than the 32 bytes HS256 needs is accepted with a warning (`FW_ERR_AUTH_WEAK_SECRET`) at startup.
 * @example
 * app.use('/secure', fw.middleware.app.jwt_dev(process.env.FW_JWT_SECRET!))
 */
export function jwt_dev(secret: string): Middleware {
  return adapt_ctx(jwt_allowing_weak_secret({ secret, verify_exp: false }, 'jwt_dev'))
}

/**
 * Sessions with the defaults (in-memory store, cookie `sid`, not Secure, 7 days). Without a secret a random one is
 * made, so sessions end when the process restarts; a secret shorter than the 32 characters `session` needs is accepted
 * with a warning (`FW_ERR_AUTH_WEAK_SECRET`) at startup.
 * @example
 * app.use('/session', fw.middleware.app.session_dev(process.env.FW_SESSION_SECRET))
 */
export function session_dev(secret: string = randomBytes(32).toString('base64url')): Middleware {
  return adapt_ctx(session_allowing_weak_secret({ secret }, 'session_dev'))
}

/**
 * Signs an HS256 token for demos and tests; `claims` is the payload (`sub`, `roles`, `perms`, `exp`...), `iat` is
 * added.
 * @example
 * const token = sign_dev_token(secret, { sub: 'ada', roles: ['admin'], perms: ['products:write'] })
 */
export function sign_dev_token(secret: string, claims: Record<string, unknown>): string {
  return fast_jwt().createSigner({ key: check.secret('secret', secret, 1), algorithm: 'HS256' })(claims)
}
