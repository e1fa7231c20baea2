// JWT authentication on fast-jwt: HMAC, RSA, ECDSA and EdDSA keys or a remote JWKS, algorithms pinned, claims checked
// and stored.
import type * as FastJwt from 'fast-jwt'
import { context_middleware, with_route_options, type Ctx, type CtxMiddleware, type Next } from '../../compose.js'
import { httpCode, StoreUnavailable } from '../../errors.js'
import { set_identity } from '../../identity.js'
import { lazy } from '../../lazy.js'
import { documented } from '../../openapi/middleware-doc.js'
import type { Response } from '../../response.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'
import { key_config, SeveralKeys, type JwksKey, type JwtKeyOptions } from './jwt-keys.js'
import { option_checker } from '../../options.js'
import { AuthChallenge, JwtClaims, claim_list } from './state.js'

const check = option_checker(ERR_AUTH_BAD_OPTION, 'jwt')

export type { Jwk, JwtAlgorithm } from './jwt-keys.js'

export const CODE_MISSING_TOKEN = httpCode('missing_token')
export const CODE_INVALID_TOKEN = httpCode('invalid_token')
export const CODE_TOKEN_EXPIRED = httpCode('token_expired')
export const CODE_JWKS_UNAVAILABLE = httpCode('jwks_unavailable')

/** Options of `jwt`: the key (see `JwtKeyOptions`), the claims checked, and where the token is read. */
export interface JwtOptions extends JwtKeyOptions {
  /** Refuse expired tokens with 401 `token_expired` (default true; only development presets turn it off). */
  verify_exp?: boolean
  /** Seconds of clock skew allowed on `exp`, `nbf` and `iat` (default 0). */
  clock_tolerance?: number
  /** Required `iss` value (or one of several): a token without `iss` is invalid; unchecked when omitted. */
  issuer?: string | readonly string[]
  /** Required `aud` value (or one of several): a token without `aud` is invalid; unchecked when omitted. */
  audience?: string | readonly string[]
  /** Claims every token must carry (for example `['exp', 'sub']`); a token without one is invalid. */
  required_claims?: readonly string[]
  /** Payload key holding the roles stored in `JwtClaims.roles` (default `roles`). */
  roles_key?: string
  /** Cookie read when there is no `Authorization: Bearer` header (default none). */
  cookie?: string
  /** Query parameter read when there is no header nor cookie (default none; it is redacted from access lines). */
  query_param?: string
  /** Reads the token instead of the header, cookie and query; '' or undefined means no token. */
  extract?: (ctx: Ctx) => string | undefined
  /**
   * How many verified tokens to remember, so a token seen again skips the signature check until it expires (default
   * 1000; 0 turns it off). Claims of a remembered token are one shared, read-only object.
   */
  cache_size?: number
}

const PREFIX = 'Bearer '

/** fast-jwt, loaded by the first `jwt()` or `sign_dev_token()` call. */
export const fast_jwt = lazy<typeof FastJwt>('fast-jwt')

/** One string or a non-empty list of them, as fast-jwt's allow-lists want it. */
function allowed(option: string, value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return typeof value === 'string' ? [check.string(option, value)] : check.names(option, value)
}

/** The verifier of checked options, with what `jwt` checks beside it. */
interface Verifier {
  /** fast-jwt's verifier: it answers synchronously, or a promise with a JWKS. */
  verify: (token: string) => unknown
  /** `clock_tolerance` in ms, for the `iat` check fast-jwt does not make. */
  tolerance_ms: number
  /** With `jwks`: the `Retry-After` of a 503 `jwks_unavailable` (see `KeyConfig`). */
  retry_after_s: (() => number) | undefined
  /** With `jwks`: checks a token without kid with each key that fits it, in turn (see `SeveralKeys`). */
  verify_with: (token: string, keys: readonly JwksKey[]) => unknown
}

