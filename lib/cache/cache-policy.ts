// The freshness policy: how long an entry is fresh, and how long it may be reused stale when offline or after a network
// error.
import { option_checker } from '../options.js'
import { ERR_CACHE_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_CACHE_BAD_OPTION, 'CachePolicy')

/** Options of a `CachePolicy`; every field has the documented default. */
export interface CachePolicyOptions {
  /** Freshness window in ms (default 60000). */
  ttl_ms?: number
  /** Largest age in ms at which an entry may be reused after a network error (default 300000). */
  stale_if_error_ms?: number
  /** Largest age in ms at which an entry may be reused while offline (default 600000). */
  stale_if_offline_ms?: number
  /** Enables reuse after a network error (default true). */
  allow_stale_if_error?: boolean
  /** Enables reuse while offline (default true). */
  allow_stale_if_offline?: boolean
}

/**
 * Whether an age is inside a window of `window_ms`, the one reading of ages the policy and `Cache.prune` share: a
 * negative age (an entry stamped ahead of now: a clock that went back, or a writer whose clock runs ahead) counts by
 * its size, so small skew is tolerated but a clock set back by a day does not keep an entry fresh for that day; a NaN
 * age is inside no window.
 */
export function inside_window(age_ms: number, window_ms: number): boolean {
  return Math.abs(age_ms) < window_ms
}

/**
 * The spec's `CachePolicy`. Every window is half-open and measured from the entry's creation: an age is inside a window
 * of `w` ms when `0 <= age < w`, so `age == ttl_ms` is no longer fresh. A negative age counts by its size (`-w < age`
 * is inside); a NaN age is inside no window. Windows must be integers >= 0 and the flags booleans, or construction throws `FW_ERR_CACHE_BAD_OPTION`.
 * @example
 * const policy = new CachePolicy({ ttl_ms: 30_000, stale_if_offline_ms: 3_600_000 })
 * policy.is_fresh(29_999) // true
 * policy.is_fresh(30_000) // false
 */
export class CachePolicy {
  readonly ttl_ms: number
  readonly stale_if_error_ms: number
  readonly stale_if_offline_ms: number
  readonly allow_stale_if_error: boolean
  readonly allow_stale_if_offline: boolean
  /** The age from which no rule can serve an entry any more: the largest of ttl and each enabled stale window. */
  readonly max_useful_age_ms: number

  constructor({
    ttl_ms = 60_000,
    stale_if_error_ms = 300_000,
    stale_if_offline_ms = 600_000,
    allow_stale_if_error = true,
    allow_stale_if_offline = true,
  }: CachePolicyOptions = {}) {
    this.ttl_ms = check.int('ttl_ms', ttl_ms)
    this.stale_if_error_ms = check.int('stale_if_error_ms', stale_if_error_ms)
    this.stale_if_offline_ms = check.int('stale_if_offline_ms', stale_if_offline_ms)
    this.allow_stale_if_error = check.bool('allow_stale_if_error', allow_stale_if_error)
    this.allow_stale_if_offline = check.bool('allow_stale_if_offline', allow_stale_if_offline)
    this.max_useful_age_ms = Math.max(
      this.ttl_ms,
      this.allow_stale_if_error ? this.stale_if_error_ms : 0,
      this.allow_stale_if_offline ? this.stale_if_offline_ms : 0,
    )
    Object.freeze(this)
  }

  /** True when `age_ms` is inside the ttl window. */
  is_fresh(age_ms: number): boolean {
    return inside_window(age_ms, this.ttl_ms)
  }

  /** True when reuse after a network error is enabled and `age_ms` is inside `stale_if_error_ms`. */
  allow_stale_error(age_ms: number): boolean {
    return this.allow_stale_if_error && inside_window(age_ms, this.stale_if_error_ms)
  }

  /** True when reuse while offline is enabled and `age_ms` is inside `stale_if_offline_ms`. */
  allow_stale_offline(age_ms: number): boolean {
    return this.allow_stale_if_offline && inside_window(age_ms, this.stale_if_offline_ms)
  }
}
