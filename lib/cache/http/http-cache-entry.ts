// Between a buffered Response and a CacheEntry: what `http_cache` may store, what it stores of it, and how it answers
// from it.
import { CacheEntry } from '../cache-entry.js'
import { inside_window } from '../cache-policy.js'
import { request_header, type RequestHeaders } from '../cache-key.js'
import { set_own, type HeaderMap } from '../header-util.js'
import { http_date, tag_listed } from '../../http-token.js'
import { CheckedHeaders, type BodyKind, type Response } from '../../response.js'

/** The response headers as they were at one moment (names lowercase; `set-cookie` as a list). */
export type HeaderSnapshot = Readonly<Record<string, string | readonly string[]>>

/** Body kinds kept as text; `file` streams and `none` wrote nothing, so neither is stored. */
const TEXT_KINDS: ReadonlySet<BodyKind> = new Set(['text', 'json', 'send'])

/** Headers never stored: cookies belong to one client, and these two describe one answer of the cache itself. */
const NOT_STORED: ReadonlySet<string> = new Set(['set-cookie', 'age', 'x-fw-cache-status'])

/**
 * The entry header keeping the request's values of the headers the answer's `Vary` names, as JSON `[[name, value or
 * null], ...]`. A `:` is no token character, so no response can set it, and `replay` leaves it out.
 */
const VARIED = ':fw-vary-request'

/**
 * The entry header keeping what was left of the answer's own freshness lifetime when it was stored, in seconds
 * (`s-maxage`, else `max-age`, else `Expires` minus `Date`, less the `Age` it came with), read from its headers once
 * when it is stored rather than on every hit. Like `VARIED`, never replayed.
 */
const LIFETIME = ':fw-lifetime-s'

/**
 * The entry header keeping the `Age` the answer came with (a proxied one), in seconds, when above 0: a hit's `Age` is
 * it plus the time the entry has been stored (RFC 9111 4.2.3). Like `VARIED`, never replayed.
 */
const INITIAL_AGE = ':fw-age-s'

/** The largest `Age` kept, as RFC 9111 1.2.2 caps a delta-seconds that overflows. */
const MAX_AGE_S = 2_147_483_648

/**
 * The entry header present when the answer forbids its reuse once stale (`must-revalidate`, `proxy-revalidate`, or
 * `s-maxage`, which carries proxy-revalidate for a shared cache: RFC 9111 4.2.4, 5.2.2.10). Like `VARIED`, never
 * replayed.
 */
const NO_STALE = ':fw-no-stale'

/** Directives after which a stale answer may not be reused without validation, which `http_cache` cannot do. */
const NO_STALE_DIRECTIVES = ['must-revalidate', 'proxy-revalidate', 's-maxage']

/** Directives that forbid storing (`no-store`, `private`) or reuse without revalidation (`no-cache`), argument or not. */
const NOT_REUSABLE = ['no-store', 'private', 'no-cache']

/** One comma-separated item of a Cache-Control value; a quoted argument (`no-cache="a, b"`) keeps its commas. */
const ITEM = /(?:"(?:[^"\\]|\\.)*"?|[^,"])+/g

/** The directives of a Cache-Control value: lowercased names to their argument (unquoted, '' for none); the first wins. */
function directives(value: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const [item] of value.matchAll(ITEM)) {
    const eq = item.indexOf('=')
    const name = (eq === -1 ? item : item.slice(0, eq)).trim().toLowerCase()
    const arg = eq === -1 ? '' : item.slice(eq + 1).trim()
    if (name !== '' && !found.has(name)) found.set(name, arg.replace(/^"|"$/g, ''))
  }
  return found
}

/**
 * What `reusable` found: what is left of the answer's own lifetime in seconds, the header giving it, whether stale reuse
 * is out.
 */
interface Reuse {
  readonly lifetime: string | undefined
  readonly from: 'cache-control' | 'expires'
  readonly no_stale: boolean
}

/**
 * Whether a shared cache may store `res` and reuse it without revalidation (which `http_cache` does not do): no
 * `no-store`, `private` or `no-cache`, and a freshness lifetime (RFC 9111 4.2.1) that is not 0 or invalid (both count
 * as stale): `s-maxage` before `max-age` (5.2.2.10); without either, `Expires` minus `Date` (the time it was received,
 * `received_ms`, when `Date` is absent or no HTTP-date), an `Expires` that is no HTTP-date (`0` notably) being in the
 * past (5.3). The `initial_s` the answer is already old (its `Age`) is spent of that lifetime (4.2.3): one with none left
 * is stale on arrival, and not stored either. No lifetime at all leaves the policy's ttl alone to decide.
 */
