// The one least-recently-used map of fw: the cache's LruMemoryStore, the rate limit counters and the in-memory sessions
// all keep their bounded state in it.

/**
 * A map holding at most `max` keys: `get` and `set` make a key the most recently used, and a `set` of a new key past
 * `max` first drops the least recently used one. Entries sit in slots of a doubly linked list kept in number arrays
 * (the layout `lru-cache` uses), indexed by a Map, so a hit allocates nothing.
 * @example
 * const recent = new Lru<string, number>(2)
 * recent.set('a', 1); recent.set('b', 2); recent.get('a'); recent.set('c', 3) // 'b' is dropped
 */
export class Lru<K, V> {
  readonly max: number
  readonly #slots = new Map<K, number>()
  #keys: (K | undefined)[] = []
  #values: (V | undefined)[] = []
  #next: number[] = []
  #prev: number[] = []
  /** Least recently used slot (next to go) and most recently used slot; meaningful while the map is not empty. */
  #head = 0
  #tail = 0
  #free: number[] = []

  /** `max` is checked by the owner, which names it in its own option error. */
  constructor(max: number) {
    this.max = max
  }

  /** How many keys are held. */
  get size(): number {
    return this.#slots.size
  }

  /** The value under `key`, made the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const slot = this.#slots.get(key)
    if (slot === undefined) return undefined
    this.#touch(slot)
    return this.#values[slot]
  }

  /** The value under `key` without changing its rank; undefined when absent. */
  peek(key: K): V | undefined {
    const slot = this.#slots.get(key)
    return slot === undefined ? undefined : this.#values[slot]
  }

  /** Stores or replaces `key` as the most recently used, dropping the least recently used key when full. */
  set(key: K, value: V): void {
    let slot = this.#slots.get(key)
    if (slot !== undefined) {
      this.#values[slot] = value
      this.#touch(slot)
      return
    }
    if (this.#slots.size >= this.max) {
      // Reuse the evicted slot: it is the head, and touching it moves it to the tail.
      slot = this.#head
      this.#slots.delete(this.#keys[slot]!)
      this.#touch(slot)
    } else {
      slot = this.#free.pop() ?? this.#grow()
      this.#append(slot)
    }
    this.#keys[slot] = key
    this.#values[slot] = value
    this.#slots.set(key, slot)
  }

  /** Removes `key`; true when it was there. */
  delete(key: K): boolean {
    const slot = this.#slots.get(key)
    if (slot === undefined) return false
    this.#unlink(slot)
    this.#slots.delete(key)
    this.#keys[slot] = undefined
    this.#values[slot] = undefined
    this.#free.push(slot)
    return true
  }

  /** Removes the least recently used key and returns it; undefined when the map is empty. */
  shift(): K | undefined {
    if (this.#slots.size === 0) return undefined
    const key = this.#keys[this.#head]!
    this.delete(key)
    return key
  }

  /** Removes every key. */
  clear(): void {
    this.#slots.clear()
    this.#keys = []
    this.#values = []
    this.#next = []
    this.#prev = []
    this.#free = []
  }

  /** A snapshot of the entries from least to most recently used, so a caller may change the map while reading it. */
  entries(): Array<[K, V]> {
    const out: Array<[K, V]> = []
    for (let i = 0, slot = this.#head; i < this.#slots.size; i++, slot = this.#next[slot]!) {
      out.push([this.#keys[slot]!, this.#values[slot]!])
    }
    return out
  }

  /** A new slot at the end of the arrays, which grow densely so they stay fast. */
  #grow(): number {
    this.#keys.push(undefined)
    this.#values.push(undefined)
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
