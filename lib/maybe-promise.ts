// The one convention for stores that may answer later (cache, session and rate limit stores): a method returns its
// value when it has it at once, a thenable (a promise) when it does not, and callers branch on `is_thenable`.

/**
 * What a store method answers: the value itself (an in-memory store, so its hot path allocates no promise) or a
 * thenable of it: a native `Promise` (an `async` method: Redis, a database), a promise library's, a lazy query builder
 * or a promise from another realm (a `vm` context). A method that fails at once may throw.
 */
export type MaybePromise<T> = T | PromiseLike<T>

/**
 * Whether `value` answers later: an object or function with a callable `then`, as `await` and `Promise.resolve` tell a
 * thenable. Not `instanceof Promise`, which misses a promise library's promises, lazy builders and another realm's
 * promises (the store's answer would then be taken for its value). Allocates nothing.
 */
export function is_thenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}

/**
 * `next(value)` at once when `value` is not a thenable, else a native promise of it (and of `fail(error)` on a
 * rejection, when given): the caller of a synchronous store stays synchronous.
 * @example
 * return when(store.get(key), (entry) => entry?.body)
 */
export function when<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => R,
  fail?: (error: unknown) => R,
): R | Promise<Awaited<R>> {
  // Promise.resolve gives a native promise back as it is, and adopts any other thenable into one.
  return is_thenable(value) ? (Promise.resolve(value).then(next, fail) as Promise<Awaited<R>>) : next(value)
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

/**
 * Does nothing: the handler of an error or rejection that is someone else's to read (a stream's `error` its reader
 * learns otherwise, a rejection already answered), so that it never surfaces as unhandled.
 */
export const ignore = (): void => {}
