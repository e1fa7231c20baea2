// Server-side sessions: a signed cookie names a record in a store; the middleware loads it, and saves it when it changed.
import type { Ctx, CtxMiddleware, Next } from '../../compose.js'
import { FwError, httpCode } from '../../errors.js'
import { bool_option, int_option, must, one_of_option, secret_option, token_option } from './options.js'
import { SessionCookie, type CookieSettings } from './session-cookie.js'
import { KeyedLock } from './session-lock.js'
import { Session, new_session_id } from './session-state.js'
import { InMemorySessionStore, type ISessionStore } from './session-store.js'
import { observed, report } from '../../observability/events.js'

/** Options of `session`. */
export interface SessionOptions {
  /** Signs the cookie (HMAC-SHA256); at least 16 characters, from configuration. Changing it ends every session. */
  secret: string
  /** Where sessions live (default a new `InMemorySessionStore`). */
  store?: ISessionStore
  /** Cookie name (default `sid`). */
  cookie_name?: string
  /** Cookie path (default `/`). */
  cookie_path?: string
  /** Adds `Secure`; use true over HTTPS (default false). Required by SameSite `None` and `__Host-`/`__Secure-` names. */
  secure?: boolean
  /** Adds `HttpOnly` (default true). */
  http_only?: boolean
  /** SameSite policy: `Strict`, `Lax` or `None` (default `Lax`). */
  same_site?: 'Strict' | 'Lax' | 'None'
  /** Seconds a session lives after its last save; also the cookie's `Max-Age` (default 7 days). */
  ttl?: number
  /** Save a new session (and set its cookie) on every request without one; when false, only once a value is set (default true). */
  auto_create?: boolean
  /** Run requests carrying the same session one at a time, so concurrent updates are not lost (default true). */
  serialize?: boolean
}

const WEEK = 7 * 24 * 3600

export const CODE_SESSION_STORE_UNAVAILABLE = httpCode('session_store_unavailable')
const MW = 'session'

interface Config {
  store: ISessionStore
  cookie: SessionCookie
  ttl: number
  auto_create: boolean
  locks: KeyedLock | undefined
}

function cookie_settings({
  cookie_name = 'sid', cookie_path: path = '/', secure = false, http_only = true, same_site = 'Lax', ttl = WEEK,
}: SessionOptions): CookieSettings {
  const name = token_option(MW, 'cookie_name', cookie_name)
  must(typeof path === 'string' && /^\/[^;\s\0]*$/.test(path), MW, 'cookie_path', 'a path starting with / without ; or spaces', path)
  bool_option(MW, 'secure', secure)
  const site = one_of_option(MW, 'same_site', same_site, ['Strict', 'Lax', 'None'] as const)
  // Browsers refuse these cookies without Secure; failing at startup beats a session that silently never sticks.
  must(secure || site !== 'None', MW, 'secure', 'true when same_site is None', secure)
  must(secure || !/^__(Host|Secure)-/.test(name), MW, 'secure', `true for a cookie named ${name}`, secure)
  must(!name.startsWith('__Host-') || path === '/', MW, 'cookie_path', '/ for a __Host- cookie', path)
  bool_option(MW, 'http_only', http_only)
  return { name, path, secure, http_only, same_site: site, max_age: int_option(MW, 'ttl', ttl, 1) }
}

function configure(o: SessionOptions): Config {
  must(typeof o === 'object' && o !== null, MW, 'options', 'an object', o)
  const { secret, store = new InMemorySessionStore(), auto_create = true, serialize = true } = o
  const settings = cookie_settings(o)
  const is_store = typeof store === 'object' && store !== null &&
    ['load', 'save', 'destroy'].every((m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function')
  must(is_store, MW, 'store', 'an object with load, save and destroy methods', store)
  return {
    store,
    cookie: new SessionCookie(secret_option(MW, 'secret', secret, 16), settings),
    ttl: settings.max_age,
    auto_create: bool_option(MW, 'auto_create', auto_create),
    locks: bool_option(MW, 'serialize', serialize) ? new KeyedLock() : undefined,
  }
}

/** The session named by a verified cookie id, or a new one (never adopting an id the store does not know). */
async function open(c: Config, id: string | undefined): Promise<Session> {
  const record = id === undefined ? undefined : await c.store.load(id)
  return record === undefined ? new Session({ id: new_session_id(), data: {} }, true) : new Session(record, false)
}

/** Writes back what the request did to the session. */
async function persist(c: Config, ctx: Ctx, s: Session): Promise<void> {
  if (s.destroyed) {
    if (!s.is_new) await c.store.destroy(s.loaded_id)
    c.cookie.clear(ctx.res)
    return
  }
  if (!s.changed && !(s.is_new && c.auto_create)) return
  if (s.id !== s.loaded_id && !s.is_new) await c.store.destroy(s.loaded_id)
  await c.store.save(s, c.ttl)
  c.cookie.write(ctx.res, s.id)
}

/**
 * Runs store work. A store that cannot answer now (it throws an error with status 503, as `FW_ERR_REDIS_UNAVAILABLE`)
 * makes the answer 503 `session_store_unavailable` instead of a 500, and the work gives undefined.
 */
async function store_work<T>(ctx: Ctx, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work()
  } catch (err) {
    if (!(err instanceof FwError) || err.status !== 503) throw err
    if (observed()) report({ kind: 'session_store_error' })
    // The handler may have answered already: its cookies and caching must not outlive a session that was not saved.
    ctx.res.remove_header('set-cookie').header('cache-control', 'no-store')
    ctx.res.error(503, CODE_SESSION_STORE_UNAVAILABLE, 'Session store unavailable, retry later')
    return undefined
  }
}

async function run(c: Config, ctx: Ctx, id: string | undefined, next: Next): Promise<void> {
  const s = await store_work(ctx, () => open(c, id))
  if (s === undefined) return
  ctx.req.set_state(Session, s)
  await next()
  // Not reached when the chain throws: a failed request leaves the stored session as it was.
  await store_work(ctx, () => persist(c, ctx, s))
}

/**
 * Server-side sessions. The cookie `<id>.<HMAC>` names a session in the store; a missing, forged, unknown or expired cookie
 * starts a new session with a new id. The session is stored as `Session`; after the chain it is saved (with `ttl`) when it is
 * new or changed, removed after `destroy()`, and moved to its new id after `regenerate()`. Requests carrying the same session
 * run one at a time in this process (`serialize`), so a counter incremented by N concurrent requests ends at N. A store that
 * cannot answer (an error with status 503) gives 503 `session_store_unavailable`.
 * @example
 * app.use(adapt_ctx(auth.session({ secret: process.env.FW_SESSION_SECRET!, secure: true })))
 */
export function session(options: SessionOptions): CtxMiddleware {
  const c = configure(options)
  return async function session(ctx, next) {
    const id = c.cookie.read(ctx.req)
    if (id === undefined || c.locks === undefined) return run(c, ctx, id, next)
    const release = await c.locks.acquire(id)
    try {
      await run(c, ctx, id, next)
    } finally {
      release()
    }
  }
}
