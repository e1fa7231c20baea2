// The Cache facade: a policy over a shared store, applying the spec's decision rule on every get.
import { CacheContext } from './cache-context.js'
import { CacheEntry, type CacheEntryInit } from './cache-entry.js'
import { CachePolicy, type CachePolicyOptions } from './cache-policy.js'
import type { AnyCacheStore, StoreResult } from './cache-store.js'
import { check, check_now } from './options.js'

/**
 * The spec's `Cache(policy, store)`. With a synchronous store (`MemoryStore`, `LruMemoryStore`, `FileStore`) every
 * method
 * answers at once; with an `AsyncCacheStore` every method answers with a promise. `get` follows the decision rule:
 * no entry, none; fresh, the entry; offline and offline reuse allowed for the age, the entry; network error and error
 * reuse allowed for the age, the entry; otherwise none.
 * @example
 * const cache = new Cache(new CachePolicy({ ttl_ms: 30_000 }), new LruMemoryStore({ max_entries: 500 }))
 * cache.put('GET /a?', { body: 'hello', created_at_ms: Date.now() })
 * cache.get('GET /a?', Date.now(), CacheContext.Online())?.body // 'hello'
 */
export class Cache<S extends AnyCacheStore = AnyCacheStore> {
  readonly policy: CachePolicy
  readonly store: S
  readonly #async: boolean

  constructor(policy: CachePolicy | CachePolicyOptions, store: S) {
    this.policy = policy instanceof CachePolicy ? policy : new CachePolicy(policy)
    for (const method of ['put', 'get', 'erase', 'clear'] as const)
      check.fn('Cache', `store.${method}`, store?.[method])
    this.store = store
    this.#async = (store as { async?: unknown }).async === true
  }

  /** The entry under `key` when the decision rule allows it at `now_ms` in `ctx` (default online), else undefined. */
  get(key: string, now_ms: number, ctx: CacheContext = CacheContext.Online()): StoreResult<S, CacheEntry | undefined> {
    return this.#then(
      () => this.store.get(key),
      (entry) => (entry !== undefined && this.#allows(entry, now_ms, ctx) ? entry : undefined),
    )
  }

  /** Stores or replaces the entry under `key`, as a frozen `CacheEntry` with lowercased header names. */
  put(key: string, entry: CacheEntry | CacheEntryInit): StoreResult<S, void> {
    const stored = entry instanceof CacheEntry ? entry : new CacheEntry(entry)
    return this.#then(
      () => this.store.put(key, stored),
      () => undefined,
    )
  }

  /**
   * Removes every entry no rule can serve any more (age >= `policy.max_useful_age_ms`, or an unreadable creation time)
   * and returns how many; 0 on a store without `eraseIf`. Throws `FW_ERR_CACHE_BAD_TIME` on a non-finite `now_ms`.
   */
  prune(now_ms: number): StoreResult<S, number> {
    check_now('Cache.prune', now_ms)
    const max = this.policy.max_useful_age_ms
    const store = this.store
    // Written as "not younger than max" so an entry whose age is NaN goes too: nothing could ever serve it.
    return this.#then(
      () => (store.eraseIf ? store.eraseIf((_key, e) => !(now_ms - e.created_at_ms < max)) : 0),
      (n) => n,
    )
  }

  #allows(entry: CacheEntry, now_ms: number, ctx: CacheContext): boolean {
    const age = now_ms - entry.created_at_ms
    const p = this.policy
    return (
      p.is_fresh(age) || (ctx.offline && p.allow_stale_offline(age)) || (ctx.network_error && p.allow_stale_error(age))
    )
  }

  /**
   * Runs a store call and continues with its value: at once for a synchronous store, in a promise for an asynchronous
   * one.
   */
  #then<T, R>(call: () => T | Promise<T>, next: (value: T) => R): StoreResult<S, R> {
    if (!this.#async) return next(call() as T) as StoreResult<S, R>
    // An async function turns a synchronous throw of the store into a rejection, as callers of a promise API expect.
    return (async () => next(await call()))() as StoreResult<S, R>
  }
}
