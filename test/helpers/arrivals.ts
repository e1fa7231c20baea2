// An arrival counter for concurrency tests: requests are released once all of them are in, not after a guessed sleep.
import type { Middleware } from '../../lib/compose.js'

/** A middleware counting the requests that pass it, and a wait for the n-th. */
export interface Arrivals {
  /** Counts the request and continues the chain. */
  readonly middleware: Middleware
  /** How many requests have passed. */
  count(): number
  /**
   * Resolves once `n` requests have passed and the work they started without waiting on I/O (an in-memory lookup,
   * joining a request in flight) has run: the microtasks they queued drain before the `setImmediate` that ends the
   * wait.
   */
  reached(n: number): Promise<void>
}

/** A new arrival counter: put its `middleware` in front of the code whose concurrency is under test. */
export function arrivals(): Arrivals {
  let count = 0
  const waiting: Array<{ n: number; resolve: () => void }> = []
  const middleware: Middleware = (_req, _res, next) => {
    count++
    for (const w of waiting.filter((w) => w.n <= count)) w.resolve()
    return next()
  }
  const reached = async (n: number): Promise<void> => {
    if (count < n) await new Promise<void>((resolve) => waiting.push({ n, resolve }))
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { middleware, count: () => count, reached }
}
