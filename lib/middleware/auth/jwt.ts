// Bearer JWT authentication on fast-jwt: HMAC algorithms pinned at creation, expiry and not-before checked, claims stored.
import { createVerifier } from 'fast-jwt'
import type { Ctx, CtxMiddleware, Next } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { documented } from '../../openapi/middleware-doc.js'
import type { Response } from '../../response.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'
import { bool_option, int_option, names_option, one_of_option, secret_option, string_option } from './options.js'
import { JwtClaims, claim_list } from './state.js'

export const CODE_MISSING_TOKEN = httpCode('missing_token')
export const CODE_INVALID_TOKEN = httpCode('invalid_token')
export const CODE_TOKEN_EXPIRED = httpCode('token_expired')

/** The HMAC algorithms `jwt` verifies with a shared secret. */
export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512'

const ALGORITHMS: readonly JwtAlgorithm[] = ['HS256', 'HS384', 'HS512']

/** Options of `jwt`. */
export interface JwtOptions {
  /** The shared HMAC secret (required, not empty). Comes from configuration, never from source. */
  secret: string
  /** Refuse expired tokens with 401 `token_expired` (default true; only development presets turn it off). */
  verify_exp?: boolean
  /** Accepted algorithms, pinned here and never taken from the token (default `['HS256']`). */
  algorithms?: readonly JwtAlgorithm[]
  /** Seconds of clock skew allowed on `exp` and `nbf` (default 0). */
  clock_tolerance?: number
  /** Required `iss` value (or one of several); unchecked when omitted. */
  issuer?: string | readonly string[]
  /** Required `aud` value (or one of several); unchecked when omitted. */
  audience?: string | readonly string[]
  /** Payload key holding the roles stored in `JwtClaims.roles` (default `roles`). */
  roles_key?: string
  /**
   * How many verified tokens to remember, so a token seen again skips the signature check until it expires (default 1000;
   * 0 turns it off). Claims of a remembered token are one shared, read-only object.
   */
  cache_size?: number
}

const PREFIX = 'Bearer '

/** One string or a non-empty list of them, as fast-jwt's allow-lists want it. */
function allowed(option: string, value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return typeof value === 'string' ? [string_option('jwt', option, value)] : names_option('jwt', option, value, true)
}

/** Builds the fast-jwt verifier for checked options. */
function verifier(options: JwtOptions): (token: string) => unknown {
  const { secret, verify_exp = true, algorithms = ['HS256'], clock_tolerance = 0, issuer, audience, cache_size = 1000 } = options
  const key = secret_option('jwt', 'secret', secret, 1)
  // A PEM key used as an HMAC secret lets anyone holding the public key sign tokens (the RS256/HS256 confusion).
  if (key.includes('-----BEGIN')) throw ERR_AUTH_BAD_OPTION('jwt', 'secret', 'an HMAC secret, not a PEM key', key, true)
  const algs = names_option('jwt', 'algorithms', algorithms, true).map((a) => one_of_option('jwt', 'algorithms', a, ALGORITHMS))
  const iss = allowed('issuer', issuer)
  const aud = allowed('audience', audience)
  const ignore_exp = !bool_option('jwt', 'verify_exp', verify_exp)
  const tolerance_ms = int_option('jwt', 'clock_tolerance', clock_tolerance, 0) * 1000
  // fast-jwt keys its cache by a SHA-256 of the whole token and bounds each entry by the token's exp and nbf.
  const cache = int_option('jwt', 'cache_size', cache_size, 0)
  return createVerifier({
    key,
    algorithms: algs,
    ignoreExpiration: ignore_exp,
    clockTolerance: tolerance_ms,
    cache,
    ...(iss && { allowedIss: iss }),
    ...(aud && { allowedAud: aud }),
  })
}

/** The 401 answers; RFC 6750 asks for `WWW-Authenticate` on each. */
function refuse(res: Response, code: string, message: string): void {
  const challenge = code === CODE_MISSING_TOKEN ? 'Bearer' : 'Bearer error="invalid_token"'
  res.header('WWW-Authenticate', challenge).error(401, code, message)
}

/**
 * Bearer JWT authentication. `Authorization` must start with exactly `Bearer ` (anything else counts as no token):
 * no token answers 401 `missing_token`, a bad signature, algorithm, claim or format 401 `invalid_token`, an expired
 * token 401 `token_expired`. A valid token is stored as `JwtClaims` and the chain goes on.
 * @example
 * app.use('/api', adapt_ctx(fw.middleware.auth.jwt({ secret: process.env.FW_JWT_SECRET!, issuer: 'https://id.example.com' })))
 */
export function jwt(options: JwtOptions): CtxMiddleware {
  if (typeof options !== 'object' || options === null) throw ERR_AUTH_BAD_OPTION('jwt', 'options', 'an object', options)
  const verify = verifier(options)
  const { roles_key: key = 'roles' } = options
  const roles_key = string_option('jwt', 'roles_key', key)

  const doc = { security: { schemes: { bearer_jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } }, optional: false },
    responses: { 401: [CODE_MISSING_TOKEN, CODE_INVALID_TOKEN, CODE_TOKEN_EXPIRED] } }
  return documented(function jwt({ req, res }: Ctx, next: Next) {
    const auth = req.header('authorization')
    if (!auth.startsWith(PREFIX) || auth.length === PREFIX.length) return refuse(res, CODE_MISSING_TOKEN, 'Missing bearer token')
    let payload: Record<string, unknown>
    try {
      payload = verify(auth.slice(PREFIX.length)) as Record<string, unknown>
    } catch (err) {
      const expired = (err as { code?: unknown }).code === 'FAST_JWT_EXPIRED'
      return expired ? refuse(res, CODE_TOKEN_EXPIRED, 'Token expired') : refuse(res, CODE_INVALID_TOKEN, 'Invalid token')
    }
    const sub = payload.sub
    if (sub !== undefined && typeof sub !== 'string') return refuse(res, CODE_INVALID_TOKEN, 'Invalid token')
    req.set_state(JwtClaims, new JwtClaims(sub ?? '', claim_list(payload, roles_key), payload))
    return next()
  }, doc)
}
