// Server-side sessions: a signed cookie names a record in a store; the middleware loads it, and saves it when it
// changed.
import { context_middleware, with_route_options, type Ctx, type CtxMiddleware, type Next } from '../../compose.js'
import { documented } from '../../openapi/middleware-doc.js'
import { httpCode, StoreUnavailable } from '../../errors.js'
import type { Request } from '../../request.js'
import { ERR_AUTH_BAD_OPTION, ERR_AUTH_NO_SESSION, ERR_AUTH_WEAK_SECRET } from './errors.js'
import { option_checker } from '../../options.js'
import { check_cookie } from '../../cookie.js'
import { SessionCookie, type CookieId, type SessionCookieSettings } from './session-cookie.js'
import { KeyedLock } from './session-lock.js'
import { Session, new_session_id, signed_in } from './session-state.js'
import { Identity, SessionRef } from '../../identity.js'
import { InMemorySessionStore, type ISessionStore, type SessionRecord } from './session-store.js'
import { when, type MaybePromise } from '../../maybe-promise.js'
import { observed, report } from '../../observability/events.js'

/** Options of `session`. */
export interface SessionOptions {
  /**
   * Signs the cookie (HMAC-SHA256); at least 32 characters (the hash's length), from configuration. A list rotates secrets: the first
   * signs, every one verifies, and a cookie signed with a later one is signed again with the first; a secret dropped
   * from the list ends the sessions it signed.
   */
  secret: string | readonly string[]
  /** Where sessions live (default a new `InMemorySessionStore`). */
  store?: ISessionStore
  /** Cookie name (default `sid`). */
  cookie_name?: string
  /** Cookie path (default `/`). */
  cookie_path?: string
  /**
   * Adds `Secure`; use true over HTTPS (default false). Required by SameSite `None` and `__Host-`/`__Secure-` names.
   */
  secure?: boolean
  /** Adds `HttpOnly` (default true). */
  http_only?: boolean
  /** SameSite policy: `Strict`, `Lax` or `None` (default `Lax`). */
  same_site?: 'Strict' | 'Lax' | 'None'
  /** Seconds a session lives after its last save; also the cookie's `Max-Age` (default 7 days). */
  ttl?: number
  /**
   * Start a session (saved, cookie set) on every request without one (default true). When false, a request without a
   * known session has no `Session` state at all until the handler calls `start_session(req)`.
   */
  auto_create?: boolean
  /** Run requests carrying the same session one at a time, so concurrent updates are not lost (default true). */
  serialize?: boolean
  /**
   * Renew the store ttl and the cookie on every request of a known session, so an active user never expires (default
   * false).
   */
  rolling?: boolean
  /**
   * Seconds a session lives after its creation, however active it is (default none: no limit). A session loaded past
   * it is destroyed in the store and the request goes on as one without a session; the cookie's `Max-Age` and the
   * store ttl never exceed what is left of it. `regenerate()` keeps the creation time. A session stored without one
   * (from before this option was set) starts its clock at its next load.
   */
  absolute_ttl?: number
  /**
   * Seconds the id of a session ended by `destroy()` or `regenerate()` stays marked as ended in the store (default 10;
   * 0: not marked). A request still in flight with the old cookie (sent before the login's answer arrived) then gets an
   * empty session that is not saved and sets no cookie, instead of a new session whose cookie would replace the one the
   * login just set (logging the user out again).
   */
  end_grace?: number
  /** The clock in ms (default `Date.now`); tests pass a fake one. */
  now?: () => number
}

const WEEK = 7 * 24 * 3600
const END_GRACE = 10
/**
 * Appended to an ended id to name its marker in the store: never a session id, since a cookie's id has no `.`. The
 * marker is a record with no values, under its own key, so `load` of the ended id itself finds nothing, as before.
 */
const ENDED = '.ended'
const NO_VALUES: Readonly<Record<string, string>> = Object.freeze({})

export const CODE_SESSION_STORE_UNAVAILABLE = httpCode('session_store_unavailable')
const MW = 'session'
const check = option_checker(ERR_AUTH_BAD_OPTION, MW)

/** What starting a session needs: `absolute_ttl` in ms (0 when unset), and the clock. */
interface Lifetime {
  absolute_ms: number
  now: () => number
}