/** Builds the fast-jwt verifier for checked options. */
function verifier(options: JwtOptions, weak_from: string | undefined): Verifier {
  const { verify_exp = true, clock_tolerance = 0, issuer, audience, required_claims, cache_size = 1000 } = options
  const { key, algorithms, retry_after_s } = key_config(options, weak_from)
  const iss = allowed('issuer', issuer)
  const aud = allowed('audience', audience)
  const required = new Set(required_claims === undefined ? [] : check.names('required_claims', required_claims))
  // fast-jwt checks `iss` and `aud` only when the token has them: a configured one must be there too.
  if (iss) required.add('iss')
  if (aud) required.add('aud')
  const tolerance_ms = check.int('clock_tolerance', clock_tolerance, 0) * 1000
  // fast-jwt keys its cache by a SHA-256 of the whole token and bounds each entry by the token's exp and nbf.
  const common = {
    algorithms,
    ignoreExpiration: !check.bool('verify_exp', verify_exp),
    clockTolerance: tolerance_ms,
    cache: check.int('cache_size', cache_size, 0),
    // fast-jwt keeps a refusal for clockTolerance + errorCacheTTL ms: its default (-1) would keep one for the whole
    // tolerance, so a token refused while the JWKS was down, or before its nbf, would stay refused. Keep none.
    errorCacheTTL: () => -tolerance_ms - 1,
    ...(iss && { allowedIss: iss }),
    ...(aud && { allowedAud: aud }),
    ...(required.size > 0 && { requiredClaims: [...required] }),
  }
  const { createVerifier } = fast_jwt()
  const verify = typeof key === 'function' ? createVerifier({ ...common, key }) : createVerifier({ ...common, key })
  // One verifier per key, built when a token first needs it, with its own cache; it goes with the key's set.
  const verifiers = new WeakMap<JwksKey, (token: string) => unknown>()
  const verify_with = (token: string, keys: readonly JwksKey[]): unknown => {
    let refusal: unknown
    for (const k of keys) {
      let by_key = verifiers.get(k)
      if (by_key === undefined) verifiers.set(k, (by_key = createVerifier({ ...common, key: k.pem })))
      try {
        return by_key(token)
      } catch (err) {
        // Only a signature this key did not make sends the token to the next key; any other refusal is the answer.
        if ((err as { code?: unknown }).code !== 'FAST_JWT_INVALID_SIGNATURE') throw err
        refusal = err
      }
    }
    throw refusal
  }
  return { verify, tolerance_ms, retry_after_s, verify_with }
}

/** Where the token comes from: `extract`, else the Bearer header, then the cookie, then the query parameter. */
function token_reader(options: JwtOptions): (ctx: Ctx) => string {
  const extract = check.optional_fn('extract', options.extract, { secret: true })
  if (extract !== undefined) {
    // A cookie or query parameter beside `extract` would never be read: refuse it rather than ignore it.
    const ignored = options.cookie ?? options.query_param
    check.must(ignored === undefined, 'cookie and query_param', 'left out with extract (which replaces them)', ignored)
    return (ctx) => extract(ctx) ?? ''
  }
  const cookie = options.cookie === undefined ? undefined : check.token('cookie', options.cookie)
  const query = options.query_param === undefined ? undefined : check.string('query_param', options.query_param)
  return ({ req }) => {
    const auth = req.header('authorization')
    if (auth.startsWith(PREFIX)) return auth.slice(PREFIX.length)
    return (
      (cookie === undefined ? undefined : req.cookie(cookie)) || (query === undefined ? '' : req.query_value(query, ''))
    )
  }
}

/** The token's query parameter, if any: the App's access line redacts it, so no token is written in a log. */
function secret_query({ query_param }: JwtOptions): string[] {
  return typeof query_param === 'string' && query_param !== '' ? [query_param] : []
}

/** Freezes a verified payload and everything in it, once (a frozen payload was frozen whole before). */
function deep_freeze(value: object): void {
  if (Object.isFrozen(value)) return
  Object.freeze(value)
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) deep_freeze(v)
}

/** What a 401 after a token without a subject (`rbac_context` wants a caller) challenges with. */
const NO_SUBJECT = new AuthChallenge('Bearer error="invalid_token", error_description="the token names no subject"')

/** The 401 answers; RFC 6750 asks for `WWW-Authenticate` on each. */
function refuse(res: Response, code: string, message: string): void {
  const challenge = code === CODE_MISSING_TOKEN ? 'Bearer' : 'Bearer error="invalid_token"'
  res.header('WWW-Authenticate', challenge).error(401, code, message)
}

/**
 * The answer to a token fast-jwt refused, or whose key could not be fetched; `retry_after_s` (with `jwks`) gives the
 * 503's `Retry-After`.
 */
function refuse_error(res: Response, err: unknown, unavailable: 401 | 503, retry_after_s?: () => number): void {
  const e = err as { code?: unknown; originalError?: unknown }
  if (e.code === 'FAST_JWT_EXPIRED') return refuse(res, CODE_TOKEN_EXPIRED, 'Token expired')
  if (e.originalError instanceof StoreUnavailable && unavailable === 503) {
    if (retry_after_s !== undefined) res.header('Retry-After', String(retry_after_s()))
    return void res.error(503, CODE_JWKS_UNAVAILABLE, 'Token keys unavailable, retry later')
  }
  refuse(res, CODE_INVALID_TOKEN, 'Invalid token')
}

