// The Cache facade: a policy over a shared store, applying the spec's decision rule on every get.
import { CacheContext } from './cache-context.js'
import { CacheEntry, type CacheEntryInit } from './cache-entry.js'
import { CachePolicy, inside_window, type CachePolicyOptions } from './cache-policy.js'
import type { CacheStore, EntryPredicate, StoreAnswer } from './cache-store.js'
import { is_thenable, when } from '../maybe-promise.js'
import { option_checker } from '../options.js'
import { check_now, ERR_CACHE_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_CACHE_BAD_OPTION, 'Cache')

/** What `prune` answers over `S`: 0 without `eraseIf`, else what its `eraseIf` answers. */
export type PruneAnswer<S extends CacheStore> = S extends { eraseIf?: (pred: EntryPredicate) => infer R }
  ? StoreAnswer<R, number>
  : number

/**
 * The spec's `Cache(policy, store)`. Each method answers as the store call behind it does: at once over a synchronous
 * store (`MemoryStore`, `LruMemoryStore`, `FileStore`), with a promise over one that answers later (`RedisCacheStore`);
 * the types follow the store's. `get` follows the decision rule: no entry, none; fresh, the entry; offline and offline
 * reuse allowed for the age, the entry; network error and error reuse allowed for the age, the entry; otherwise none.
 * @example
 * const cache = new Cache(new CachePolicy({ ttl_ms: 30_000 }), new LruMemoryStore({ max_entries: 500 }))
 * cache.put('GET /a?', { body: 'hello', created_at_ms: Date.now() })
 * cache.get('GET /a?', Date.now(), CacheContext.Online())?.body // 'hello'
 */
export class Cache<S extends CacheStore = CacheStore> {
  readonly policy: CachePolicy
  readonly store: S

  constructor(policy: CachePolicy | CachePolicyOptions, store: S) {
    this.policy = policy instanceof CachePolicy ? policy : new CachePolicy(policy)
    for (const method of ['put', 'get', 'erase', 'clear'] as const) check.fn(`store.${method}`, store?.[method])
    this.store = store
  }

  /** The entry under `key` when the decision rule allows it at `now_ms` in `ctx` (default online), else undefined. */
  get(
    key: string,
    now_ms: number,
    ctx: CacheContext = CacheContext.Online(),
  ): StoreAnswer<ReturnType<S['get']>, CacheEntry | undefined> {
    return when(this.store.get(key), (entry) =>
      entry !== undefined && this.#allows(entry, now_ms, ctx) ? entry : undefined,
    ) as StoreAnswer<ReturnType<S['get']>, CacheEntry | undefined>
  }

  /** Stores or replaces the entry under `key`, as a frozen `CacheEntry` with lowercased header names. */
  put(key: string, entry: CacheEntry | CacheEntryInit): StoreAnswer<ReturnType<S['put']>, void> {
    const stored = entry instanceof CacheEntry ? entry : new CacheEntry(entry)
    return when(this.store.put(key, stored), () => undefined) as StoreAnswer<ReturnType<S['put']>, void>
  }

  /**
   * Removes every entry no rule can serve any more (age >= `policy.max_useful_age_ms` or <= its negative, or an unreadable
   * creation time)
   * and returns how many; 0 on a store without `eraseIf`. Throws `FW_ERR_CACHE_BAD_TIME` on a non-finite `now_ms`.
   */
  prune(now_ms: number): PruneAnswer<S> {
    check_now('Cache.prune', now_ms)
    const max = this.policy.max_useful_age_ms
    // Ages are read as the policy reads them: an entry stamped more than max ahead (a clock that went back) goes, and
    // so does one whose age is NaN (nothing could ever serve it).
    const erased = this.store.eraseIf?.((_key, e) => !inside_window(now_ms - e.created_at_ms, max)) ?? 0
    // A thenable that is not a native promise (a promise library's, another realm's) is answered as a native one.
    return (is_thenable(erased) ? Promise.resolve(erased) : erased) as PruneAnswer<S>
  }

  #allows(entry: CacheEntry, now_ms: number, ctx: CacheContext): boolean {
    const age = now_ms - entry.created_at_ms
    const p = this.policy
    return (
      p.is_fresh(age) || (ctx.offline && p.allow_stale_offline(age)) || (ctx.network_error && p.allow_stale_error(age))
    )
  }
}
