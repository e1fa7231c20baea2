// The log context of the current async flow (a request): its id, a module name and extra fields, added to every line.
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks'
import type { StoredContext } from './core.js'
import type { LogContext, LogContextInit } from './log-context.js'

export type { LogContext, LogContextInit } from './log-context.js'
export type { StoredContext } from './core.js'

const store = new AsyncLocalStorage<StoredContext>()

/**
 * Whether `AsyncLocalStorage` rides on async hooks (Node 20 and 22): there, the first context it holds turns an init
 * hook on for every promise and async resource of the process, about 17% of a small request's CPU on Node 20 even for
 * raw Fastify. Node 24's AsyncContextFrame has no such hook, and following a context costs next to nothing.
 */
export const HOOKED_CONTEXT = '_propagate' in AsyncLocalStorage.prototype

/** `state.beneath` while the store under a synchronous context is unchanged. */
const KEPT: unique symbol = Symbol('kept')

/**
 * The one mutable state of this module, for the whole process. The life of each member:
 * - `sync`: the context of the synchronous call running now when it is not the store's: a request entered without
 *   following its async work (`enter_request` while `follow` is false), or a context given to lines
 *   (`with_request_id`). Set around that call and restored when it returns (or throws), so it never outlives it.
 * - `given`: whether `sync` was given for lines rather than entered by a request; set and restored with `sync`.
 * - `lines_wanted`: whether some line can be written (the level is not `off`); the logging core sets it on every level
 *   change.
 * - `asked`: false until code reads or sets the context (`context()`, `set_context`, `run_with_context`,
 *   `clear_context`, `follow_context`); then true for good.
 * - `served`: false until the first request is entered; then true for good. Lines written before (start-up) teach
 *   nothing about requests.
 * - `learned`: false until request code writes a line once requests are served (see `line_context`); then true for good.
 * - `follow`: whether an entered request's context is kept for its async work, the one member `enter_request` reads;
 *   derived from the three above each time one of them changes.
 * - `beneath`: the store's context under a synchronous context (`sync`) when `set_context` or `clear_context` first
 *   changed it there, else `KEPT`; set and restored with `sync`, and the store is put back to it when that call
 *   returns: the store beneath belongs to whatever runs the call (a connection, whose next request runs outside this
 *   one; an interval's next tick), never to the call.
 */
const state = {
  sync: undefined as StoredContext | undefined,
  given: false,
  lines_wanted: true,
  asked: false,
  served: false,
  learned: false,
  follow: !HOOKED_CONTEXT,
  beneath: KEPT as StoredContext | undefined | typeof KEPT,
}

function update_follow(): void {
  state.follow = state.asked || (state.lines_wanted && (!HOOKED_CONTEXT || state.learned))
}

const EMPTY: StoredContext = Object.freeze({
  request_id: '',
  module: '',
  fields: Object.freeze({}),
  owner: undefined,
  log: undefined,
})

/** A context from `ctx`, serving the request and App the current one serves. */
function fresh(ctx: LogContextInit): StoredContext {
  const outer = current_context()
  return {
    request_id: ctx.request_id ?? '',
    module: ctx.module ?? '',
    fields: { ...ctx.fields },
    owner: outer?.owner,
    log: outer?.log,
  }
}

/**
 * The context of one request: its id, the request object it serves (`owner`, the key of per-request state such as its
 * trace span, since two requests may send the same id) and the log core of its App (`log`, undefined for the
 * process-wide one). Built once per request, entered by `enter_request`; stored contexts are never changed in place, so
 * the empty fields are shared. A followed context lives as long as anything made while it was current (a connection's
 * keep-alive timer): give as `owner` an object that does not hold the request's body.
 */
export function request_context(
  request_id: string,
  owner: object | undefined,
  log: StoredContext['log'],
): StoredContext {
  return { request_id, module: '', fields: EMPTY.fields, owner, log }
}

