// The log context of the current async flow (a request): its id, a module name and extra fields, added to every line.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { LogCore } from './core.js'

/** Context added to every line logged in one async flow: `rid=`, `mod=`, then each field, in KV output. */
export interface LogContext {
  /** The request id (`rid=`); empty for none. */
  request_id: string
  /** The module or component (`mod=`); empty for none. */
  module: string
  /** Extra fields, each shown as `<name>=<value>`. */
  fields: Record<string, string>
}

/** What `set_context` and `run_with_context` take: any part of a `LogContext`; the rest is empty. */
export type LogContextInit = Partial<LogContext>

/**
 * A context as stored: the visible members, plus the request the flow serves (an opaque object, the key tracing finds
 * the request's span by, since two requests may send the same id) and the log core of its App (its destination, format
 * and pino options). Neither is part of `context()`; `set_context` and `run_with_context` keep them, as they change
 * what lines say, not which request or App the flow serves.
 */
export interface StoredContext extends LogContext {
  readonly owner: object | undefined
  readonly log: LogCore | undefined
}

const store = new AsyncLocalStorage<StoredContext>()

/**
 * The context of the request whose synchronous part is running, when requests are served without following their async
 * work: it is set and restored around the call, so it never outlives it or reaches another request.
 */
let sync_ctx: StoredContext | undefined
/**
 * Whether `AsyncLocalStorage` rides on async hooks (Node 20 and 22): there, the first context it holds turns an init
 * hook on for every promise and async resource of the process, about 17% of a small request's CPU on Node 20 even for
 * raw Fastify. Node 24's AsyncContextFrame has no such hook, and following a context costs next to nothing.
 */
export const HOOKED_CONTEXT = '_propagate' in AsyncLocalStorage.prototype
/** Whether some line can be written (the log level is not `off`); set by the logging core. */
let lines_wanted = true
/** Whether code has read or set the context: from then on it is kept for every request's async work too. */
let asked = false
/** Whether request code has written a line (see `line_context`): on hooked runtimes, following starts then. */
let learned = false
/** Whether a request's context is kept for its async work: enter_request reads this one flag. */
let follow = !HOOKED_CONTEXT
/** Whether a request has been entered yet: lines written before (start-up) teach nothing about requests. */
let served = false
/** Whether the running synchronous context was given for its lines (`with_request`), not a request's own. */
let given = false

function update_follow(): void {
  follow = asked || (lines_wanted && (!HOOKED_CONTEXT || learned))
}

const EMPTY: StoredContext = Object.freeze({
  request_id: '',
  module: '',
  fields: Object.freeze({}),
  owner: undefined,
  log: undefined,
})

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
 * Sets the context of the current async flow and of everything it starts from now on; other flows keep theirs.
 * @example
 * set_context({ request_id: req.header('x-request-id'), module: 'orders' })
 */
export function set_context(ctx: LogContextInit): void {
  follow_context()
  const init = fresh(ctx)
  sync_ctx = undefined
  store.enterWith(init)
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
  sync_ctx = undefined
  store.enterWith(EMPTY)
}

/**
 * Runs `fn` with a fresh context `ctx` (the caller's context is neither inherited nor changed, but for the request and
 * App it serves) and returns its result.
 * @example
 * await run_with_context({ request_id: id }, () => handle(req, res))
 */
export function run_with_context<R>(ctx: LogContextInit, fn: () => R): R {
  follow_context()
  const init = fresh(ctx)
  // A synchronous request context set around the caller gives way to this one.
  return sync_ctx === undefined ? store.run(init, fn) : with_sync(undefined, false, () => store.run(init, fn))
}

/**
 * Runs `fn(...args)` in a context holding only `request_id`, as `run_with_context({ request_id }, ...)` does, without
 * building a closure or copying an init object: the App calls it once per request. The context follows the async work
 * `fn` starts only while a line can be written or after `context()` was called, and on Node 20 and 22 only once request
 * code has written a line (`line_context`): `AsyncLocalStorage.run` turns async hooks on for every async resource of
 * the process there, a cost no request should pay when nothing reads the id.
 * @example
 * run_with_request_id(id, handle, req, res)
 */
export function run_with_request_id<A extends unknown[], R>(request_id: string, fn: (...args: A) => R, ...args: A): R {
  return run_in_request(request_id, undefined, undefined, fn, ...args)
}

/**
 * `run_with_request_id` for the adapter: the context also names the request it serves (`owner`, the key of per-request
 * state such as its trace span) and the log core of its App (`log`, undefined for the process-wide one).
 * @example
 * run_in_request(freq.id, freq, app_log, serve, freq, reply)
 */
