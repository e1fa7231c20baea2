// API key authentication: a key from a header (or a query parameter), checked in constant time against a static set or
// a function.
import { hash, timingSafeEqual } from 'node:crypto'
import { context_middleware, with_route_options, type Ctx, type CtxMiddleware, type Next } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { set_identity } from '../../identity.js'
import { documented, type SecurityScheme } from '../../openapi/middleware-doc.js'
import { ERR_AUTH_BAD_OPTION, ERR_AUTH_NO_API_KEYS } from './errors.js'
import { option_checker } from '../../options.js'
import { BAD_HEADER_VALUE } from '../../http-token.js'
import { ApiKey, AuthChallenge } from './state.js'

const check = option_checker(ERR_AUTH_BAD_OPTION, 'api_key')

export const CODE_MISSING_API_KEY = httpCode('missing_api_key')
export const CODE_INVALID_API_KEY = httpCode('invalid_api_key')

/** Options of `api_key`. */
export interface ApiKeyOptions {
  /** Header carrying the key, matched case-insensitively (default `x-api-key`). */
  header?: string
  /**
   * Query parameter read when the header is absent; '' disables it (default ''). Query strings end up in logs: prefer
   * the header.
   */
  query_param?: string
  /** Whether a missing key is refused with 401; when false the request goes on without `ApiKey` (default true). */
  required?: boolean
  /**
   * Accepted keys; when given, a key must be one of them (and pass `validate` too, when given). With none, `validate`
   * is required (fail closed). A key with surrounding whitespace is refused (no header can carry it), unless `extract`
   * is given.
   */
  allowed_keys?: Iterable<string>
  /** Reads the key instead of `header` and `query_param`; '' or undefined means no key. */
  extract?: (ctx: Ctx) => string | undefined
  /** Asked after `allowed_keys` (for example a database lookup, a revocation list); only exactly true accepts. */
  validate?: (key: string, ctx: Ctx) => boolean | Promise<boolean>
  /**
   * The accepted key's label, the `id` of the caller's `Identity` (for example the name of the service holding it);
   * undefined or '' gives the default, `key:` and 22 characters of the key's SHA-256. Never the key itself.
   */
  label?: (key: string) => string | undefined
}

