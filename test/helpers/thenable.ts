// Answers that are thenables but not this realm's native promises, as custom stores may give them: a Bluebird-like
// promise, a lazy query builder, and a native promise made in another realm (a `vm` context).
import { runInNewContext } from 'node:vm'

/** A promise library's promise (Bluebird-like): a thenable whose `then` answers another of its kind, never native. */
export class Later<T> implements PromiseLike<T> {
  readonly #p: Promise<T>

  constructor(value: T | PromiseLike<T>) {
    this.#p = Promise.resolve(value)
  }

  static reject<T = never>(err: unknown): Later<T> {
    return new Later(Promise.reject(err) as Promise<T>)
  }

  then<A = T, B = never>(
    ok?: ((value: T) => A | PromiseLike<A>) | null,
    fail?: ((err: unknown) => B | PromiseLike<B>) | null,
  ): Later<A | B> {
    return new Later(this.#p.then(ok, fail))
  }
}

/** A query-builder-like thenable: `work` runs only when something calls `then` (as knex runs a query). */
export function lazy<T>(work: () => T): PromiseLike<Awaited<T>> & { ran: boolean } {
  const q = {
    ran: false,
    then<A = Awaited<T>, B = never>(
      ok?: ((value: Awaited<T>) => A | PromiseLike<A>) | null,
      fail?: ((err: unknown) => B | PromiseLike<B>) | null,
    ): PromiseLike<A | B> {
      q.ran = true
      return Promise.resolve()
        .then(() => work() as Awaited<T>)
        .then(ok, fail)
    },
  }
  return q
}

/** A native promise of another realm (a `vm` context), for which `instanceof Promise` is false here. */
export function foreign<T>(value: T): PromiseLike<T> {
  return runInNewContext('Promise.resolve(value)', { value }) as PromiseLike<T>
}

/** A rejected native promise of another realm. */
export function foreign_reject<T = never>(err: unknown): PromiseLike<T> {
  const p = runInNewContext('Promise.reject(err)', { err }) as Promise<T>
  // Marked handled here so that a test which never reaches it does not fail on an unhandled rejection.
  p.catch(() => undefined)
  return p
}

/**
 * Each kind of thenable a store may answer, as a function of the work that makes its value: a promise library's
 * (`Later`), a lazy builder's (`lazy`, the work run when awaited) and another realm's (`foreign`).
 */
export const THENABLE_KINDS = {
  'Bluebird-like': <T>(work: () => T): PromiseLike<T> => new Later(work()),
  'lazy builder': <T>(work: () => T): PromiseLike<Awaited<T>> => lazy(work),
  'another realm': <T>(work: () => T): PromiseLike<T> => foreign(work()),
}
