// One request at a time per session id, so read-modify-write of a session never loses an update within this process.

/** A queue per key: `acquire` resolves when every earlier holder of the key has released it. */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>()

  /** Waits for the key; call the returned function (once) to release it. */
  async acquire(key: string): Promise<() => void> {
    const before = this.#tails.get(key)
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const tail = before === undefined ? held : before.then(() => held)
    this.#tails.set(key, tail)
    if (before !== undefined) await before
    return () => {
      release()
      // The last holder removes the key, so the map only holds keys in use.
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }

  /** How many keys are held or waited for. */
  get size(): number {
    return this.#tails.size
  }
}
