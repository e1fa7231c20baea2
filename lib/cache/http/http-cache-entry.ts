// Between a buffered Response and a CacheEntry: what `http_cache` may store, what it stores of it, and how it answers
// from it.
import { CacheEntry } from '../cache-entry.js'
import { set_own, type HeaderMap } from '../header-util.js'
import type { BodyKind, Response } from '../../response.js'

/** The response headers as they were at one moment (names lowercase; `set-cookie` as a list). */
export type HeaderSnapshot = Readonly<Record<string, string | readonly string[]>>

/** Body kinds kept as text; `file` streams and `none` wrote nothing, so neither is stored. */
const TEXT_KINDS: ReadonlySet<BodyKind> = new Set(['text', 'json', 'send'])

/** Headers never stored: cookies belong to one client, and these two describe one answer of the cache itself. */
const NOT_STORED: ReadonlySet<string> = new Set(['set-cookie', 'age', 'x-fw-cache-status'])

/** A `no-store` or `private` directive in a Cache-Control value, with or without an argument (`private="x"`). */
const FORBIDS_STORING = /(?:^|,)[ \t]*(?:no-store|private)[ \t]*(?:[=,]|$)/i

/**
 * The headers set so far. `Response.header` replaces a `set-cookie` list rather than changing it, so a shallow copy
 * holds.
 */
export function snapshot(res: Response): HeaderSnapshot {
  return { ...res.headers() }
}

/** The age of `entry` at `now_ms` in whole seconds, as the `Age` header gives it (never negative). */
export function age_seconds(entry: CacheEntry, now_ms: number): number {
  return Math.max(0, Math.floor((now_ms - entry.created_at_ms) / 1000))
}

/**
 * The entry to store for the response the chain wrote, or undefined when it may not be stored: only a 200 with a text
 * body, no `Set-Cookie`, and no `no-store` or `private` in `Cache-Control`. Only headers the inner chain set or changed
 * are kept: those that outer middleware set before it (CORS, rate-limit counters) are theirs to set again on every
 * request.
 */
export function storable(res: Response, before: HeaderSnapshot, created_at_ms: number): CacheEntry | undefined {
  if (res.status_code !== 200 || !TEXT_KINDS.has(res.kind) || typeof res.payload !== 'string') return undefined
  if (res.get_header('set-cookie') !== undefined || FORBIDS_STORING.test(res.get_header('cache-control') ?? ''))
    return undefined
  const headers: HeaderMap = {}
  for (const [name, value] of Object.entries(res.headers())) {
    if (typeof value === 'string' && before[name] !== value && !NOT_STORED.has(name)) set_own(headers, name, value)
  }
  return new CacheEntry({ status: 200, body: res.payload, headers, created_at_ms })
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

/** Answers from `entry`: its status, headers and body, with `Age` in seconds. */
export function replay(res: Response, entry: CacheEntry, age_s: number): void {
  res.status(entry.status)
  for (const [name, value] of Object.entries(entry.headers)) res.header(name, value)
  res.header('age', age_s)
  // An empty `send()` writes no Content-Type; `send('')` would add text/plain that the original answer did not have.
  if (entry.body === '' && entry.headers['content-type'] === undefined) res.send()
  else res.send(entry.body)
}
