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
/** Whether some line can be written (the log level is not `off`); set by the logging core. */
let lines_wanted = true
/** Whether code has read the context: from then on it is kept for every request's async work too. */
let asked = false

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
  const init = fresh(ctx)
  sync_ctx = undefined
  store.enterWith(init)
}

/**
 * A copy of the current context (empty fields when none was set); changing it changes nothing. With the log level
 * `off`, a request's context is kept only for its synchronous part until the first call of `context()`: from then on
 * the App keeps it for every request's async work too.
 */
export function context(): LogContext {
  asked = true
  const ctx = current_context() ?? EMPTY
  return { request_id: ctx.request_id, module: ctx.module, fields: { ...ctx.fields } }
}

/** Empties the current flow's context; call it when a request ends if the flow goes on to other work. */
export function clear_context(): void {
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
  const init = fresh(ctx)
  // A synchronous request context set around the caller gives way to this one.
  return sync_ctx === undefined ? store.run(init, fn) : with_sync(undefined, () => store.run(init, fn))
}

/**
 * Runs `fn(...args)` in a context holding only `request_id`, as `run_with_context({ request_id }, ...)` does, without
 * building a closure or copying an init object: the App calls it once per request. The context follows the async work
 * `fn` starts only while a line can be written or after `context()` was called: `AsyncLocalStorage.run` turns async
 * hooks on for every async resource of the process on Node 20, a cost no request should pay when nothing reads the id.
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
  if (lines_wanted || asked) {
    if (sync_ctx === undefined) return store.run(ctx, fn, a, b)
    return with_sync(undefined, () => store.run(ctx, fn, a, b))
  }
  return with_sync(ctx, fn, a, b)
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

/** `with_request_id` naming the request served and its App's log core, as `run_in_request` does. */
export function with_request<A extends unknown[], R>(
  request_id: string,
  owner: object | undefined,
  log: LogCore | undefined,
  fn: (...args: A) => R,
  ...args: A
): R {
  return with_sync(request_context(request_id, owner, log), fn, ...args)
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

/** Keeps every request's context for its async work from now on, as a call of `context()` does: tracing reads it. */
export function follow_context(): void {
  asked = true
}

function with_sync<A extends unknown[], R>(ctx: StoredContext | undefined, fn: (...args: A) => R, ...args: A): R {
  const outer = sync_ctx
  sync_ctx = ctx
  try {
    return fn(...args)
  } finally {
    sync_ctx = outer
  }
}

/** Tells the context whether some line can be written now; the logging core calls it when the level changes. */
export function set_lines_wanted(on: boolean): void {
  lines_wanted = on
}

/** The current context as stored, for the line writers (read only; `undefined` when none was ever set). */
export function current_context(): StoredContext | undefined {
  return sync_ctx ?? store.getStore()
}
