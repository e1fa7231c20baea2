// Sessions in Redis: one string key per session holding its values as JSON, expired by Redis after the ttl.
import type { ISessionStore, SessionRecord } from '../middleware/auth/session-store.js'
import { RedisConnection, type RedisStoreOptions } from './redis-connection.js'

const NAME = 'RedisSessionStore'

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
  return entries.every(([, v]) => typeof v === 'string') ? Object.fromEntries(entries) as Record<string, string> : undefined
}

/**
 * Sessions shared by every instance that uses the same Redis and prefix. A session lives under `<prefix>sess:<id>` as the
 * JSON of its values, written with `SET ... PX`, so Redis expires it `ttl_seconds` after its last save (nothing to sweep).
 * A record that is not an object of strings loads as unknown (the caller starts a new session). Every method rejects with
 * `FW_ERR_REDIS_UNAVAILABLE` (status 503) while Redis cannot answer; the `session` middleware then answers 503
 * `session_store_unavailable`.
 * @example
 * const store = new RedisSessionStore({ client: redis, prefix: 'shop:' })
 * app.use(adapt_ctx(auth.session({ secret: process.env.FW_SESSION_SECRET!, store })))
 */
export class RedisSessionStore implements ISessionStore {
  readonly #redis: RedisConnection

  constructor(options: RedisStoreOptions = {}) {
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
    await this.#redis.run('save', (r) => r.set(this.key(session.id), text, 'PX', Math.max(1, Math.round(ttl_seconds * 1000))))
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
