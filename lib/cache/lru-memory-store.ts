// The bounded in-memory store: least recently used entries go first once max_entries is reached.
import type { CacheEntry } from './cache-entry.js'
import type { CacheStore, EntryPredicate } from './cache-store.js'
import { option_checker } from '../options.js'
import { Lru } from '../lru.js'
import { ERR_CACHE_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_CACHE_BAD_OPTION, 'LruMemoryStore')

/** Options of an `LruMemoryStore`. */
export interface LruMemoryStoreOptions {
  /** Most entries kept (default 1024). */
  max_entries?: number
}

/**
 * The spec's `LruMemoryStore`. A successful `get` or a `put` makes the entry the most recently used; a `put` that would
 * take the count past `max_entries` first removes the least recently used entry. `eraseIf(pred)` returns the removed
 * count.
 * @example
 * const store = new LruMemoryStore({ max_entries: 500 })
 */
export class LruMemoryStore implements CacheStore {
  readonly max_entries: number
  readonly #entries: Lru<string, CacheEntry>

  constructor({ max_entries = 1024 }: LruMemoryStoreOptions = {}) {
    this.max_entries = check.int('max_entries', max_entries, 1)
    this.#entries = new Lru(this.max_entries)
  }

  /** How many entries are stored. */
  get size(): number {
    return this.#entries.size
  }

  /** The entry under `key`, made the most recently used; undefined when absent. */
  get(key: string): CacheEntry | undefined {
    return this.#entries.get(key)
  }

  /**
   * Stores or replaces the entry under `key` as the most recently used, evicting the least recently used one when full.
   */
  put(key: string, entry: CacheEntry): void {
    this.#entries.set(key, entry)
  }

  /** Removes the entry under `key`, if any. */
  erase(key: string): void {
    this.#entries.delete(key)
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear()
  }

  /** Removes every entry `pred(key, entry)` picks, from least to most recently used, and returns how many. */
  eraseIf(pred: EntryPredicate): number {
    // Decide on a snapshot, erase after: a predicate that reads the store (and so reorders it) cannot derail the walk.
    const picked = this.#entries.entries().filter(([key, entry]) => pred(key, entry))
    let removed = 0
    for (const [key] of picked) if (this.#entries.delete(key)) removed++
    return removed
  }
}
