// The store interface: where entries live. A store never judges freshness; the Cache facade does.
import type { CacheEntry } from './cache-entry.js'
import type { MaybePromise } from '../maybe-promise.js'

export type { MaybePromise } from '../maybe-promise.js'

/** Chooses entries for `eraseIf`: true removes the entry. */
export type EntryPredicate = (key: string, entry: CacheEntry) => boolean

/**
 * The spec's `CacheStore`: `put` stores or replaces, `get` returns the entry or undefined, `erase` removes one key,
 * `clear` removes all. `eraseIf(pred)` is optional; it removes every entry the predicate picks and returns how many.
 * Each method answers at once (the in-memory stores, `FileStore`) or with a promise (`RedisCacheStore`, any `async`
 * method): the `Cache` facade follows what each call returns. A store that cannot answer now throws (or rejects with) a
 * `StoreUnavailable` (`FW_ERR_REDIS_UNAVAILABLE` is one); `http_cache` then serves without the cache (a bypass).
 */
export interface CacheStore {
  put(key: string, entry: CacheEntry): MaybePromise<void>
  get(key: string): MaybePromise<CacheEntry | undefined>
  erase(key: string): MaybePromise<void>
  clear(): MaybePromise<void>
  eraseIf?(pred: EntryPredicate): MaybePromise<number>
}

/**
 * `Promise<T>` when `R`, what a store method answers, is a promise (any thenable); `T` when it is not; either when it
 * may be both.
 */
export type StoreAnswer<R, T> = R extends PromiseLike<unknown> ? Promise<T> : T
