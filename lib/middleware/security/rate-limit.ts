// Rate limit: a sliding window counter per key, with the X-RateLimit-* headers on every response and 429 when exceeded.
import { context_middleware, with_route_options, type Ctx, type CtxMiddleware, type Next } from '../../compose.js'
import { httpCode, StoreUnavailable } from '../../errors.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'
import { documented } from '../../openapi/middleware-doc.js'
import { option_checker } from '../../options.js'
import { is_thenable } from '../../maybe-promise.js'
import { counting_key, RATE_LIMIT_KEYS, type KeyFn, type RateLimitKey } from './rate-limit-key.js'
import { MemoryRateLimitStore, type RateLimitResult, type RateLimitStore } from './rate-limit-store.js'
import { observed, report } from '../../observability/events.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'rate_limit')

export const CODE_RATE_LIMIT_EXCEEDED = httpCode('rate_limit_exceeded')
export const CODE_RATE_LIMIT_UNAVAILABLE = httpCode('rate_limit_unavailable')

/**
 * The `Retry-After` of a 503 `rate_limit_unavailable`, in seconds. Without the store nothing is known of the window, and
 * an outage is usually short (fw's Redis connection tries again at least every second): 1, the least `Retry-After` fw
 * sends, as a `jwks_unavailable` with no cooldown known says. Waiting the window (minutes, hours) would keep clients
 * away long after the store is back.
 */
const UNAVAILABLE_RETRY_AFTER = '1'

/** The spec's `RateLimitOptions`, plus where counts live and what a key is. */
export interface RateLimitOptions {
  /** Requests allowed per window. */
  max_requests: number
  /** Window length in seconds. */
  window_seconds: number
  /**
   * What is counted per: `ip` (default; IPv6 by /64), `user` (authenticated subject, else the ip) or `api_key` (else
   * the ip).
   */
  key?: RateLimitKey
  /** A custom key; undefined or '' from it falls back to the ip. Overrides `key`. */
  key_fn?: KeyFn
  /** Header read for `key: 'api_key'` (default `x-api-key`). */
  api_key_header?: string
  /** Where counts live (default a new `MemoryRateLimitStore` per middleware). */
  store?: RateLimitStore
  /**
   * Prefix of this middleware's keys in the store, so two limits on one store count apart (default unique per process).
   */
  namespace?: string
  /** The clock in ms (default `Date.now`); tests pass a fake one. */
  now?: () => number
  /**
   * While the store cannot answer (it rejects with a `StoreUnavailable`, as `FW_ERR_REDIS_UNAVAILABLE`): true lets requests
   * through uncounted, false answers 503 `rate_limit_unavailable` with `Retry-After: 1` (default false).
   */
  fail_open?: boolean
  /**
   * Also send the IETF fields of draft 8 of httpapi-ratelimit-headers: `RateLimit-Policy:
   * "<policy>";q=<max>;w=<window>` and `RateLimit: "<policy>";r=<remaining>;t=<reset>` (default false).
   */
  ietf_headers?: boolean
  /** The policy name in the IETF fields (default `default`). */
  policy?: string
  /** Requests it returns true for are neither counted nor limited (health checks, your own services). */
  allow?: (ctx: Ctx) => boolean
  /**
   * On the routes under this limit's prefix, replace the rate limits placed on shorter prefixes (the global one)
   * instead of counting in addition to them (default false). Its counts stay its own.
   */
  override?: boolean
}

let instances = 0

/**
 * The sliding window estimate: the previous window's hits, weighted by how much of it still overlaps, plus the current
 * ones.
 */
export function sliding_count(hit: RateLimitResult, now_ms: number, window_ms: number): number {
  const elapsed = Math.min(Math.max(now_ms - hit.window_start_ms, 0), window_ms)
  // One division of whole numbers, so a weight that is a whole number is exact: `previous * (1 - elapsed / window_ms)`
  // gave 15 * (1 - 2000 / 3000) = 5.000000000000001 and refused the request Retry-After had said would pass.
  return (hit.previous * (window_ms - elapsed)) / window_ms + hit.current
}

/** Ms until one more request would pass, assuming no other hits until then. */
export function retry_after_ms(hit: RateLimitResult, now_ms: number, window_ms: number, max: number): number {
  const end = hit.window_start_ms + window_ms
  if (hit.current + 1 <= max && hit.previous > 0) {
    // Still inside this window: wait until the previous window's weight has decayed enough.
    // As in sliding_count, one division, so a moment on a whole millisecond is exact, never a hair before it.
    const t = hit.window_start_ms + (window_ms * (hit.previous - (max - hit.current - 1))) / hit.previous
    if (t < end) return Math.max(t - now_ms, 0)
  }
  // In the next window this window's hits become the decaying previous count.
  const t = hit.current > 0 ? end + (window_ms * Math.max(0, hit.current - (max - 1))) / hit.current : end
  return Math.max(t - now_ms, 0)
}

/**
 * Seconds a client should wait, as `X-RateLimit-Reset` says it. With no quota left: until one more request passes (the
 * `Retry-After` of a refusal, at least 1). With quota left: until every hit counted so far stops weighing, when the
 * whole quota is back (the current window's hits weigh until the end of the next window).
 */
export function reset_seconds(
  hit: RateLimitResult,
  now_ms: number,
  window_ms: number,
  max: number,
  remaining: number,
): number {
  if (remaining === 0) return Math.max(1, Math.ceil(retry_after_ms(hit, now_ms, window_ms, max) / 1000))
  const until = hit.current > 0 ? hit.window_start_ms + 2 * window_ms : hit.window_start_ms + window_ms
  return Math.ceil(Math.max(until - now_ms, 0) / 1000)
}

