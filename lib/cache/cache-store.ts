// The store interfaces: where entries live. A store never judges freshness; the Cache facade does.
import type { CacheEntry } from './cache-entry.js'

/** Chooses entries for `eraseIf`: true removes the entry. */
export type EntryPredicate = (key: string, entry: CacheEntry) => boolean

/**
 * The spec's `CacheStore`, synchronous: `put` stores or replaces, `get` returns the entry or undefined, `erase` removes
 * one
 * key, `clear` removes all. `eraseIf(pred)` is optional; it removes every entry the predicate picks and returns how
 * many.
 */
export interface CacheStore {
  put(key: string, entry: CacheEntry): void
  get(key: string): CacheEntry | undefined
  erase(key: string): void
  clear(): void
  eraseIf?(pred: EntryPredicate): number
}

/**
 * The same operations for a store that answers later (Redis, a database). `async: true` tells the `Cache` facade to
 * answer with promises, even for a store without `eraseIf`.
 */
export interface AsyncCacheStore {
  readonly async: true
  put(key: string, entry: CacheEntry): Promise<void>
  get(key: string): Promise<CacheEntry | undefined>
  erase(key: string): Promise<void>
  clear(): Promise<void>
  eraseIf?(pred: EntryPredicate): Promise<number>
}

/** Either kind of store. */
export type AnyCacheStore = CacheStore | AsyncCacheStore

/** `T` for a synchronous store, `Promise<T>` for an asynchronous one (`T | Promise<T>` when the kind is not known). */
export type StoreResult<S extends AnyCacheStore, T> = S extends AsyncCacheStore ? Promise<T> : T
