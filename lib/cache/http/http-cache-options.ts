// The options of `http_cache`, and their checks: which cache, which headers key an entry, which make a request
// personal.
import { Cache } from '../cache.js'
import type { CachePolicy, CachePolicyOptions } from '../cache-policy.js'
import type { CacheStore } from '../cache-store.js'
import { ERR_CACHE_BAD_OPTION } from '../errors.js'
import { LruMemoryStore } from '../lru-memory-store.js'
import type { OnlineState } from '../network-probe.js'
import { option_checker } from '../../options.js'
import { HTTP_TOKEN } from '../../response.js'

/**
 * What the cache did for one request. `stale` is an entry past its ttl served because the handler failed (header
 * `hit`).
 */
export type HttpCacheDecision = 'hit' | 'miss' | 'bypass' | 'stale'

/**
 * More about a decision: the age of the entry served, and the error behind a bypass, a failed store or a stale answer.
 */
export interface HttpCacheDetail {
  /** Age in seconds of the entry served (`hit`, `stale`). */
  age_s?: number
  /**
   * `bypass`: the store's error; `miss`: the store's error on put; `stale`: what the handler threw (absent for a 5xx).
   */
  error?: unknown
}

/** What `http_cache` asks of a probe: `isOnline`, and `refresh` when it has one (a `NetworkProbe` does). */
export type HttpCacheProbe = OnlineState & { refresh?(now_ms: number): unknown }

/** Options of `http_cache`. */
export interface HttpCacheOptions {
  /** Freshness and stale windows (default `new CachePolicy()`: ttl 60 s, stale after an error up to 300 s). */
  policy?: CachePolicy | CachePolicyOptions
  /**
   * Where entries live (default a new `LruMemoryStore`, 1024 entries); a store answering with promises, such as Redis, works too.
   */
  store?: CacheStore
  /** A ready `Cache` to use instead of `policy` and `store` (give one or the other, not both). */
  cache?: Cache
  /**
   * Request headers that take part in the key, such as `accept-language` (default none), and that `Vary` names. The
   * `Host` (HTTP/2's `:authority`) always takes part; a header the handler reads to build its answer must be listed,
   * `X-Forwarded-Host` and `X-Forwarded-Proto` too when it writes URLs from them.
   */
  include_headers?: readonly string[]
  /** Called once per GET or HEAD request with the decision and the key, for logs and metrics. */
  on_decision?: (decision: HttpCacheDecision, key: string, detail: HttpCacheDetail) => void
  /**
   * Serve and store answers to requests that carry a credential: `Authorization`, `Cookie`, `X-Api-Key` or a header of
   * `credential_headers` (default false: such a request is a `bypass`, unless `include_headers` names the header, which
   * keys the entry per credential). Turn it on only for routes whose answer is the same for every caller.
   */
  cache_credentialed?: boolean
  /**
   * Further request headers that carry a credential, such as `x-session-token` or the header of an `api_key` that reads
   * another one (default none; `Authorization`, `Cookie` and `X-Api-Key` always count). Left out with
   * `cache_credentialed: true`, which shares answers whatever the request carries.
   */
  credential_headers?: readonly string[]
  /**
   * Whether the upstream the routes depend on is reachable, for stale-if-offline: while `probe.isOnline(now)` is false,
   * an entry past its ttl but within `stale_if_offline_ms` answers without running the handler. A `NetworkProbe` is
   * refreshed (at most once per its `min_interval_ms`, never awaited) as requests arrive. Default: always online.
   */
  probe?: HttpCacheProbe
  /**
   * The largest body stored, in UTF-8 bytes (default 1 MiB, 1,048,576). A larger answer goes to the client as it is
   * and is not stored (a `bypass`, as a streamed answer is).
   */
  max_body_bytes?: number
  /** The clock in ms (default `Date.now`); tests pass a fake one. */
  now?: () => number
}

/** The checks of `http_cache`'s options, each throwing `FW_ERR_CACHE_BAD_OPTION` as `http_cache: <option> ...`. */
export const check = option_checker(ERR_CACHE_BAD_OPTION, 'http_cache')
/** The default of `max_body_bytes`: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576
/** The probe when none is given: the upstream is always reachable, so only failures of the handler serve stale. */
export const ALWAYS_ONLINE: HttpCacheProbe = { isOnline: () => true }
/**
 * Request headers that make an answer personal unless the key includes them (a shared cache's rule, RFC 9111 3.5), with
 * `x-api-key`, the header `api_key` reads by default.
 */
const CREDENTIALS = ['authorization', 'cookie', 'x-api-key']

/** The `Cache` the options describe, after checking them. */
export function cache_of({ policy, store, cache }: HttpCacheOptions): Cache {
  if (cache === undefined) {
    if (policy !== undefined && (typeof policy !== 'object' || policy === null)) {
      check.fail('policy', 'a CachePolicy or its options', policy)
    }
    return new Cache(policy ?? {}, store ?? new LruMemoryStore())
  }
  if (!(cache instanceof Cache)) check.fail('cache', 'a Cache', cache)
  if (policy !== undefined) check.fail('policy', 'left out when cache is given', policy)
  if (store !== undefined) check.fail('store', 'left out when cache is given', store)
  return cache
}

/** The header names of option `option`, lowercased, once each. */
export function header_names(option: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && HTTP_TOKEN.test(v))) {
    return check.fail(option, 'a list of header names', value)
  }
  return [...new Set(value.map((v: string) => v.toLowerCase()))]
}

/**
 * The request headers that make a request a bypass: the credentials, with `credential_headers`, that `include_headers`
 * does not key on; none with `cache_credentialed`.
 */
export function personal_headers(options: HttpCacheOptions, include_headers: readonly string[]): string[] {
  const shared = check.bool('cache_credentialed', options.cache_credentialed ?? false)
  const named = header_names('credential_headers', options.credential_headers ?? [])
  if (shared && options.credential_headers !== undefined) {
    check.fail('credential_headers', 'left out when cache_credentialed is true', options.credential_headers)
  }
  return shared ? [] : [...new Set([...CREDENTIALS, ...named])].filter((h) => !include_headers.includes(h))
}