interface Config extends Lifetime {
  store: ISessionStore
  cookie: SessionCookie
  ttl: number
  auto_create: boolean
  rolling: boolean
  /** `end_grace`: seconds an ended id stays marked; 0 when not marked. */
  end_grace: number
  locks: KeyedLock | undefined
  /** The request state telling `start_session` that this middleware runs, and how to start a session. */
  starter: SessionStarter
}

/** HMAC-SHA256 needs a key as long as its hash (RFC 2104 section 3): 32 bytes, which 32 characters always are. */
const SECRET_CHARS = 32

/**
 * The secrets, first signing; each at least `SECRET_CHARS` characters, or with `weak_from` (a development preset's name)
 * any non-empty one, with a warning; never quoted in an error.
 */
function secrets_option(value: unknown, weak_from: string | undefined): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value]
  check.must(
    list.length > 0,
    'secret',
    `a string or a non-empty list of strings of at least ${SECRET_CHARS} characters`,
    value,
    { secret: true },
  )
  return list.map((v) => {
    if (weak_from === undefined) return check.secret('secret', v, SECRET_CHARS)
    const secret = check.secret('secret', v, 1)
    const bytes = Buffer.byteLength(secret)
    if (bytes < SECRET_CHARS) process.emitWarning(ERR_AUTH_WEAK_SECRET(weak_from, bytes, SECRET_CHARS, 'HMAC-SHA256'))
    return secret
  })
}

function cookie_settings({
  cookie_name = 'sid',
  cookie_path = '/',
  secure = false,
  http_only = true,
  same_site = 'Lax',
  ttl = WEEK,
}: SessionOptions): SessionCookieSettings {
  const cookie = check_cookie(check, { cookie_name, cookie_path, secure, http_only, same_site })
  return { ...cookie, max_age: check.int('ttl', ttl, 1) }
}

