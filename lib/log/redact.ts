// Redaction for request logging: secret headers and query parameters replaced by `[redacted]` in a copy; a logged
// error's own fields hide the same headers (values.ts).
import { query_decode } from '../http-token.js'
import { set_field } from './field.js'

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]'

/** Headers `redact_headers` hides by default: credentials and session cookies. */
export const SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]

type Headers = Record<string, string | string[] | number | undefined>

const lower_set = (names: readonly string[]): ReadonlySet<string> => new Set(names.map((n) => n.toLowerCase()))
const SECRET_HEADER_SET = lower_set(SECRET_HEADERS)

/**
 * Whether `key` names one of `SECRET_HEADERS` (any case): a logged error's own fields (an HTTP client's
 * `err.config.headers.Authorization`) write its value as `[redacted]`, at any depth.
 */
export function secret_header(key: string): boolean {
  return SECRET_HEADER_SET.has(key.toLowerCase())
}

/**
 * A copy of `headers` in which each header named in `names` (compared case-insensitively) that has a value reads
 * `[redacted]`; the original is not changed.
 * @example
 * logf(LogLevel.Debug, 'request', 'headers', redact_headers(req.raw.headers))
 */
export function redact_headers<H extends Headers>(headers: H, names?: readonly string[]): H {
  return redact_map(headers, names === undefined ? SECRET_HEADER_SET : lower_set(names))
}

/** A copy of `map` with the value of each name in `secret` (lowercase) that has one reading `[redacted]`. */
function redact_map<H extends Headers>(map: H, secret: ReadonlySet<string>): H {
  const out: Headers = {}
  // set_field: a query parameter named `__proto__` (a parser's null-prototype object holds it) stays a key of the copy
  // instead of becoming its prototype.
  for (const [name, value] of Object.entries(map)) {
    set_field(out, name, value !== undefined && secret.has(name.toLowerCase()) ? REDACTED : value)
  }
  return out as H
}

/**
 * Query parameters `redact_query` hides by default (lowercase; matched in any case): API keys, OAuth 2.0 tokens, client
 * secret and authorization code (RFC 6749), passwords, and the signatures of signed URLs (S3's and Google Cloud
 * Storage's `X-Amz-Signature` and `X-Goog-Signature`, and the `sig` and `signature` of others). An App's access line
 * also hides its `secret_query_params` option and the `query_param` of each `api_key` or `jwt` middleware it uses: per
 * App, never process-wide.
 */
export const SECRET_QUERY: readonly string[] = [
  'api_key',
  'apikey',
  'key',
  'access_token',
  'token',
  'refresh_token',
  'id_token',
  'client_secret',
  'code',
  'password',
  'secret',
  'signature',
  'sig',
  'x-amz-signature',
  'x-goog-signature',
]
const SECRET_QUERY_SET = lower_set(SECRET_QUERY)

/**
 * A copy of a query with each parameter named in `names` (compared case-insensitively; by default `SECRET_QUERY`, which
 * `names` replaces; a Set is taken as lowercase names, as the App keeps them) reading `[redacted]`. Takes a
 * parsed query object, or a query string or URL (`/path?api_key=...&page=2`), and returns the same kind.
 * @example
 * redact_query('/items?api_key=s3cr3t&page=2') // '/items?api_key=[redacted]&page=2'
 */
export function redact_query<Q extends string | Record<string, string | string[] | undefined>>(
  query: Q,
  names: readonly string[] | ReadonlySet<string> = SECRET_QUERY_SET,
): Q {
  const secret = names instanceof Set ? names : lower_set(names as readonly string[])
  if (typeof query !== 'string') return redact_map(query, secret) as Q
  // Without a `=` no parameter has a value to hide: a bare path, or a query of flags, is returned as it is.
  if (!query.includes('=')) return query
  // Without an escape (`%`, `+`) every name is its own decoding: a query naming no secret is returned without a split.
  if (!query.includes('%') && !query.includes('+') && !names_any(query.toLowerCase(), secret)) return query
  const at = query.indexOf('?')
  const head = query.slice(0, at + 1)
  const params = query
    .slice(at + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=')
      const key = eq === -1 ? part : part.slice(0, eq)
      return eq !== -1 && secret.has(query_decode(key).toLowerCase()) ? `${key}=${REDACTED}` : part
    })
  return (head + params.join('&')) as Q
}

/** Whether `text` contains one of `names` anywhere (a cheap test that rules a secret out, never in). */
function names_any(text: string, names: ReadonlySet<string>): boolean {
  for (const name of names) if (text.includes(name)) return true
  return false
}