/** An auth-param value as a quoted-string (RFC 9110 5.6.4): its quotes and backslashes escaped. */
const quoted = (s: string): string => '"' + s.replace(/["\\]/g, '\\$&') + '"'

/**
 * The `WWW-Authenticate` challenge of a missing key (a 401 must carry one, RFC 9110 15.5.2). No scheme is registered for
 * API keys: `ApiKey`, its auth-params naming where the key is read, the header as configured and the query parameter
 * (as a URL carries it when a header cannot: a control byte, a character above U+00FF); with `extract`, none.
 */
function challenge_of(header: string, query_param: string, extracted: boolean): string {
  if (extracted) return 'ApiKey'
  const query = BAD_HEADER_VALUE.test(query_param) ? encodeURIComponent(query_param) : query_param
  return `ApiKey header=${quoted(header)}` + (query === '' ? '' : `, query=${quoted(query)}`)
}

/** Whitespace a header value cannot begin or end with (RFC 9110 5.5: it is not part of the value). */
const PADDED = /^[ \t\r\n]|[ \t\r\n]$/

// One-shot hashing (`crypto.hash`): the same digests as createHash().update().digest(), without a Hash object per key
// (in a loop on Node 20: 1.3 against 1.9 µs as bytes, 0.5 against 1.2 µs as text).
const sha256 = (s: string): Buffer => hash('sha256', s, 'buffer')

/** The default `Identity` id of a key: a digest, so the key is never in a log line or a rate-limit store in clear. */
export const key_digest = (key: string): string => 'key:' + hash('sha256', key, 'base64url').slice(0, 22)

/**
 * Compares a key with every allowed key, on SHA-256 digests of equal length, without stopping at the first match, and
 * gives the matching key's default `Identity` id (made once per allowed key, so an accepted request hashes its key
 * once), or undefined.
 */
function key_set(keys: readonly string[]): (key: string) => string | undefined {
  const digests = keys.map(sha256)
  const ids = keys.map(key_digest)
  return (key) => {
    const d = sha256(key)
    let found = -1
    for (let i = 0; i < digests.length; i++) if (timingSafeEqual(d, digests[i]!)) found = i
    return found === -1 ? undefined : ids[found]
  }
}

/**
 * API key authentication. A missing (or empty) key answers 401 `missing_api_key` with `WWW-Authenticate: ApiKey
 * header="<header>"` (and `query="<query_param>"` when one is read), a refused one 403 `invalid_api_key`;
 * an accepted key is stored as `ApiKey`, the caller as an `Identity` of kind `api_key` (its `label`, else a digest of
 * the key), and the chain goes on. A key is accepted when it is in `allowed_keys` (when a
 * list is given) and `validate` returns true for it (when given): both checks must pass, so `validate` can revoke a
 * listed key.
 * @example
 * app.use('/api', adapt_ctx(fw.middleware.auth.api_key({ allowed_keys: [process.env.FW_API_KEY!] })))
 */
export function api_key({
  header = 'x-api-key',
  query_param = '',
  required = true,
  allowed_keys = [],
  extract,
  validate,
  label,
}: ApiKeyOptions = {}): CtxMiddleware {
  const name = check.token('header', header)
  check.must(query_param === '' || typeof query_param === 'string', 'query_param', 'a string', query_param)
  // A query parameter beside `extract` would never be read: refuse it rather than ignore it.
  const expected = 'left out with extract (which replaces it)'
  check.must(extract === undefined || query_param === '', 'query_param', expected, query_param)
  const refuse_missing = check.bool('required', required)
  const keys = check.names('allowed_keys', allowed_keys, { allow_empty: true, secret: true })
  // HTTP strips a header value's surrounding whitespace, so a key with some (a file's trailing newline, the space of
  // `a, b`.split(',')) would never match: every caller would get 403. `extract` reads keys its own way.
  const padded = extract === undefined && keys.some((k) => PADDED.test(k))
  check.must(!padded, 'allowed_keys', 'keys without surrounding whitespace (a header value never carries it)', keys, {
    secret: true,
  })
  const custom = check.optional_fn('validate', validate, { secret: true })
  if (keys.length === 0 && custom === undefined) throw ERR_AUTH_NO_API_KEYS()
  const read =
    check.optional_fn('extract', extract, { secret: true }) ??
    (({ req }: Ctx) => req.header(name) || (query_param === '' ? '' : req.query_value(query_param, '')))
  // Without a list every key goes on to `validate`, its id made when it is accepted.
  const listed = keys.length === 0 ? () => '' : key_set(keys)
  const labelled = check.optional_fn('label', label)
  const challenge = challenge_of(name, query_param, extract !== undefined)
  const anonymous = new AuthChallenge(challenge)
  const refuse_no_key = (ctx: Ctx): void =>
    void ctx.res.header('WWW-Authenticate', challenge).error(401, CODE_MISSING_API_KEY, 'API key required')
  const accept = (ctx: Ctx, key: string, id: string, next: Next): Promise<void> => {
    ctx.req.set_state(ApiKey, new ApiKey(key))
    set_identity(ctx.req, ctx.res, { kind: 'api_key', id: labelled?.(key) || id || key_digest(key) })
    return next()
  }

  const schemes: Record<string, SecurityScheme> = { api_key: { type: 'apiKey', in: 'header', name } }
  if (query_param !== '') schemes['api_key_query'] = { type: 'apiKey', in: 'query', name: query_param }
  // The App's access line redacts the query parameter, so no key is written in a log.
  const mw = documented(
    function api_key(ctx: Ctx, next: Next) {
      const key = read(ctx) ?? ''
      if (key === '') {
        if (refuse_missing) return refuse_no_key(ctx)
        ctx.req.set_state(AuthChallenge, anonymous)
        return next()
      }
      const id = listed(key)
      if (id === undefined) return void refuse(ctx)
      return custom === undefined ? accept(ctx, key, id, next) : validated(custom, accept, ctx, key, id, next)
    },
    {
      security: { schemes, optional: !refuse_missing, missing: CODE_MISSING_API_KEY },
      responses: { 401: [CODE_MISSING_API_KEY], 403: [CODE_INVALID_API_KEY] },
    },
  )
  // It authenticates, so a per-user rate limit placed before it is refused at startup; the key in a query string would
  // otherwise be written in every access line.
  return context_middleware(
    with_route_options(
      mw,
      query_param === '' ? { authenticates: 'api_key' } : { authenticates: 'api_key', secret_query: [query_param] },
    ),
    check.owner,
  )
}

function refuse(ctx: Ctx): void {
  ctx.res.error(403, CODE_INVALID_API_KEY, 'Invalid API key')
}

async function validated(
  validate: NonNullable<ApiKeyOptions['validate']>,
  accept: (ctx: Ctx, key: string, id: string, next: Next) => Promise<void>,
  ctx: Ctx,
  key: string,
  id: string,
  next: Next,
): Promise<void> {
  if ((await validate(key, ctx)) === true) return accept(ctx, key, id, next)
  refuse(ctx)
}
