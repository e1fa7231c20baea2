// The plain in-memory store: a Map, no eviction, no predicate removal.
import type { CacheEntry } from './cache-entry.js'
import type { CacheStore } from './cache-store.js'

/**
 * The spec's `MemoryStore`: entries in a Map, kept until erased or cleared. It has no `eraseIf`, so `Cache.prune`
 * leaves it alone; use `LruMemoryStore` when the number of keys is not bounded by the program itself.
 * @example
 * const cache = new Cache(new CachePolicy(), new MemoryStore())
 */
export class MemoryStore implements CacheStore {
  readonly #entries = new Map<string, CacheEntry>()

  /** How many entries are stored. */
  get size(): number {
    return this.#entries.size
  }

  /** Stores or replaces the entry under `key`. */
  put(key: string, entry: CacheEntry): void {
    this.#entries.set(key, entry)
  }

  /** The entry under `key`, or undefined. */
  get(key: string): CacheEntry | undefined {
    return this.#entries.get(key)
  }

  /** Removes the entry under `key`, if any. */
  erase(key: string): void {
    this.#entries.delete(key)
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear()
  }
}