export function run_in_request<A extends unknown[], R>(
  request_id: string,
  owner: object | undefined,
  log: LogCore | undefined,
  fn: (...args: A) => R,
  ...args: A
): R {
  return enter_request(request_context(request_id, owner, log), apply, fn, args)
}

/** `fn(...args)`: lets a call of any arity enter a context through the two-argument `enter_request`. */
function apply<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
  return fn(...args)
}

/**
 * `run_in_request` with a context `request_context` built beforehand and two arguments: no context object, argument
 * array or closure per call, for a WebSocket that enters its upgrade request's context for every message.
 * @example
 * enter_request(ctx, on_message, conn, text)
 */
export function enter_request<A, B, R>(ctx: StoredContext, fn: (a: A, b: B) => R, a: A, b: B): R {
  served = true
  if (follow) {
    if (sync_ctx === undefined) return store.run(ctx, fn, a, b)
    return with_sync(undefined, false, () => store.run(ctx, fn, a, b))
  }
  return with_sync(ctx, false, fn, a, b)
}

/**
 * Runs `fn(...args)` synchronously with a context holding only `request_id`, without following the async work it
 * starts: for lines written before it returns, such as the access line once a response is sent.
 * @example
 * with_request_id(id, write_access_line, req, reply)
 */
export function with_request_id<A extends unknown[], R>(request_id: string, fn: (...args: A) => R, ...args: A): R {
  return with_request(request_id, undefined, undefined, fn, ...args)
}

/**
 * Runs `fn(a, b)` synchronously in a context `request_context` built beforehand, given to its lines as `with_request`
 * gives one: for fw's own lines written after a request's async work (a WebSocket handler's rejection), which carry the
 * request's id whether or not its context follows that work.
 * @example
 * with_context(ctx, log_handler_failure, conn, err)
 */
export function with_context<A, B, R>(ctx: StoredContext, fn: (a: A, b: B) => R, a: A, b: B): R {
  return with_sync(ctx, true, fn, a, b)
}

/** `with_request_id` naming the request served and its App's log core, as `run_in_request` does. */
export function with_request<A extends unknown[], R>(
  request_id: string,
  owner: object | undefined,
  log: LogCore | undefined,
  fn: (...args: A) => R,
  ...args: A
): R {
  return with_sync(request_context(request_id, owner, log), true, fn, ...args)
}

/**
 * The context of one request, as `run_in_request` builds it; built once by work that enters it again and again (each
 * message of a WebSocket, through `enter_request`). Stored contexts are never changed in place, so the empty fields are
 * shared.
 */
export function request_context(
  request_id: string,
  owner: object | undefined,
  log: LogCore | undefined,
): StoredContext {
  return { request_id, module: '', fields: EMPTY.fields, owner, log }
}

/**
 * Keeps every request's context for its async work from now on, as a call of `context()` does. On Node 20 and 22 an
 * App otherwise starts following once request code writes a line (see `line_context`); call this at start-up when the
 * very first requests' lines after an `await` must carry their id too. Tracing calls it, as spans are found by context.
 * @example
 * follow_context()
 */
export function follow_context(): void {
  asked = true
  update_follow()
}

function with_sync<A extends unknown[], R>(
  ctx: StoredContext | undefined,
  lines_given: boolean,
  fn: (...args: A) => R,
  ...args: A
): R {
  const outer = sync_ctx
  const outer_given = given
  sync_ctx = ctx
  given = lines_given
  try {
    return fn(...args)
  } finally {
    sync_ctx = outer
    given = outer_given
  }
}

/** Tells the context whether some line can be written now; the logging core calls it when the level changes. */
export function set_lines_wanted(on: boolean): void {
  lines_wanted = on
  update_follow()
}

/**
 * The context of a line being written, for the line writers. On Node 20 and 22 requests are served without following
 * their async work until request code writes a line: a line of a handler or middleware (in a request's synchronous
 * part, or with no context at all once requests are served, as a line after an `await` is) turns following on for every
 * later request. Lines fw writes with their context given (`with_request`: the access line, the error line) and lines
 * written before the first request do not.
 */
export function line_context(): StoredContext | undefined {
  if (!follow && !given && served) {
    learned = true
    update_follow()
  }
  return sync_ctx ?? store.getStore()
}

/** The current context as stored, for the line writers (read only; `undefined` when none was ever set). */
export function current_context(): StoredContext | undefined {
  return sync_ctx ?? store.getStore()
}