function reusable(res: Response, received_ms: number, initial_s: number): Reuse | undefined {
  const cc = directives(res.get_header('cache-control') ?? '')
  if (NOT_REUSABLE.some((d) => cc.has(d))) return undefined
  const no_stale = NO_STALE_DIRECTIVES.some((d) => cc.has(d))
  const max_age = cc.get('s-maxage') ?? cc.get('max-age')
  if (max_age !== undefined) {
    const left = /^\d+$/.test(max_age) ? Number(max_age) - initial_s : 0
    return left > 0 ? { lifetime: String(left), from: 'cache-control', no_stale } : undefined
  }
  const expires = res.get_header('expires')
  if (expires === undefined) return { lifetime: undefined, from: 'cache-control', no_stale }
  const date_ms = http_date(res.get_header('date')?.trim())
  const left_ms = http_date(expires.trim()) - (Number.isNaN(date_ms) ? received_ms : date_ms) - initial_s * 1000
  // NaN (no HTTP-date) is not above 0 either.
  return left_ms > 0 ? { lifetime: String(left_ms / 1000), from: 'expires', no_stale } : undefined
}

/**
 * Whether an entry `age_ms` old is inside the freshness lifetime its stored answer gave itself (`s-maxage`, else
 * `max-age`, else `Expires` minus `Date`), true when it named none: an entry older than that is not served fresh,
 * whatever the policy's ttl. The age is read as the policy reads it (`inside_window`): one stamped ahead of now counts
 * by its size.
 */
export function within_own_lifetime(entry: CacheEntry, age_ms: number): boolean {
  const seconds = entry.headers[LIFETIME]
  return seconds === undefined || inside_window(age_ms, Number(seconds) * 1000)
}

/**
 * Whether `entry` may still answer once past its freshness (the policy's ttl, or its own shorter lifetime), after a
 * failure or while offline: not when its answer said `must-revalidate`, `proxy-revalidate` or `s-maxage`.
 */
export function may_serve_stale(entry: CacheEntry): boolean {
  return entry.headers[NO_STALE] === undefined
}

/** The request headers a `Vary` value names (lowercase, once each), or `*` when it names any. */
function vary_names(vary: string): string[] | '*' {
  const names = new Set<string>()
  for (const item of vary.split(',')) {
    const name = item.trim().toLowerCase()
    if (name === '*') return '*'
    if (name !== '') names.add(name)
  }
  return [...names]
}

/**
 * The headers set so far. `Response.header` replaces a `set-cookie` list rather than changing it, so a shallow copy
 * holds.
 */
export function snapshot(res: Response): HeaderSnapshot {
  return { ...res.headers() }
}

/**
 * The age of `entry` at `now_ms` in whole seconds, as the `Age` header gives it (never negative): the time it has been
 * stored, plus the `Age` its answer came with.
 */
export function age_seconds(entry: CacheEntry, now_ms: number): number {
  const stored_s = Math.max(0, Math.floor((now_ms - entry.created_at_ms) / 1000))
  const initial = entry.headers[INITIAL_AGE]
  if (initial === undefined) return stored_s
  // An entry from a store shared with others holds what they wrote: a record that is no age adds nothing.
  const initial_s = Number(initial)
  return initial_s > 0 ? Math.min(MAX_AGE_S, stored_s + initial_s) : stored_s
}

/**
 * The `Age` the chain after the cache gave its answer (a proxied answer's), in seconds; 0 when it set none, or one that
 * is no non-negative integer, which RFC 9111 5.1 has a cache ignore.
 */
function initial_age(res: Response, before: HeaderSnapshot): number {
  const value = res.get_header('age')?.trim()
  if (value === undefined || before['age'] === value || !/^\d+$/.test(value)) return 0
  return Math.min(MAX_AGE_S, Number(value))
}

/**
 * The entry to store for the response the chain wrote to a request with `request_headers`, or undefined when it may
 * not be stored: only a 200 with a text body, no `Set-Cookie`, no `Vary: *`, and a `Cache-Control` and `Expires` that
 * `reusable` allows. Only headers the inner chain set or changed are kept: those that outer middleware set before it
 * (CORS, rate-limit counters) are theirs to set again on every request. The request's values of the headers the
 * answer's `Vary` names are kept with it, for `matches`.
 */
export function storable(
  res: Response,
  before: HeaderSnapshot,
  created_at_ms: number,
  request_headers: RequestHeaders,
): CacheEntry | undefined {
  if (res.status_code !== 200 || !TEXT_KINDS.has(res.kind) || typeof res.payload !== 'string') return undefined
  if (res.get_header('set-cookie') !== undefined) return undefined
  const initial_s = initial_age(res, before)
  const reuse = reusable(res, created_at_ms, initial_s)
  if (reuse === undefined) return undefined
  const varied = vary_names(res.get_header('vary') ?? '')
  if (varied === '*') return undefined
  const headers: HeaderMap = {}
  for (const [name, value] of Object.entries(res.headers())) {
    if (typeof value === 'string' && before[name] !== value && !NOT_STORED.has(name)) set_own(headers, name, value)
  }
  // Only the Cache-Control or Expires the entry keeps (set by the chain after the cache) names its own lifetime.
  if (reuse.lifetime !== undefined && headers[reuse.from] !== undefined) headers[LIFETIME] = reuse.lifetime
  if (reuse.no_stale && headers['cache-control'] !== undefined) headers[NO_STALE] = '1'
  if (initial_s > 0) headers[INITIAL_AGE] = String(initial_s)
  if (varied.length > 0)
    headers[VARIED] = JSON.stringify(varied.map((name) => [name, request_header(request_headers, name) ?? null]))
  return new CacheEntry({ status: 200, body: res.payload, headers, created_at_ms })
}

