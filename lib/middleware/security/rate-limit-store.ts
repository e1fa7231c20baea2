// Where rate limit counts live: the store interface (async-capable, for shared stores such as Redis) and the bounded
// memory store.
import { Lru } from '../../lru.js'
import type { MaybePromise } from '../../maybe-promise.js'
import { option_checker } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'MemoryRateLimitStore')

/** What a store answers for one hit: the counts of the current and the previous fixed window of a key. */
export interface RateLimitResult {
  /** Hits in the current window, this one included. */
  current: number
  /** Hits in the window before it (0 when that window had none or is further back). */
  previous: number
  /** Start of the current window in ms: `now_ms` rounded down to a multiple of `window_ms`. */
  window_start_ms: number
}

/**
 * Counts hits per key in fixed windows of `window_ms`, aligned to multiples of it. `hit` must count atomically (the
 * increment and the answer are one step), so N concurrent hits get N distinct `current` values. It answers at once
 * (`MemoryRateLimitStore`) or with a promise (`RedisRateLimitStore`, any `async` method). A store that cannot answer now
 * throws (or rejects with) a `StoreUnavailable`: `rate_limit` answers 503 `rate_limit_unavailable`, or lets the request
 * through uncounted with `fail_open`; any other error is a 500.
 */
export interface RateLimitStore {
  /** Counts one hit of `key` at `now_ms` and answers the window counts. */
  hit(key: string, now_ms: number, window_ms: number): MaybePromise<RateLimitResult>
}

/** Options of `MemoryRateLimitStore`. */
export interface MemoryRateLimitStoreOptions {
  /** Most keys kept; the least recently hit key is dropped beyond it (default 10000). */
  max_keys?: number
}

interface Counter {
  start: number
  current: number
  previous: number
}

/** The start of the window that holds `now_ms`. */
export function window_start(now_ms: number, window_ms: number): number {
  return now_ms - (now_ms % window_ms)
}

/**
 * The in-process store: exact (hits are counted synchronously, one at a time) and bounded (at most `max_keys` keys,
 * least recently hit dropped first, so a flood of distinct keys costs memory only up to that bound). One process only.
 * @example
 * const store = new MemoryRateLimitStore({ max_keys: 50_000 })
 * app.use(fw.middleware.app.rate_limit({ max_requests: 100, window_seconds: 60, store }))
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly max_keys: number
  readonly #counters: Lru<string, Counter>

  constructor({ max_keys = 10_000 }: MemoryRateLimitStoreOptions = {}) {
    this.max_keys = check.int('max_keys', max_keys, 1)
    this.#counters = new Lru(this.max_keys)
  }

  /** Counts one hit; rolls the window forward when `now_ms` has left it. */
  hit(key: string, now_ms: number, window_ms: number): RateLimitResult {
    const start = window_start(now_ms, window_ms)
    const c = this.#counters.get(key)
    if (c === undefined) {
      const fresh = { start, current: 1, previous: 0 }
      this.#counters.set(key, fresh)
      return { current: 1, previous: 0, window_start_ms: start }
    }
    if (c.start !== start) {
      c.previous = c.start === start - window_ms ? c.current : 0
      c.current = 0
      c.start = start
    }
    c.current++
    return { current: c.current, previous: c.previous, window_start_ms: start }
  }

  /** How many keys are held. */
  get size(): number {
    return this.#counters.size
  }
}