/**
 * Runs `fn(a, b)` in the context `ctx` of a request (`request_context`): the one way a request, or a WebSocket message
 * of one, enters its context. The context follows the async work `fn` starts only while a line can be written or after
 * `context()` was called, and on Node 20 and 22 only once request code has written a line (`line_context`):
 * `AsyncLocalStorage.run` turns async hooks on for every async resource of the process there, a cost no request should
 * pay when nothing reads its id. Otherwise it holds for the synchronous part of `fn` only.
 * @example
 * enter_request(request_context(freq.id, freq, app_log), serve, freq, reply)
 */
export function enter_request<A, B, R>(ctx: StoredContext, fn: (a: A, b: B) => R, a: A, b: B): R {
  state.served = true
  return state.follow ? run_followed(ctx, fn, a, b) : with_sync(ctx, false, fn, a, b)
}

/** `enter_request` bound to one context: `entry(fn, a, b)` runs `fn(a, b)` in it. */
export type RequestEntry = <A, B, R>(fn: (a: A, b: B) => R, a: A, b: B) => R

/**
 * `enter_request` for a context entered again and again, as a WebSocket connection's is for each message. On Node 24
 * and later, `AsyncLocalStorage.run` builds two AsyncContextFrames a call (about 0.5 µs and 740 B on Node 24.21), so
 * the first entry that follows captures its frame once (an `AsyncResource` made in it) and the later ones only switch
 * to that frame and back. Inside a socket's callback that switch still allocates 152 B on Node 24.21: Node empties its
 * stack of async resources when each callback ends, so the first switch of the next one grows it again. A new frame per
 * entry costs more: 189 B for `enterWith`, 552 B for `AsyncLocalStorage.run` (a TCP echo, bytes per message). Every
 * entry runs in the frame the first one built, so give each source of entries (one socket's messages) its own. On Node
 * 20 and 22, and whenever `enter_request` would not follow, it is `enter_request`.
 * @example
 * const enter = request_entry(ctx)
 * socket.on('message', (data) => enter(handle, conn, data))
 */
export function request_entry(ctx: StoredContext): RequestEntry {
  if (HOOKED_CONTEXT) return (fn, a, b) => enter_request(ctx, fn, a, b)
  let frame: AsyncResource | undefined
  return (fn, a, b) => {
    if (!state.follow || state.sync !== undefined) return enter_request(ctx, fn, a, b)
    state.served = true
    frame ??= store.run(ctx, capture_frame)
    return frame.runInAsyncScope(fn, undefined, a, b)
  }
}

const capture_frame = (): AsyncResource => new AsyncResource('fw.request')

/** Runs `fn(a, b)` in `ctx` followed into its async work; a synchronous context set around the caller gives way. */
function run_followed<A, B, R>(ctx: StoredContext, fn: (a: A, b: B) => R, a: A, b: B): R {
  if (state.sync === undefined) return store.run(ctx, fn, a, b)
  return with_sync(undefined, false, () => store.run(ctx, fn, a, b), undefined, undefined)
}

function with_sync<A, B, R>(
  ctx: StoredContext | undefined,
  lines_given: boolean,
  fn: (a: A, b: B) => R,
  a: A,
  b: B,
): R {
  const outer = state.sync
  const outer_given = state.given
  const outer_beneath = state.beneath
  state.sync = ctx
  state.given = lines_given
  state.beneath = KEPT
  try {
    return fn(a, b)
  } finally {
    state.sync = outer
    state.given = outer_given
    if (state.beneath !== KEPT) store.enterWith(state.beneath as StoredContext)
    state.beneath = outer_beneath
  }
}

/**
 * Makes `ctx` the store's context for the current flow and what it starts from now on. Under a synchronous context
 * (`sync`) the store is not the call's own: what it held is kept in `beneath`, and `with_sync` puts it back.
 */
function enter_store(ctx: StoredContext): void {
  if (state.sync !== undefined && state.beneath === KEPT) state.beneath = store.getStore()
  state.sync = undefined
  store.enterWith(ctx)
}

/** `fn(...args)`: lets a call of any arity go through the two-argument entries. */
function apply<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
  return fn(...args)
}

