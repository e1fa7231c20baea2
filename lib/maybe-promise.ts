// The one convention for stores that may answer later (cache, session and rate limit stores): a method returns its
// value when it has it at once, a promise when it does not, and callers branch on `instanceof Promise`.

/**
 * What a store method answers: the value itself (an in-memory store, so its hot path allocates no promise) or a native
 * `Promise` of it (an `async` method: Redis, a database). A method that fails at once may throw.
 */
export type MaybePromise<T> = T | Promise<T>

/**
 * `next(value)` at once when `value` is not a promise, else a promise of it (and of `fail(error)` on a rejection, when
 * given): the caller of a synchronous store stays synchronous.
 * @example
 * return when(store.get(key), (entry) => entry?.body)
 */
export function when<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => R,
  fail?: (error: unknown) => R,
): R | Promise<Awaited<R>> {
  return value instanceof Promise ? (value.then(next, fail) as Promise<Awaited<R>>) : next(value)
}

/**
 * What `work` gives, or `late` once `ms` have passed without it settling; the timer is cleared either way, and a
 * rejection of `work` in time rejects. For work that may never settle: a health check, a close hook, a probe.
 * @example
 * if ((await within(store.quit(), 2000, LATE)) === LATE) log('quit did not finish')
 */
export async function within<T, L>(work: T | PromiseLike<T>, ms: number, late: L): Promise<Awaited<T> | L> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<L>((resolve) => (timer = setTimeout(resolve, ms, late)))
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}
