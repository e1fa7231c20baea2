// Sessions in Redis: one string key per session holding its values as JSON, expired by Redis after the ttl.
import { hash, randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ISessionStore, SessionRecord } from '../middleware/auth/session-store.js'
import { ERR_REDIS_BAD_OPTION, ERR_REDIS_UNAVAILABLE } from './errors.js'
import { logger } from '../log/index.js'
import { LuaScript } from './lua-script.js'
import { MAX_TIMER_MS, option_checker } from '../options.js'
import { RedisConnection, type RedisStoreOptions } from './redis-connection.js'

const NAME = 'RedisSessionStore'
const check = option_checker(ERR_REDIS_BAD_OPTION, NAME)
const log = logger('session')

/**
 * Options of `RedisSessionStore`: the connection, and the per-session lock that serializes requests across instances.
 */
export interface RedisSessionStoreOptions extends RedisStoreOptions {
  /**
   * How long a session's lock lasts without renewal (default 30000 ms): the holder renews it every third of this while
   * its request runs, and the lock of a crashed holder expires after it.
   */
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

// Extends the lock only when this holder still owns it: 1 when extended, 0 when the token is gone.
const RENEW = new LuaScript(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0",
)

// Writes the session only while the lock still holds this holder's token: 1 when written, 0 when the token is gone, so
// a holder whose lock expired unnoticed never overwrites what the next holder saved.
const SAVE_HELD = new LuaScript(
  "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) return 1",
)

// Deletes the session only while the lock still holds this holder's token, as SAVE_HELD writes it.
const DESTROY_HELD = new LuaScript(
  "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end redis.call('DEL', KEYS[2]) return 1",
)

/** A session's ttl as Redis takes it: whole milliseconds, at least 1 (`PX 0` is refused). */
function ttl_ms(ttl_seconds: number): number {
  return Math.max(1, Math.round(ttl_seconds * 1000))
}

/** How a session id appears in a log line: a digest, since the id itself is a bearer credential. */
function sid_digest(sid: string): string {
  return 'sid:' + hash('sha256', sid, 'base64url').slice(0, 12)
}

/** One request's hold of a session's lock, renewed by `timer` until released. */
interface Hold {
  readonly sid: string
  /** The lock's key, `<prefix>sess-lock:<sid>`. */
  readonly key: string
  /** This hold's value of the lock key. */
  readonly token: string
  /**
   * Until when the lock surely lasts, on the monotonic clock (`performance.now()`, which no wall clock step moves): the
   * send time of the last SET or renewal that succeeded, plus lock_ttl_ms.
   */
  valid_until: number
  /** The lock may belong to another now: its token was gone, or it went unrenewed past valid_until. */
  lost: boolean
  released: boolean
  timer: NodeJS.Timeout | undefined
}

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
  /** The holds of this store's requests, by session id (the latest one per id). */
  readonly #holds = new Map<string, Hold>()
  /** Per session id, how many unreleased holds lost their lock: saves and destroys of the id are refused meanwhile. */
  readonly #lost = new Map<string, number>()

  constructor({ lock_ttl_ms = 30_000, lock_wait_ms = 5_000, ...options }: RedisSessionStoreOptions = {}) {
    // Node's timers wait at most MAX_TIMER_MS: a longer one fires after 1 ms (the renewal would run without pause).
    this.#lock_ttl_ms = check.int('lock_ttl_ms', lock_ttl_ms, 1, MAX_TIMER_MS)
    this.#lock_wait_ms = check.int('lock_wait_ms', lock_wait_ms, 1, MAX_TIMER_MS)
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

  /**
   * Writes the session's values, replacing any earlier ones, to expire `ttl_seconds` from now. One SET with PX; while a
   * request of this store holds the session's lock, a script that runs that SET only when the lock still holds its
   * token. Rejects with `FW_ERR_REDIS_UNAVAILABLE` instead when that request lost its lock, or the script found it
   * gone.
   */
  async save(session: SessionRecord, ttl_seconds: number): Promise<void> {
    const hold = this.#holds.size + this.#lost.size === 0 ? undefined : this.#check_held(session.id, 'save')
    const text = JSON.stringify(session.data)
    const px = ttl_ms(ttl_seconds)
    if (hold === undefined) {
      await this.#redis.run('save', (r) => r.set(this.key(session.id), text, 'PX', px))
      return
    }
    const keys = [hold.key, this.key(session.id)]
    this.#held_or_lost(
      hold,
      'save',
      await this.#redis.run('save', (r) => SAVE_HELD.run(r, keys, [hold.token, text, String(px)])),
    )
  }

