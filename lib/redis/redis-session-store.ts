// Sessions in Redis: one string key per session holding its values as JSON, expired by Redis after the ttl.
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ISessionStore, SessionRecord } from '../middleware/auth/session-store.js'
import { ERR_REDIS_BAD_OPTION, ERR_REDIS_UNAVAILABLE } from './errors.js'
import { LuaScript } from './lua-script.js'
import { option_checker } from '../options.js'
import { RedisConnection, type RedisStoreOptions } from './redis-connection.js'

const NAME = 'RedisSessionStore'
const check = option_checker(ERR_REDIS_BAD_OPTION, NAME)

/**
 * Options of `RedisSessionStore`: the connection, and the per-session lock that serializes requests across instances.
 */
export interface RedisSessionStoreOptions extends RedisStoreOptions {
  /** Longest a request holds a session's lock; a crashed holder frees it after this (default 30000 ms). */
  lock_ttl_ms?: number
  /**
   * Longest a request waits for a session another instance holds; then 503 `session_store_unavailable` (default 5000
   * ms).
   */
  lock_wait_ms?: number
}

// Deletes the lock only when this holder still owns it, so a holder whose lock expired never frees the next one's.
const UNLOCK = new LuaScript(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
)

/** The values of a stored session, or undefined when the stored text is not an object of strings. */
function parse_data(text: string): Record<string, string> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const entries = Object.entries(value)
  return entries.every(([, v]) => typeof v === 'string')
    ? (Object.fromEntries(entries) as Record<string, string>)
    : undefined
}

/**
 * Sessions shared by every instance that uses the same Redis and prefix. The `session` middleware takes the session's
 * Redis lock (`lock`) for each request that carries one, so two instances updating one session run one after the other
 * and neither update is lost. A session lives under `<prefix>sess:<id>` as the JSON of its values, written with `SET
 * ... PX`, so Redis expires it `ttl_seconds` after its last save (nothing to sweep). A record that is not an object of
 * strings loads as unknown (the caller starts a new session). Every method rejects with `FW_ERR_REDIS_UNAVAILABLE`
 * (status 503) while Redis cannot answer; the `session` middleware then answers 503 `session_store_unavailable`.
 * @example
 * const store = new RedisSessionStore({ client: redis, prefix: 'shop:' })
 * app.use(adapt_ctx(auth.session({ secret: process.env.FW_SESSION_SECRET!, store })))
 */
export class RedisSessionStore implements ISessionStore {
  readonly #redis: RedisConnection
  readonly #lock_ttl_ms: number
  readonly #lock_wait_ms: number

  constructor({ lock_ttl_ms = 30_000, lock_wait_ms = 5_000, ...options }: RedisSessionStoreOptions = {}) {
    this.#lock_ttl_ms = check.int('lock_ttl_ms', lock_ttl_ms, 1)
    this.#lock_wait_ms = check.int('lock_wait_ms', lock_wait_ms, 1)
    this.#redis = new RedisConnection(NAME, options)
  }

  /** The Redis key of a session id. */
  key(sid: string): string {
    return `${this.#redis.prefix}sess:${sid}`
  }

  /** The session under `sid`, or undefined when unknown, expired or unreadable. One GET. */
  async load(sid: string): Promise<SessionRecord | undefined> {
    const text = await this.#redis.run('load', (r) => r.get(this.key(sid)))
    const data = text === null ? undefined : parse_data(text)
    return data === undefined ? undefined : { id: sid, data }
  }

  /** Writes the session's values, replacing any earlier ones, to expire `ttl_seconds` from now. One SET with PX. */
  async save(session: SessionRecord, ttl_seconds: number): Promise<void> {
    const text = JSON.stringify(session.data)
    await this.#redis.run('save', (r) =>
      r.set(this.key(session.id), text, 'PX', Math.max(1, Math.round(ttl_seconds * 1000))),
    )
  }

  /** Renews the session's expiry without rewriting it (`rolling`). One PEXPIRE. */
  async touch(sid: string, ttl_seconds: number): Promise<void> {
    await this.#redis.run('touch', (r) => r.pexpire(this.key(sid), Math.max(1, Math.round(ttl_seconds * 1000))))
  }

  /**
   * Holds the session for one request across every instance: `SET <prefix>sess-lock:<id> <token> NX PX lock_ttl_ms`,
   * retried until `lock_wait_ms`. Resolves to the release function (a compare-and-delete script). Rejects with
   * `FW_ERR_REDIS_UNAVAILABLE` when the wait runs out, so the request gets 503 rather than overwriting another's
   * update.
   */
  async lock(sid: string): Promise<() => Promise<void>> {
    const key = `${this.#redis.prefix}sess-lock:${sid}`
    const token = randomBytes(16).toString('base64url')
    const deadline = Date.now() + this.#lock_wait_ms
    const release = async (): Promise<void> => {
      await this.#redis.run('unlock', (r) => UNLOCK.run(r, [key], [token]))
    }
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      let got: string | null
      try {
        got = await this.#redis.run('lock', (r) => r.set(key, token, 'PX', this.#lock_ttl_ms, 'NX'))
      } catch (err) {
        // A timed-out SET may still run later (Redis paused, or the command queued for the reconnect): the release
        // follows it on the same connection, so a lock nobody holds never blocks the session for lock_ttl_ms.
        release().catch(() => undefined)
        throw err
      }
      if (got === 'OK') break
      if (Date.now() >= deadline)
        throw ERR_REDIS_UNAVAILABLE(NAME, 'lock', `session held elsewhere beyond lock_wait_ms`)
      await sleep(pause)
    }
    return release
  }

  /** Forgets the session. One DEL. */
  async destroy(sid: string): Promise<void> {
    await this.#redis.run('destroy', (r) => r.del(this.key(sid)))
  }

  /** Closes the Redis client when the store made it from options. */
  close(): Promise<void> {
    return this.#redis.close()
  }
}