function configure(o: SessionOptions, weak_from: string | undefined): Config {
  check.must(typeof o === 'object' && o !== null, 'options', 'an object', o, { secret: true })
  const { secret, store = new InMemorySessionStore(), auto_create = true, serialize = true, rolling = false } = o
  const { absolute_ttl, now = Date.now, end_grace = END_GRACE } = o
  const lifetime: Lifetime = {
    absolute_ms: absolute_ttl === undefined ? 0 : check.int('absolute_ttl', absolute_ttl, 1) * 1000,
    now: check.fn('now', now),
  }
  const settings = cookie_settings(o)
  const is_store =
    typeof store === 'object' &&
    store !== null &&
    ['load', 'save', 'destroy'].every((m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function')
  check.must(is_store, 'store', 'an object with load, save and destroy methods', store)
  return {
    store,
    cookie: new SessionCookie(secrets_option(secret, weak_from), settings),
    ttl: settings.max_age,
    auto_create: check.bool('auto_create', auto_create),
    rolling: check.bool('rolling', rolling),
    end_grace: check.int('end_grace', end_grace, 0),
    locks: check.bool('serialize', serialize) ? new KeyedLock() : undefined,
    ...lifetime,
    starter: new SessionStarter(lifetime),
  }
}

/** A session with a new id: an id the client sent is never adopted (fixation). Created now, for `absolute_ttl`. */
function fresh(c: Lifetime): Session {
  const s = new Session({ id: new_session_id(), data: {} }, true)
  if (c.absolute_ms !== 0) s.stamp(c.now())
  return s
}

/**
 * The session named by a verified cookie id, else a new one, else (auto_create off) null. A session past
 * `absolute_ttl` is destroyed in the store and counts as none. An unknown id marked as ended (`end`) gives, with
 * auto_create, an empty detached session instead of a new one.
 */
async function open(c: Config, id: string | undefined): Promise<Session | null> {
  const record = id === undefined ? undefined : await c.store.load(id)
  if (record !== undefined) {
    const s = new Session(record, false)
    if (c.absolute_ms === 0 || within_lifetime(c, s)) return s
    await c.store.destroy(record.id)
  } else if (id !== undefined && c.auto_create && c.end_grace !== 0 && (await c.store.load(id + ENDED)) !== undefined) {
    const s = new Session({ id: new_session_id(), data: {} }, true)
    s.detached = true
    return s
  }
  return c.auto_create ? fresh(c) : null
}

/**
 * Removes an ended session (destroyed, or left by a regenerate) from the store. First its id is marked as ended for
 * `end_grace` seconds, so a request that still carries it never finds it simply unknown (see `open`).
 */
async function end(c: Config, id: string): Promise<void> {
  if (c.end_grace !== 0) await c.store.save({ id: id + ENDED, data: NO_VALUES }, c.end_grace)
  await c.store.destroy(id)
}

/**
 * Renews an unchanged session's ttl (`rolling`): `touch`, or without it a `load` and a `save` of what it loaded, only
 * when it is still there, so a session destroyed meanwhile by another request stays destroyed. False when it was gone.
 * A store answering at once does both in one go; for one answering later, a `destroy` between the two is still undone,
 * which a store's own `touch` avoids.
 */
function refresh(store: ISessionStore, id: string, ttl: number): MaybePromise<boolean> {
  if (store.touch !== undefined) return when(store.touch(id, ttl), done)
  return when(store.load(id), (record) => record !== undefined && resave(store, record, ttl))
}

function resave(store: ISessionStore, record: SessionRecord, ttl: number): MaybePromise<boolean> {
  return when(store.save(record, ttl), done)
}

/** `refresh`'s answer once the store did its part: one function for all requests (the rolling path allocates none). */
const done = (): boolean => true

/**
 * Whether a loaded session is younger than `absolute_ttl`. One without a creation time (stored before the option was
 * set) gets now as its creation time, saved at the end of the request.
 */
function within_lifetime(c: Config, s: Session): boolean {
  const created = s.created_at()
  if (created !== undefined) return c.now() < created + c.absolute_ms
  s.stamp(c.now())
  return true
}

/** Seconds the session may live from now: `ttl`, or what is left of `absolute_ttl` when shorter (at least 1). */
function life(c: Config, s: Session): number {
  if (c.absolute_ms === 0) return c.ttl
  const left = Math.floor((s.created_at()! + c.absolute_ms - c.now()) / 1000)
  return left < c.ttl ? Math.max(1, left) : c.ttl
}

/** Request state: a session middleware runs here, so `start_session` may create one (with that middleware's config). */
class SessionStarter {
  constructor(readonly lifetime: Lifetime) {}
}

/**
 * The request's session, started now when there is none (with `auto_create: false`); it is saved and its cookie set
 * after the handler. Throws FW_ERR_AUTH_NO_SESSION when no session middleware runs on the route.
 * @example
 * const s = start_session(req); s.regenerate(); s.set('user', user.id)
 */
export function start_session(req: Request): Session {
  const current = req.state(Session)
  if (current !== undefined) return current
  const starter = req.state(SessionStarter)
  if (starter === undefined) throw ERR_AUTH_NO_SESSION()
  const s = fresh(starter.lifetime)
  attach(req, s)
  return s
}

/** Makes `s` the request's session: its state, the `SessionRef` CSRF binds to, and its signed-in user's `Identity`. */
function attach(req: Request, s: Session): void {
  req.set_state(Session, s)
  req.set_state(SessionRef, s)
  const user = signed_in(s)
  if (user !== undefined) req.set_state(Identity, user)
}

/** Writes back what the request did to the session; `resign` re-sends a cookie signed with a retired secret. */
async function persist(c: Config, ctx: Ctx, s: Session, resign: boolean): Promise<void> {
  if (s.destroyed) {
    if (!s.is_new) await end(c, s.loaded_id)
    c.cookie.clear(ctx.res)
    return
  }
  // `sign_in` ran: a signed-in session lives `absolute_ttl` from its login, not from the anonymous visit that made it.
  if (s.relive && c.absolute_ms !== 0) s.stamp(c.now())
  // A new session exists only when auto_create is on or the handler started it: either way it is saved. So is one
  // given its creation time by this request.
  if (!s.changed && !s.is_new && !s.stamped) {
    if (!c.rolling && !resign) return
    const ttl = life(c, s)
    if (c.rolling && !(await refresh(c.store, s.id, ttl))) return
    c.cookie.write(ctx.res, s.id, ttl)
    return
  }
  const ttl = life(c, s)
  await c.store.save(s.stored(), ttl)
  // After a regenerate the old record goes only once the new one is saved: a store failing the save (503) leaves the
  // caller the session it had. The old record never held what this request added, so it is safe while it remains.
  if (s.id !== s.loaded_id && !s.is_new) await end(c, s.loaded_id)
  c.cookie.write(ctx.res, s.id, ttl)
}

/**
 * Runs store work. A store that cannot answer now (it throws a `StoreUnavailable`, as `FW_ERR_REDIS_UNAVAILABLE`)
 * makes the answer 503 `session_store_unavailable` instead of a 500, and the work gives undefined.
 */
async function store_work<T>(ctx: Ctx, work: () => PromiseLike<T>): Promise<T | undefined> {
  try {
    return await work()
  } catch (err) {
    if (!(err instanceof StoreUnavailable)) throw err
    if (observed()) report({ kind: 'session_store_error' })
    // The handler may have answered already: its cookies and caching must not outlive a session that was not saved.
    ctx.res.remove_header('set-cookie').header('cache-control', 'no-store')
    ctx.res.error(503, CODE_SESSION_STORE_UNAVAILABLE, 'Session store unavailable, retry later')
    return undefined
  }
}

async function run(c: Config, ctx: Ctx, cookie: CookieId | undefined, next: Next): Promise<void> {
  const opened = await store_work(ctx, () => open(c, cookie?.id))
  if (opened === undefined) return
  if (opened === null) ctx.req.set_state(SessionStarter, c.starter)
  else attach(ctx.req, opened)
  await next()
  const s = ctx.req.state(Session)
  // Not reached when the chain throws: a failed request leaves the stored session as it was.
  if (s !== undefined && !s.detached)
    await store_work(ctx, () => persist(c, ctx, s, cookie?.retired === true && s.id === cookie.id))
}

/** Runs the request under the store's cross-process lock of the session (a shared store such as Redis). */
async function shared(
  c: Config,
  lock: NonNullable<ISessionStore['lock']>,
  ctx: Ctx,
  cookie: CookieId,
  next: Next,
): Promise<void> {
  const unlock = await store_work(ctx, () => lock(cookie.id))
  if (unlock === undefined) return
  try {
    await run(c, ctx, cookie, next)
  } finally {
    // A lock that cannot be released (the store went away) expires by its own ttl; the answer is already decided. The
    // release may answer any thenable (not only a native promise with a catch method), or throw at once.
    try {
      await unlock()
    } catch {
      // ignored, as above
    }
  }
}

/**
 * Server-side sessions. The cookie `<id>.<HMAC>` names a session in the store; a missing, forged, unknown or expired
 * cookie starts a new session with a new id. The session is stored as `Session`; after the chain it is saved (with
 * `ttl`) when it is new or changed, removed after `destroy()`, and moved to its new id after `regenerate()`. Requests
 * carrying the same session run one at a time in this process (`serialize`), so a counter incremented by N concurrent
 * requests ends at N. A store that cannot answer (a `StoreUnavailable`) gives 503 `session_store_unavailable`.
 * @example
 * app.use(adapt_ctx(auth.session({ secret: process.env.FW_SESSION_SECRET!, secure: true })))
 */
export function session(options: SessionOptions): CtxMiddleware {
  return session_middleware(options, undefined)
}

/**
 * `session` for a development preset named `preset`: a secret shorter than 32 characters is accepted, with a warning
 * (`FW_ERR_AUTH_WEAK_SECRET`) at creation.
 */
export function session_allowing_weak_secret(options: SessionOptions, preset: string): CtxMiddleware {
  return session_middleware(options, preset)
}

/** The middleware of `session`; `weak_from` as in `secrets_option`. */
function session_middleware(options: SessionOptions, weak_from: string | undefined): CtxMiddleware {
  const c = configure(options, weak_from)
  const doc = {
    security: { schemes: { session_cookie: { type: 'apiKey', in: 'cookie', name: c.cookie.name } }, optional: true },
    responses: { 503: ['session_store_unavailable'] },
  }
  const mw = documented(async function session(ctx: Ctx, next: Next) {
    const cookie = c.cookie.read(ctx.req)
    if (cookie === undefined || c.locks === undefined) return run(c, ctx, cookie, next)
    const release = await c.locks.acquire(cookie.id)
    try {
      await (c.store.lock === undefined
        ? run(c, ctx, cookie, next)
        : shared(c, c.store.lock.bind(c.store), ctx, cookie, next))
    } finally {
      release()
    }
  }, doc)
  // A signed-in session sets the caller's Identity: it authenticates, as far as a per-user rate limit is concerned.
  return context_middleware(with_route_options(mw, { opens_session: MW, authenticates: MW }), check.owner)
}
