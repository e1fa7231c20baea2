// Cache keys: one deterministic string per request, from method, path, sorted query and the chosen headers.
import { header_fallback, query_decode } from '../http-token.js'
import { HeaderUtil } from './header-util.js'

/** Request headers as Node gives them: a value, a list of values, or undefined. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

interface QueryPair {
  raw: string
  /** The name as the query parser reads it (`%70age` is `page`), which the pairs are sorted by. */
  name: string
}

const by_code_unit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function sorted_query(query: string): string {
  const pairs: QueryPair[] = []
  for (const raw of query.split('&')) {
    if (raw === '') continue
    const eq = raw.indexOf('=')
    pairs.push({ raw, name: query_decode(eq === -1 ? raw : raw.slice(0, eq)) })
  }
  // By name only, and stably: the values of a repeated name keep their order, since the handler sees them in it
  // (`query_value` reads the first, `query()` lists them as sent). `?page=1&page=2` and `?page=2&page=1` are two
  // requests; sorting by value too gave them one key, and one answered with the other's entry.
  pairs.sort((a, b) => by_code_unit(a.name, b.name))
  return pairs
    .map((p) => p.raw)
    .join('&')
    .replace(/ /g, '%20')
}

/**
 * The value of request header `name` (lowercase) as keys and `http_cache`'s Vary matching read it: looked up
 * case-insensitively (of several case variants the last one wins), a list joined with `, `, trimmed of spaces and tabs.
 */
export function request_header(headers: RequestHeaders, name: string): string | undefined {
  return header_value(headers, name, undefined)
}

/**
 * `request_header`, reading `fallback` (an exact name) instead when the request has no `name`, in the same pass over
 * the headers.
 */
function header_value(headers: RequestHeaders, name: string, fallback: string | undefined): string | undefined {
  let found: string | readonly string[] | undefined
  let other: string | readonly string[] | undefined
  for (const key of Object.keys(headers)) {
    if (key === name || HeaderUtil.toLower(key) === name) found = headers[key] ?? found
    else if (key === fallback) other = headers[key]
  }
  found ??= other
  if (found === undefined) return undefined
  const value = typeof found === 'string' ? found : found.join(', ')
  return value.replace(/^[ \t]+|[ \t]+$/g, '')
}

/**
 * The header segment for `names`, already lowercased, deduplicated and sorted. `host` reads `:authority` when the
 * request has no `host` header (HTTP/2), so one authority gives one key over either protocol.
 */
function header_segment(headers: RequestHeaders, names: readonly string[]): string {
  if (names.length === 0) return ''
  let out = ' |h:'
  for (const name of names) {
    const value = header_value(headers, name, header_fallback(name))
    // Escaping '%' and ';' keeps one header's value from passing for the next header's segment.
    if (value !== undefined) out += `${name}=${value.replace(/%/g, '%25').replace(/;/g, '%3B')};`
  }
  return out
}

/**
 * The spec's `CacheKey.fromRequest(method, path, query, headers, include_headers = [])`, giving `<METHOD>
 * <path>?<sorted query>` and, when `include_headers` is not empty, ` |h:<name>=<value>;` per included header that the
 * request has. The `?` is always there, even for an empty query (`GET /a?`). The method is uppercased; `query` is the
 * raw query string without the leading `?` (a further `?` is kept as data); its `&`-separated pairs are sorted by name
 * as the query parser decodes it (code-unit order), pairs of one name keeping their order, each pair keeps its raw
 * encoding, and empty pairs are dropped. A space is written
 * `%20` in path and query and a `?` in the path `%3F`, so the first `?` always ends the path and the headers always
 * start at ` |h:`. Included names are lowercased, deduplicated and sorted; lookup is case-insensitive; a list value is
 * joined with `, `; values are trimmed of spaces and tabs, with `%` written `%25` and `;` written `%3B`. An included
 * `host` reads the HTTP/2 pseudo-header `:authority` when the request has no `host` header.
 * @example
 * CacheKey.fromRequest('get', '/users', 'page=2&sort=name', { 'Accept-Language': 'fr' }, ['accept-language'])
 * // 'GET /users?page=2&sort=name |h:accept-language=fr;'
 */
export const CacheKey = Object.freeze({
  fromRequest(
    method: string,
    path: string,
    query: string,
    headers: RequestHeaders,
    include_headers: readonly string[] = [],
  ): string {
    return key_builder(include_headers)(method, path, query, headers)
  },
})

/** Builds keys as `CacheKey.fromRequest` does. */
export type KeyBuilder = (method: string, path: string, query: string, headers: RequestHeaders) => string

/**
 * `CacheKey.fromRequest` with `include_headers` normalised (lowercased, deduplicated, sorted) once, for a caller that
 * builds a key per request with the same list, such as `http_cache`.
 * @example
 * const key_of = key_builder(['Accept-Language'])
 * key_of('GET', '/users', 'page=2', req.headers) // 'GET /users?page=2 |h:accept-language=fr;'
 */
export function key_builder(include_headers: readonly string[] = []): KeyBuilder {
  const names = [...new Set(include_headers.map(HeaderUtil.toLower))].sort(by_code_unit)
  return (method, path, query, headers) =>
    `${method.toUpperCase()} ${path.replace(/ /g, '%20').replace(/\?/g, '%3F')}?${sorted_query(query)}` +
    header_segment(headers, names)
}
