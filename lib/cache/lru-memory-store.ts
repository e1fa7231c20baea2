// The bounded in-memory store: least recently used entries go first once max_entries is reached.
import type { CacheEntry } from './cache-entry.js'
import type { CacheStore, EntryPredicate } from './cache-store.js'
import { check } from './options.js'

/** Options of an `LruMemoryStore`. */
export interface LruMemoryStoreOptions {
  /** Most entries kept (default 1024). */
  max_entries?: number
}

/**
 * The spec's `LruMemoryStore`. A successful `get` or a `put` makes the entry the most recently used; a `put` that would
 * take the count past `max_entries` first removes the least recently used entry. `eraseIf(pred)` returns the removed
 * count.
 * Entries sit in slots of a doubly linked list kept in number arrays (the layout `lru-cache` uses), indexed by a Map.
 * @example
 * const store = new LruMemoryStore({ max_entries: 500 })
 */
export class LruMemoryStore implements CacheStore {
  readonly max_entries: number
  readonly #slots = new Map<string, number>()
  #keys: (string | undefined)[] = []
  #entries: (CacheEntry | undefined)[] = []
  #next: number[] = []
  #prev: number[] = []
  /** Least recently used slot (next to go) and most recently used slot; meaningful while the store is not empty. */
  #head = 0
  #tail = 0
  #free: number[] = []

  constructor({ max_entries = 1024 }: LruMemoryStoreOptions = {}) {
    this.max_entries = check.int('LruMemoryStore', 'max_entries', max_entries, 1)
  }

  /** How many entries are stored. */
  get size(): number {
    return this.#slots.size
  }

  /** The entry under `key`, made the most recently used; undefined when absent. */
  get(key: string): CacheEntry | undefined {
    const slot = this.#slots.get(key)
    if (slot === undefined) return undefined
    this.#touch(slot)
    return this.#entries[slot]
  }

  /**
   * Stores or replaces the entry under `key` as the most recently used, evicting the least recently used one when full.
   */
  put(key: string, entry: CacheEntry): void {
    let slot = this.#slots.get(key)
    if (slot !== undefined) {
      this.#entries[slot] = entry
      this.#touch(slot)
      return
    }
    if (this.#slots.size >= this.max_entries) {
      // Reuse the evicted slot: it is the head, and touching it moves it to the tail.
      slot = this.#head
      this.#slots.delete(this.#keys[slot]!)
      this.#touch(slot)
    } else {
      slot = this.#free.pop() ?? this.#grow()
      this.#append(slot)
    }
    this.#keys[slot] = key
    this.#entries[slot] = entry
    this.#slots.set(key, slot)
  }

  /** Removes the entry under `key`, if any. */
  erase(key: string): void {
    this.#remove(key)
  }

  /** Removes every entry. */
  clear(): void {
    this.#slots.clear()
    this.#keys = []
    this.#entries = []
    this.#next = []
    this.#prev = []
    this.#free = []
  }

  /** Removes every entry `pred(key, entry)` picks, from least to most recently used, and returns how many. */
  eraseIf(pred: EntryPredicate): number {
    const slots: number[] = []
    for (let i = 0, slot = this.#head; i < this.#slots.size; i++, slot = this.#next[slot]!) slots.push(slot)
    // Decide on a snapshot, erase after: a predicate that reads the store (and so reorders it) cannot derail the walk.
    const picked = slots
      .map((slot) => [this.#keys[slot]!, this.#entries[slot]!] as const)
      .filter(([key, entry]) => pred(key, entry))
    let removed = 0
    for (const [key] of picked) if (this.#remove(key)) removed++
    return removed
  }

  #remove(key: string): boolean {
    const slot = this.#slots.get(key)
    if (slot === undefined) return false
    this.#unlink(slot)
    this.#slots.delete(key)
    this.#keys[slot] = undefined
    this.#entries[slot] = undefined
    this.#free.push(slot)
    return true
  }

  /** A new slot at the end of the arrays, which grow densely so they stay fast. */
  #grow(): number {
    this.#keys.push(undefined)
    this.#entries.push(undefined)
    this.#next.push(0)
    this.#prev.push(0)
    return this.#keys.length - 1
  }

  /** Makes `slot` the most recently used. */
  #touch(slot: number): void {
    if (slot === this.#tail) return
    this.#unlink(slot)
    this.#append(slot)
  }

  /** Links `slot` after the tail (as the only element when the list is empty). */
  #append(slot: number): void {
    if (this.#slots.size === 0) {
      this.#head = slot
    } else {
      this.#next[this.#tail] = slot
      this.#prev[slot] = this.#tail
    }
    this.#tail = slot
  }

  #unlink(slot: number): void {
    const prev = this.#prev[slot]!
    const next = this.#next[slot]!
    if (slot === this.#head) this.#head = next
    else this.#next[prev] = next
    if (slot === this.#tail) this.#tail = prev
    else this.#prev[next] = prev
  }
}