  /** After a script that acts only under `hold`'s token: nothing when it acted (1), else the hold is lost, refused. */
  #held_or_lost(hold: Hold, operation: string, written: unknown): void {
    if (written === 1) return
    this.#lose(hold, `its token was gone at the ${operation}`)
    throw ERR_REDIS_UNAVAILABLE(NAME, operation, 'session lock lost; another may hold it')
  }

  /**
   * Renews the session's expiry without rewriting it (`rolling`). One PEXPIRE, which does nothing to a key already gone:
   * a session that expired or was destroyed since it was loaded stays gone, as in `InMemorySessionStore`.
   */
  async touch(sid: string, ttl_seconds: number): Promise<void> {
    await this.#redis.run('touch', (r) => r.pexpire(this.key(sid), ttl_ms(ttl_seconds)))
  }

  /**
   * Holds the session for one request across every instance: `SET <prefix>sess-lock:<id> <token> NX PX lock_ttl_ms`,
   * retried until `lock_wait_ms`. Resolves to the release function (a compare-and-delete script). Rejects with
   * `FW_ERR_REDIS_UNAVAILABLE` when the wait runs out, so the request gets 503 rather than overwriting another's
   * update. While held, the lock is extended every third of `lock_ttl_ms` by a compare-and-PEXPIRE script (an unref-ed
   * timer, stopped by the release); a lock found taken, or left unrenewed past its expiry, is logged and makes this
   * store refuse the session's save and destroy until the release.
   */
  async lock(sid: string): Promise<() => Promise<void>> {
    const key = `${this.#redis.prefix}sess-lock:${sid}`
    const token = randomBytes(16).toString('base64url')
    const deadline = performance.now() + this.#lock_wait_ms
    const unlock = (): Promise<unknown> => this.#redis.run('unlock', (r) => UNLOCK.run(r, [key], [token]))
    let sent: number
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      let got: string | null
      sent = performance.now()
      try {
        got = await this.#redis.run('lock', (r) => r.set(key, token, 'PX', this.#lock_ttl_ms, 'NX'))
      } catch (err) {
        // A timed-out SET may still run later (Redis paused, or the command queued for the reconnect): the release
        // follows it on the same connection, so a lock nobody holds never blocks the session for lock_ttl_ms.
        unlock().catch(() => undefined)
        throw err
      }
      if (got === 'OK') break
      if (performance.now() >= deadline)
        throw ERR_REDIS_UNAVAILABLE(NAME, 'lock', `session held elsewhere beyond lock_wait_ms`)
      await sleep(pause)
    }
    const valid_until = sent + this.#lock_ttl_ms
    const hold: Hold = { sid, key, token, valid_until, lost: false, released: false, timer: undefined }
    // An unreleased hold of this id here means that request's lock expired (this SET NX got it): it is lost.
    const before = this.#holds.get(sid)
    if (before !== undefined) this.#lose(before, 'taken by another request of this instance')
    this.#holds.set(sid, hold)
    hold.timer = setTimeout(() => void this.#renew(hold), Math.max(1, Math.floor(this.#lock_ttl_ms / 3)))
    hold.timer.unref()
    return async (): Promise<void> => {
      if (hold.released) return
      hold.released = true
      clearTimeout(hold.timer)
      if (this.#holds.get(sid) === hold) this.#holds.delete(sid)
      if (hold.lost) this.#forget_lost(sid)
      const freed = await unlock().catch((err: unknown) => {
        // Lost with a dropped connection, it is not sent again by the client: sent once more, on the next connection
        // (a compare-and-delete may run twice), so the session is not held until lock_ttl_ms.
        unlock().catch(() => undefined)
        throw err
      })
      if (freed === 0 && !hold.lost)
        log.logf('warn', 'session lock lost before its release', 'session', sid_digest(sid))
    }
  }

  /** Extends a held lock, then schedules the next renewal; stops when released or once the lock is lost. */
  async #renew(hold: Hold): Promise<void> {
    const sent = performance.now()
    let extended: unknown
    try {
      const ttl = String(this.#lock_ttl_ms)
      extended = await this.#redis.run('renew', (r) => RENEW.run(r, [hold.key], [hold.token, ttl]))
    } catch (err) {
      if (hold.released || hold.lost) return
      log.logf('warn', 'session lock not renewed', 'session', sid_digest(hold.sid), 'err', err)
      if (performance.now() >= hold.valid_until) this.#lose(hold, 'not renewed before it expired')
      else hold.timer!.refresh()
      return
    }
    if (hold.released || hold.lost) return
    if (extended === 1) {
      hold.valid_until = sent + this.#lock_ttl_ms
      hold.timer!.refresh()
    } else this.#lose(hold, 'its token is gone')
  }

  /** Marks a hold's lock lost: logged, renewals stopped, and the session's writes refused until its release. */
  #lose(hold: Hold, why: string): void {
    if (hold.lost || hold.released) return
    hold.lost = true
    clearTimeout(hold.timer)
    this.#lost.set(hold.sid, (this.#lost.get(hold.sid) ?? 0) + 1)
    log.logf('warn', "session lock lost, its request's save is refused", 'session', sid_digest(hold.sid), 'why', why)
  }

  /** Counts a released lost hold out. */
  #forget_lost(sid: string): void {
    const n = this.#lost.get(sid)! - 1
    if (n === 0) this.#lost.delete(sid)
    else this.#lost.set(sid, n)
  }

  /**
   * Throws `FW_ERR_REDIS_UNAVAILABLE` when a request of this store holding `sid` lost its lock, or its lock may have
   * expired unrenewed (Redis slow or the event loop blocked): another instance may have written the session since.
   * Otherwise answers the hold of `sid` (undefined when no request of this store holds it).
   */
  #check_held(sid: string, operation: string): Hold | undefined {
    const hold = this.#holds.get(sid)
    if (hold !== undefined && !hold.lost && performance.now() >= hold.valid_until) this.#lose(hold, 'expired unrenewed')
    if (this.#lost.has(sid)) throw ERR_REDIS_UNAVAILABLE(NAME, operation, 'session lock lost; another may hold it')
    return hold
  }

  /**
   * Forgets the session: one DEL; while a request of this store holds the session's lock, a script that deletes only
   * when the lock still holds its token. Refused as `save` is when that request lost its lock.
   */
  async destroy(sid: string): Promise<void> {
    const hold = this.#holds.size + this.#lost.size === 0 ? undefined : this.#check_held(sid, 'destroy')
    if (hold === undefined) return void (await this.#redis.run('destroy', (r) => r.del(this.key(sid))))
    const keys = [hold.key, this.key(sid)]
    this.#held_or_lost(
      hold,
      'destroy',
      await this.#redis.run('destroy', (r) => DESTROY_HELD.run(r, keys, [hold.token])),
    )
  }

  /** Closes the Redis client when the store made it from options. */
  close(): Promise<void> {
    return this.#redis.close()
  }
}