/**
 * Whether `entry` may answer a request with `request_headers` (RFC 9111 4.1): each header its answer's `Vary` named has
 * the value it had in the request that stored it (absent where it was absent). An entry with a `Vary` but no such
 * record (put by hand, or by an earlier version) matches no request.
 */
export function matches(entry: CacheEntry, request_headers: RequestHeaders): boolean {
  const recorded = entry.headers[VARIED]
  if (recorded === undefined) return entry.headers['vary'] === undefined
  let pairs: unknown
  try {
    pairs = JSON.parse(recorded)
  } catch {
    return false
  }
  return (
    Array.isArray(pairs) &&
    pairs.every(
      (p) => Array.isArray(p) && typeof p[0] === 'string' && (request_header(request_headers, p[0]) ?? null) === p[1],
    )
  )
}

/** Puts the headers back as they were in `before`, undoing whatever a failed inner chain set. */
export function restore(res: Response, before: HeaderSnapshot): void {
  for (const name of Object.keys(res.headers())) if (!Object.hasOwn(before, name)) res.remove_header(name)
  for (const [name, value] of Object.entries(before)) {
    if (res.headers()[name] === value) continue
    res.remove_header(name)
    for (const one of typeof value === 'string' ? [value] : value) res.header(name, one)
  }
}

/**
 * Whether `body` takes more than `max` bytes in UTF-8. A UTF-16 unit takes 1 to 3 bytes, so the bytes are counted
 * only when the length leaves it in doubt.
 */
export function larger_than(body: string, max: number): boolean {
  if (body.length > max) return true
  return body.length * 3 > max && Buffer.byteLength(body) > max
}

/**
 * Whether a GET or HEAD request with `request_headers`, answered from `entry`, gets a 304 (RFC 9110 13.1.2, 13.1.3,
 * 13.2.2; RFC 9111 4.3.2): its `If-None-Match` is `*` or lists the entry's `ETag` (weak comparison); without an
 * `If-None-Match`, its `If-Modified-Since` is a date at or after the entry's `Last-Modified`. A value that is not an
 * HTTP-date is ignored.
 */
export function not_modified(entry: CacheEntry, request_headers: RequestHeaders): boolean {
  const none_match = request_header(request_headers, 'if-none-match')
  if (none_match !== undefined) {
    const tag = entry.headers['etag']
    // The comparison the etag middleware makes (weak); `*` names any entry, one without a tag too.
    return tag === undefined ? none_match.trim() === '*' : tag_listed(none_match, tag, false)
  }
  const since = http_date(request_header(request_headers, 'if-modified-since'))
  return http_date(entry.headers['last-modified']?.trim()) <= since
}

/** The headers `replay` sets from each entry it was asked about, checked once; null for an entry it cannot replay. */
const REPLAYED = new WeakMap<CacheEntry, CheckedHeaders | null>()

/**
 * The headers of `entry` that `replay` sets, checked as `Response.header` checks them, once per entry (one is frozen):
 * null when a name is no HTTP token or a value holds CR, LF, NUL or a character above U+00FF. `storable` never keeps
 * such a header, but an entry put by hand, read from a file or from a store another app shares may hold one.
 */
function replayed_headers(entry: CacheEntry): CheckedHeaders | null {
  let checked = REPLAYED.get(entry)
  if (checked === undefined) {
    const pairs: Array<[string, string]> = []
    // The entry's own records (`VARIED`, `LIFETIME`, `NO_STALE`, `INITIAL_AGE`) start with `:`, which no header name can.
    for (const [name, value] of Object.entries(entry.headers)) if (!name.startsWith(':')) pairs.push([name, value])
    try {
      checked = new CheckedHeaders(pairs)
    } catch {
      checked = null
    }
    REPLAYED.set(entry, checked)
  }
  return checked
}

/** Whether `replay` can answer from `entry`: false when it holds a header no response may send. */
export function replayable(entry: CacheEntry): boolean {
  return replayed_headers(entry) !== null
}

/**
 * Answers from `entry`: its status, headers and body, with `Age` in seconds; or, `bodiless`, a 304 with the same
 * headers and no body (no Content-Length either, as `etag` answers one: RFC 9110 8.6, 15.4.5). False, with nothing of
 * the entry set, when it holds a header no response may send (`replayable`).
 */
export function replay(res: Response, entry: CacheEntry, age_s: number, bodiless = false): boolean {
  const headers = replayed_headers(entry)
  if (headers === null) return false
  res.status(entry.status).checked_headers(headers).header('age', age_s)
  if (bodiless) res.discard_body().status(304).remove_header('content-length')
  // An empty `send()` writes no Content-Type; `send('')` would add text/plain that the original answer did not have.
  else if (entry.body === '' && entry.headers['content-type'] === undefined) res.send()
  else res.send(entry.body)
  return true
}