/**
 * Sets the context of the current async flow and of everything it starts from now on; other flows keep theirs.
 * @example
 * set_context({ request_id: req.header('x-request-id'), module: 'orders' })
 */
export function set_context(ctx: LogContextInit): void {
  follow_context()
  enter_store(fresh(ctx))
}

/**
 * A copy of the current context (empty fields when none was set); changing it changes nothing. With the log level
 * `off` (and, on Node 20 and 22, until request code writes a line), a request's context is kept only for its
 * synchronous part until the first call of `context()`: from then on the App keeps it for every request's async work
 * too.
 */
export function context(): LogContext {
  follow_context()
  const ctx = current_context() ?? EMPTY
  return { request_id: ctx.request_id, module: ctx.module, fields: { ...ctx.fields } }
}

/** Empties the current flow's context; call it when a request ends if the flow goes on to other work. */
export function clear_context(): void {
  follow_context()
  enter_store(EMPTY)
}

/**
 * Runs `fn` with a fresh context `ctx` (the caller's context is neither inherited nor changed, but for the request and
 * App it serves) and returns its result.
 * @example
 * await run_with_context({ request_id: id }, () => handle(req, res))
 */
export function run_with_context<R>(ctx: LogContextInit, fn: () => R): R {
  follow_context()
  return run_followed(fresh(ctx), apply<[], R>, fn, [])
}

/**
 * Runs `fn(...args)` as a request with id `request_id` (`enter_request`), in a context holding only that id, and
 * returns its result: for a server of your own, or a job that should log as a request does.
 * @example
 * run_with_request_id(id, handle, req, res)
 */
export function run_with_request_id<A extends unknown[], R>(request_id: string, fn: (...args: A) => R, ...args: A): R {
  return enter_request(request_context(request_id, undefined, undefined), apply<A, R>, fn, args)
}

/**
 * Runs `fn(...args)` synchronously with a context holding only `request_id`, without following the async work it
 * starts: for lines written before it returns. Its lines carry the id whether or not requests are followed, so they
 * never start following.
 * @example
 * with_request_id(id, write_access_line, req, reply)
 */
export function with_request_id<A extends unknown[], R>(request_id: string, fn: (...args: A) => R, ...args: A): R {
  return with_sync(request_context(request_id, undefined, undefined), true, apply<A, R>, fn, args)
}

/**
 * Keeps every request's context for its async work from now on, as a call of `context()` does. On Node 20 and 22 an
 * App otherwise starts following once request code writes a line (see `line_context`); call this at start-up when the
 * very first requests' lines after an `await` must carry their id too. Tracing calls it, as spans are found by context.
 * @example
 * follow_context()
 */
export function follow_context(): void {
  state.asked = true
  update_follow()
}

/** Tells the context whether some line can be written now; the logging core calls it when the level changes. */
export function set_lines_wanted(on: boolean): void {
  state.lines_wanted = on
  update_follow()
}

/**
 * The context of a line being written, for the loggers. A logger bound to a request (`bound`, as `req.log` is) writes
 * the current flow's context while the flow serves that request (so a module set there shows), else the request's own,
 * and teaches nothing. Any other line takes the current flow's. On Node 20 and 22 requests are served without following
 * their async work until request code writes a line: a line of a handler or middleware (in a request's synchronous
 * part, or with no context at all once requests are served, as a line after an `await` is) turns following on for every
 * later request. Lines given their context (`with_request_id`) and lines written before the first request do not.
 */
export function line_context(bound?: StoredContext): StoredContext | undefined {
  const ctx = state.sync ?? store.getStore()
  if (bound !== undefined) return bound.owner !== undefined && ctx?.owner === bound.owner ? ctx : bound
  if (!state.follow && !state.given && state.served) {
    state.learned = true
    update_follow()
  }
  return ctx
}

/** The current context as stored, for the line writers (read only; `undefined` when none was ever set). */
export function current_context(): StoredContext | undefined {
  return state.sync ?? store.getStore()
}
