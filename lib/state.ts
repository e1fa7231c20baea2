// Typed keys for per-request state and app services: a class (or abstract class) is its own key, as `state<T>()` in the
// spec.

/** A key that names a value of type T: a class or abstract class, or a `Token<T>` for non-class values. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Key<T> = (abstract new (...args: any[]) => T) | Token<T>

/**
 * A named key for values that have no class of their own.
 * @example
 * const Clock = new Token<() => number>('Clock')
 * app.services.set(Clock, Date.now)
 */
export class Token<T> {
  declare readonly _type: T
  constructor(readonly name: string) {}
}

/** A small typed map from keys to values. */
export class KeyMap {
  #map = new Map<Key<unknown>, unknown>()

  /** The value stored under `key`, or undefined. */
  get<T>(key: Key<T>): T | undefined {
    return this.#map.get(key) as T | undefined
  }

  /** Stores `value` under `key`, replacing any earlier value. */
  set<T>(key: Key<T>, value: T): this {
    this.#map.set(key, value)
    return this
  }

  /** Whether a value is stored under `key`. */
  has(key: Key<unknown>): boolean {
    return this.#map.has(key)
  }

  /** Removes the value under `key`. */
  delete(key: Key<unknown>): boolean {
    return this.#map.delete(key)
  }

  /** Every stored value, in insertion order. */
  values(): IterableIterator<unknown> {
    return this.#map.values()
  }

  /** A new map holding the same values; changing either leaves the other as it is. */
  copy(): KeyMap {
    const c = new KeyMap()
    for (const [key, value] of this.#map) c.#map.set(key, value)
    return c
  }
}

/**
 * The app's service registry: middleware looks services up here (for example a `PermissionResolver`).
 * @example
 * app.services.set(PermissionResolver, new MyResolver())
 */
export class Services extends KeyMap {}
