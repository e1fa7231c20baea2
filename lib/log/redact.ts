// Redaction for request logging: secret headers and query parameters replaced by `[redacted]` in a copy.

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]'

/** Headers `redact_headers` hides by default: credentials and session cookies. */
export const SECRET_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']

type Headers = Record<string, string | string[] | number | undefined>

/**
 * A copy of `headers` in which each header named in `names` (compared case-insensitively) that has a value reads
 * `[redacted]`; the original is not changed.
 * @example
 * logf(LogLevel.Debug, 'request', 'headers', redact_headers(req.raw.headers))
 */
export function redact_headers<H extends Headers>(headers: H, names: readonly string[] = SECRET_HEADERS): H {
  const secret = new Set(names.map((n) => n.toLowerCase()))
  const out: Headers = {}
  for (const [name, value] of Object.entries(headers)) {
    out[name] = value !== undefined && secret.has(name.toLowerCase()) ? REDACTED : value
  }
  return out as H
}

/**
 * A copy of a query with each parameter named in `names` (compared case-insensitively) reading `[redacted]`. Takes a
 * parsed query object, or a query string or URL (`/path?api_key=...&page=2`), and returns the same kind.
 * @example
 * redact_query('/items?api_key=s3cr3t&page=2') // '/items?api_key=[redacted]&page=2'
 */
export function redact_query<Q extends string | Record<string, string | string[] | undefined>>(query: Q, names: readonly string[] = ['api_key']): Q {
  const secret = new Set(names.map((n) => n.toLowerCase()))
  if (typeof query !== 'string') return redact_headers(query, [...secret]) as Q
  const at = query.indexOf('?')
  const head = query.slice(0, at + 1)
  const params = query.slice(at + 1).split('&').map((part) => {
    const eq = part.indexOf('=')
    const key = eq === -1 ? part : part.slice(0, eq)
    return eq !== -1 && secret.has(decode(key).toLowerCase()) ? `${key}=${REDACTED}` : part
  })
  return (head + params.join('&')) as Q
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}
