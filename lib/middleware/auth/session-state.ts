// The session a request sees: string values, plus destroy and regenerate; the middleware persists what changed.
import { randomBytes } from 'node:crypto'
import { Identity, type IdentityInit } from '../../identity.js'
import { ERR_AUTH_RESERVED_SESSION_KEY, ERR_AUTH_SESSION_DESTROYED } from './errors.js'
import { SIGNED_IN_KEY, type SessionRecord } from './session-store.js'

/**
 * The stored value holding when the session was created (ms since the epoch, in decimal), for `absolute_ttl`. Kept in
 * the record's data so any store keeps it; a `Session` hides it from handlers and refuses to set it.
 */
export const CREATED_KEY = 'fw.created_at'

/** A new session id: 192 random bits, base64url (32 characters). */
export function new_session_id(): string {
  return randomBytes(24).toString('base64url')
}

/**
 * Stored by `session`: the caller's session. Changes are saved after the handler returns; `destroy()` and
 * `regenerate()` take effect then too.
 * @example
 * const s = req.state(Session)!
 * const n = Number(s.get('n') ?? '0') + 1
 * s.set('n', String(n))
 */
export class Session implements SessionRecord {
  /** The id the session had when the request came in (the one in the store). */
  readonly loaded_id: string
  /** Whether the session was created by this request (no valid session cookie came with it). */
  readonly is_new: boolean
  #id: string
  #values: Map<string, string>
  #changed = false
  #destroyed = false
  /** The stored `CREATED_KEY` value, kept out of `#values`; written back as it came unless stamped anew. */
  #created: string | undefined
  /**
   * @internal Whether the session middleware set the creation time during this request (`stamp`): the session is then
   * saved even if nothing else changed.
   */
  stamped = false
  /**
   * @internal Set by `sign_in`: under `absolute_ttl` the middleware starts the session's lifetime again when it saves
   * it (a new id after a login is a new session; `regenerate()` alone keeps the creation time).
   */
  relive = false
  /**
   * @internal Set by the session middleware when the request's cookie named an id a login or logout ended moments ago
   * (`end_grace`): the session is empty, and neither saved nor sent as a cookie, so the browser keeps the cookie that
   * login or logout gave it.
   */
  detached = false

  constructor(record: SessionRecord, is_new: boolean) {
    this.loaded_id = this.#id = record.id
    this.is_new = is_new
    this.#values = new Map(Object.entries(record.data))
    this.#created = this.#values.get(CREATED_KEY)
    if (this.#created !== undefined) this.#values.delete(CREATED_KEY)
  }

  /** The session id (a new one after `regenerate()`). */
  get id(): string {
    return this.#id
  }

  /** A copy of every value. */
  get data(): Record<string, string> {
    return Object.fromEntries(this.#values)
  }

  /** Whether a value was set, deleted, or the id regenerated during this request. */
  get changed(): boolean {
    return this.#changed
  }

  /** Whether `destroy()` was called. */
  get destroyed(): boolean {
    return this.#destroyed
  }

  /** A value, or undefined. */
  get(key: string): string | undefined {
    return this.#values.get(key)
  }

  /**
   * Stores a value. The keys `fw.created_at` and `fw.identity` are fw's (the creation time; the user `sign_in` signed
   * in): setting either throws `FW_ERR_AUTH_RESERVED_SESSION_KEY`.
   */
  set(key: string, value: string): void {
    if (key === CREATED_KEY) throw ERR_AUTH_RESERVED_SESSION_KEY(key, "the session's creation time")
    if (key === SIGNED_IN_KEY) throw ERR_AUTH_RESERVED_SESSION_KEY(key, 'the signed-in user (sign_in)')
    this.keep(key, value)
  }

  /** @internal Stores a value under any key but the creation time's: `sign_in` keeps its user with it. */
  keep(key: string, value: string): void {
    if (this.#destroyed) throw ERR_AUTH_SESSION_DESTROYED('set a value in')
    if (this.#values.get(key) === value) return
    this.#values.set(key, value)
    this.#changed = true
  }

  /** Removes a value; true when there was one. */
  delete(key: string): boolean {
    const had = this.#values.delete(key)
    if (had) this.#changed = true
    return had
  }

  /** Ends the session: it is removed from the store and its cookie cleared (`Max-Age=0`). */
  destroy(): void {
    this.#destroyed = true
    this.#values.clear()
  }

  /**
   * Gives the session a new id and keeps its values and its creation time (it is the same session, for
   * `absolute_ttl`); the old id is deleted from the store. Call it after login.
   */
  regenerate(): void {
    if (this.#destroyed) throw ERR_AUTH_SESSION_DESTROYED('regenerate')
    this.#id = new_session_id()
    this.#changed = true
  }

  /** @internal When the session was created (ms), for `absolute_ttl`; undefined when its record held none readable. */
  created_at(): number | undefined {
    const at = this.#created === undefined ? NaN : Number(this.#created)
    return Number.isSafeInteger(at) && at >= 0 ? at : undefined
  }

  /** @internal Sets the creation time to `at` (ms); see `stamped`. */
  stamp(at: number): void {
    this.#created = String(at)
    this.stamped = true
  }

  /** @internal What the store keeps: the id, and the values with the creation time when there is one. */
  stored(): SessionRecord {
    if (this.#created === undefined) return this
    const data = this.data
    data[CREATED_KEY] = this.#created
    return { id: this.#id, data }
  }
}

// Defined beside the store, which keeps signed-in sessions longest (session-store.ts cannot import this file back).
export { SIGNED_IN_KEY }

/** The signed-in user a session holds (kind `session`), or undefined when none (or the value is not one of fw's). */
export function signed_in(s: Session): Identity | undefined {
  const raw = s.get(SIGNED_IN_KEY)
  if (raw === undefined) return undefined
  try {
    const { id, roles, perms } = JSON.parse(raw) as { id?: unknown; roles?: unknown; perms?: unknown }
    return new Identity({ kind: 'session', id, roles, perms } as IdentityInit)
  } catch {
    return undefined
  }
}
