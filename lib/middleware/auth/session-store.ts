// Where sessions live between requests: the store interface, and a bounded in-memory store with ttl expiry.
import { Lru } from '../../lru.js'
import type { MaybePromise } from '../../maybe-promise.js'
import { option_checker } from '../../options.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_AUTH_BAD_OPTION, 'InMemorySessionStore')

/**
 * The session value `sign_in` keeps the signed-in user under (JSON of its id, roles and perms); exported to the rest of
 * fw by session-state.ts. `InMemorySessionStore` evicts the sessions without it first.
 */
export const SIGNED_IN_KEY = 'fw.identity'

/** What a store keeps of a session: its id and its string values. */
export interface SessionRecord {
  readonly id: string
  readonly data: Readonly<Record<string, string>>
}

/**
 * A session store. Each method answers at once (`InMemorySessionStore`) or with a promise (`RedisSessionStore`, any
 * `async` method). `load` returns undefined for an unknown or expired id; `save` keeps the record for `ttl_seconds`
 * from now, replacing any earlier one; `destroy` forgets the id. Optional: `touch` renews a record's ttl without
 * rewriting it (`rolling`; `save` is used without it), and `lock` holds a session across processes for one request (see
 * `RedisSessionStore`). A store that cannot answer now throws (or rejects with) a `StoreUnavailable`, which the
 * `session` middleware answers 503 `session_store_unavailable`; any other error is a 500. Besides sessions, the
 * middleware saves, for `end_grace` seconds, an empty record under `<id>.ended` for each id a `destroy()` or
 * `regenerate()` ended.
 */
export interface ISessionStore {
  load(sid: string): MaybePromise<SessionRecord | undefined>
  save(session: SessionRecord, ttl_seconds: number): MaybePromise<void>
  destroy(sid: string): MaybePromise<void>
  touch?(sid: string, ttl_seconds: number): MaybePromise<void>
  lock?(sid: string): PromiseLike<() => PromiseLike<void>>
}

/** Options of `InMemorySessionStore`. */
export interface InMemorySessionStoreOptions {
  /**
   * Most sessions kept, signed-in and anonymous together; saving one more evicts the least recently used anonymous one,
   * or the least recently used signed-in one when none is anonymous (default 10000).
   */
  max_entries?: number
  /** The clock, in milliseconds (default `Date.now`); tests pass a fake one. */
  now?: () => number
}

interface Entry {
  data: Readonly<Record<string, string>>
  expires_at: number
}

/**
 * Sessions in this process's memory: for development, demos and single-instance apps (lost on restart, not shared
 * between instances). Expired sessions are dropped when read or evicted; no timer runs, so the store never keeps the
 * process alive. Signed-in sessions (holding `SIGNED_IN_KEY`) and anonymous ones sit in two LRU maps, so a flood of
 * requests without a cookie (each saving a new anonymous session) evicts anonymous sessions, not signed-in users.
 * @example
 * const store = new InMemorySessionStore({ max_entries: 50_000 })
 * app.use(adapt_ctx(auth.session({ secret, store })))
 */
export class InMemorySessionStore implements ISessionStore {
  readonly max_entries: number
  readonly #now: () => number
  /**
   * Sessions with a signed-in user, and anonymous ones. A session id is in one of them at most; the store bounds their
   * sum by `max_entries` itself, so neither map ever evicts on its own.
   */
  readonly #signed: Lru<string, Entry>
  readonly #anonymous: Lru<string, Entry>

  constructor({ max_entries = 10_000, now = Date.now }: InMemorySessionStoreOptions = {}) {
    this.max_entries = check.int('max_entries', max_entries, 1)
    this.#now = check.optional_fn('now', now) ?? Date.now
    this.#signed = new Lru(this.max_entries)
    this.#anonymous = new Lru(this.max_entries)
  }

  /** The session under `sid`, as a copy, or undefined when unknown or expired. */
  load(sid: string): SessionRecord | undefined {
    let entries = this.#signed
    let e = entries.get(sid)
    if (e === undefined) e = (entries = this.#anonymous).get(sid)
    if (e === undefined) return undefined
    if (e.expires_at <= this.#now()) {
      entries.delete(sid)
      return undefined
    }
    return { id: sid, data: { ...e.data } }
  }

  /**
   * Keeps a copy of the session for `ttl_seconds`, in the map of its kind (moving it when it signed in or out). A new
   * session beyond `max_entries` first evicts the least recently used anonymous one, or, when none is left, the least
   * recently used signed-in one.
   */
  save(session: SessionRecord, ttl_seconds: number): void {
    const data = { ...session.data }
    const signed = data[SIGNED_IN_KEY] !== undefined
    const entries = signed ? this.#signed : this.#anonymous
    const other = signed ? this.#anonymous : this.#signed
    if (entries.peek(session.id) === undefined && !other.delete(session.id) && this.size >= this.max_entries) {
      if (this.#anonymous.shift() === undefined) this.#signed.shift()
    }
    entries.set(session.id, { data, expires_at: this.#now() + ttl_seconds * 1000 })
  }

  /** Renews the session's ttl, when it is still there. */
  touch(sid: string, ttl_seconds: number): void {
    const e = this.#signed.peek(sid) ?? this.#anonymous.peek(sid)
    if (e !== undefined && e.expires_at > this.#now()) e.expires_at = this.#now() + ttl_seconds * 1000
  }

  /** Forgets the session. */
  destroy(sid: string): void {
    if (!this.#signed.delete(sid)) this.#anonymous.delete(sid)
  }

  /** How many sessions are kept, signed-in and anonymous, expired ones not yet dropped included. */
  get size(): number {
    return this.#signed.size + this.#anonymous.size
  }
}