/**
 * Allows `max_requests` per `window_seconds` per key. Every response gets `X-RateLimit-Limit`, `X-RateLimit-Remaining`
 * and `X-RateLimit-Reset` (see `reset_seconds`); over the limit it answers 429 `rate_limit_exceeded` with
 * `Retry-After`, equal to the Reset. Refused requests count too. Two instances keep separate counts, even on one store
 * (processes sharing a store such as Redis share counts when they name the same `namespace`). A store that cannot
 * answer follows `fail_open`.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.rate_limit({ max_requests: 100, window_seconds: 60 })))
 * app.use('/auth', adapt_ctx(fw.middleware.security.rate_limit({ max_requests: 5, window_seconds: 60 })))
 * const search = fw.middleware.security.rate_limit({ max_requests: 1000, window_seconds: 60, override: true })
 * app.use('/search', adapt_ctx(search))
 */
export function rate_limit({
  max_requests,
  window_seconds,
  key = 'ip',
  key_fn,
  api_key_header = 'x-api-key',
  store = new MemoryRateLimitStore(),
  namespace = `rl${++instances}`,
  now = Date.now,
  fail_open = false,
  ietf_headers = false,
  policy = 'default',
  allow,
  override = false,
}: RateLimitOptions): CtxMiddleware {
  const max = check.int('max_requests', max_requests, 1)
  const window_ms = check.int('window_seconds', window_seconds, 1) * 1000
  const key_of = counting_key(
    check.one_of('key', key, RATE_LIMIT_KEYS),
    check.token('api_key_header', api_key_header),
    key_fn === undefined ? undefined : check.fn('key_fn', key_fn),
  )
  check.fn('store.hit', store.hit)
  check.fn('now', now)
  const prefix = check.token('namespace', namespace) + ':'
  check.bool('fail_open', fail_open)
  const limit = String(max)
  const allowed = allow === undefined ? undefined : check.fn('allow', allow)
  // A structured-field string item: the policy name must be printable ASCII without quotes or backslashes.
  if (typeof policy !== 'string' || !/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(policy)) {
    check.fail('policy', 'printable ASCII without " or \\', policy)
  }
  const ietf = check.bool('ietf_headers', ietf_headers)
  const policy_field = `"${policy}";q=${max};w=${window_ms / 1000}`

  const decide = (ctx: Ctx, next: Next, hit: RateLimitResult, now_ms: number): void | Promise<void> => {
    const { res } = ctx
    const count = sliding_count(hit, now_ms, window_ms)
    const remaining = Math.max(0, Math.floor(max - count))
    const reset = reset_seconds(hit, now_ms, window_ms, max, remaining)
    // Another limit on this request (a global one before a prefix one) may already have written headers: the headers
    // describe the limit with the fewest requests left (on a tie, the later Reset), so a client trusting them is
    // refused by neither.
    const shown = res.get_header('X-RateLimit-Remaining')
    if (
      shown === undefined ||
      remaining < Number(shown) ||
      (remaining === Number(shown) && reset >= Number(res.get_header('X-RateLimit-Reset')))
    ) {
      res.header('X-RateLimit-Limit', limit)
      res.header('X-RateLimit-Remaining', String(remaining))
      res.header('X-RateLimit-Reset', String(reset))
      if (ietf)
        res.header('RateLimit-Policy', policy_field).header('RateLimit', `"${policy}";r=${remaining};t=${reset}`)
      else if (shown !== undefined) res.remove_header('RateLimit-Policy').remove_header('RateLimit')
    }
    if (count <= max) return next()
    // The Reset shown: this limit's, or another one's that has no request left either.
    res.header('Retry-After', res.get_header('X-RateLimit-Reset') ?? String(reset))
    if (observed()) report({ kind: 'rate_limit_refused', namespace })
    res.error(429, CODE_RATE_LIMIT_EXCEEDED, 'Too many requests, retry later')
  }

  const unavailable = (ctx: Ctx, next: Next, err: unknown): void | Promise<void> => {
    if (!(err instanceof StoreUnavailable)) throw err
    if (fail_open) return next()
    ctx.res.header('Retry-After', UNAVAILABLE_RETRY_AFTER)
    ctx.res.error(503, CODE_RATE_LIMIT_UNAVAILABLE, 'Rate limit unavailable, retry later')
  }

  const mw: CtxMiddleware = function rate_limit(ctx, next) {
    if (allowed !== undefined && allowed(ctx)) return next()
    const now_ms = now()
    let hit: ReturnType<RateLimitStore['hit']>
    try {
      hit = store.hit(prefix + key_of(ctx), now_ms, window_ms)
    } catch (err) {
      // A store that answers at once reports itself down by throwing, as an async one rejects.
      return unavailable(ctx, next, err)
    }
    // The store convention (lib/maybe-promise.ts), branched here by hand: the memory store's hit allocates no closure.
    // Any thenable answers later; Promise.resolve adopts one that is not a native promise, so the chain waits for it.
    if (is_thenable(hit))
      return Promise.resolve(hit).then(
        (h) => decide(ctx, next, h, now_ms),
        (err: unknown) => unavailable(ctx, next, err),
      )
    return decide(ctx, next, hit, now_ms)
  }
  const doc = { responses: { 429: [CODE_RATE_LIMIT_EXCEEDED], 503: [CODE_RATE_LIMIT_UNAVAILABLE] } }
  with_route_options(
    mw,
    check.bool('override', override) ? { kind: 'rate_limit', replaces: 'rate_limit' } : { kind: 'rate_limit' },
  )
  // A per-user limit before authentication would count every user of one address together: refused at startup.
  const documented_mw = documented(
    key === 'user' && key_fn === undefined
      ? with_route_options(mw, { reads_identity: "rate_limit({ key: 'user' })" })
      : mw,
    doc,
  )
  return context_middleware(documented_mw, check.owner)
}