/** What the OpenAPI document says of a jwt-protected route: a bearer scheme and its 401 answers. */
const JWT_DOC = {
  security: {
    schemes: { bearer_jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    optional: false,
    missing: CODE_MISSING_TOKEN,
  },
  responses: { 401: [CODE_MISSING_TOKEN, CODE_INVALID_TOKEN, CODE_TOKEN_EXPIRED] } as Record<number, string[]>,
}

/** `JWT_DOC` with the 503 `jwks_unavailable` a remote key set answers while it cannot be fetched. */
const JWKS_DOC = { ...JWT_DOC, responses: { ...JWT_DOC.responses, 503: [CODE_JWKS_UNAVAILABLE] } }

/**
 * JWT authentication. The token comes from `Authorization: Bearer <token>` (exactly that prefix), else the `cookie`,
 * else the `query_param`, or from `extract`. No token answers 401 `missing_token`, a bad signature, algorithm, key id,
 * claim or format 401 `invalid_token`, an expired token 401 `token_expired`; a JWKS that cannot be fetched within
 * `jwks_timeout_ms` answers 503 `jwks_unavailable` (or 401 `invalid_token`, by `jwks_unavailable`). A valid token is
 * stored as `JwtClaims`, and the caller as an `Identity` of kind `jwt` (`id` = `sub`, roles by `roles_key`, perms from
 * `perms`, the payload as claims) when the token has a subject.
 * @example
 * const auth = fw.middleware.auth.jwt({
 *   jwks: 'https://id.example.com/.well-known/jwks.json',
 *   issuer: 'https://id.example.com/',
 * })
 * app.use('/api', adapt_ctx(auth))
 */
export function jwt(options: JwtOptions): CtxMiddleware {
  return jwt_middleware(options, undefined)
}

/**
 * `jwt` for a development preset named `preset`: an HMAC secret shorter than its hash is accepted, with a warning
 * (`FW_ERR_AUTH_WEAK_SECRET`) at creation.
 */
export function jwt_allowing_weak_secret(options: JwtOptions, preset: string): CtxMiddleware {
  return jwt_middleware(options, preset)
}

/** The middleware of `jwt`; `weak_from` as in `key_config`. */
function jwt_middleware(options: JwtOptions, weak_from: string | undefined): CtxMiddleware {
  if (typeof options !== 'object' || options === null) check.fail('options', 'an object', options, { secret: true })
  const { verify, tolerance_ms, retry_after_s, verify_with } = verifier(options, weak_from)
  const read = token_reader(options)
  const roles_key = check.string('roles_key', options.roles_key ?? 'roles')
  const { jwks_unavailable: unavailable = 503 } = options
  check.must(unavailable === 401 || unavailable === 503, 'jwks_unavailable', '401 or 503', unavailable)

  const accept = (ctx: Ctx, next: Next, payload: Record<string, unknown>): void | Promise<void> => {
    // fast-jwt hands every request of a cached token the same payload: frozen, no handler can change another's claims.
    deep_freeze(payload)
    const sub = payload.sub
    if (sub !== undefined && typeof sub !== 'string') return refuse(ctx.res, CODE_INVALID_TOKEN, 'Invalid token')
    // fast-jwt checks `iat` only with maxAge: a NumericDate (RFC 7519), and not in the future, as `nbf` is checked.
    // Checked here on every request, so a remembered token issued ahead of the clock passes once its iat comes.
    const iat = payload.iat
    if (iat !== undefined && !(Number.isFinite(iat) && (iat as number) * 1000 - tolerance_ms <= Date.now())) {
      return refuse(ctx.res, CODE_INVALID_TOKEN, 'Invalid token')
    }
    const roles = claim_list(payload, roles_key)
    ctx.req.set_state(JwtClaims, new JwtClaims(sub ?? '', roles, payload))
    // A token without a subject names no one: it is verified, but sets no Identity, and a later 401 says why.
    if (sub === undefined || sub === '') ctx.req.set_state(AuthChallenge, NO_SUBJECT)
    else {
      const perms = claim_list(payload, 'perms')
      set_identity(ctx.req, ctx.res, { kind: 'jwt', id: sub, roles, perms, claims: payload })
    }
    return next()
  }

  // Declared so a per-user rate limit registered before this middleware is refused at startup.
  const mw = documented(
    with_route_options(
      function jwt(ctx, next) {
        const token = read(ctx)
        if (token === '') return refuse(ctx.res, CODE_MISSING_TOKEN, 'Missing bearer token')
        let result: unknown
        try {
          result = verify(token)
        } catch (err) {
          return refuse_error(ctx.res, err, unavailable, retry_after_s)
        }
        if (!(result instanceof Promise)) return accept(ctx, next, result as Record<string, unknown>)
        return result.then(
          (p: Record<string, unknown>) => accept(ctx, next, p),
          (err: unknown) => {
            const several = (err as { originalError?: unknown }).originalError
            if (!(several instanceof SeveralKeys)) return refuse_error(ctx.res, err, unavailable, retry_after_s)
            let payload: unknown
            try {
              payload = verify_with(token, several.keys)
            } catch (e) {
              return refuse_error(ctx.res, e, unavailable, retry_after_s)
            }
            return accept(ctx, next, payload as Record<string, unknown>)
          },
        )
      } as CtxMiddleware,
      { authenticates: 'jwt', secret_query: secret_query(options) },
    ),
    options.jwks !== undefined && unavailable === 503 ? JWKS_DOC : JWT_DOC,
  )
  return context_middleware(mw, check.owner)
}
