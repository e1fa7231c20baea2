// The log context of the current async flow (a request): its id, a module name and extra fields, added to every line.
import { AsyncLocalStorage } from 'node:async_hooks'

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

const store = new AsyncLocalStorage<LogContext>()

const EMPTY: LogContext = Object.freeze({ request_id: '', module: '', fields: Object.freeze({}) })

function fresh(ctx: LogContextInit): LogContext {
  return { request_id: ctx.request_id ?? '', module: ctx.module ?? '', fields: { ...ctx.fields } }
}

/**
 * Sets the context of the current async flow and of everything it starts from now on; other flows keep theirs.
 * @example
 * set_context({ request_id: req.header('x-request-id'), module: 'orders' })
 */
export function set_context(ctx: LogContextInit): void {
  store.enterWith(fresh(ctx))
}

/** A copy of the current context (empty fields when none was set); changing it changes nothing. */
export function context(): LogContext {
  const ctx = store.getStore() ?? EMPTY
  return { request_id: ctx.request_id, module: ctx.module, fields: { ...ctx.fields } }
}

/** Empties the current flow's context; call it when a request ends if the flow goes on to other work. */
export function clear_context(): void {
  store.enterWith(EMPTY)
}

/**
 * Runs `fn` with a fresh context `ctx` (the caller's context is neither inherited nor changed) and returns its result.
 * @example
 * await run_with_context({ request_id: id }, () => handle(req, res))
 */
export function run_with_context<R>(ctx: LogContextInit, fn: () => R): R {
  return store.run(fresh(ctx), fn)
}

/**
 * Runs `fn(...args)` in a context holding only `request_id`, as `run_with_context({ request_id }, ...)` does, without
 * building a closure or copying an init object: the App calls it once per request.
 * @example
 * run_with_request_id(id, handle, req, res)
 */
export function run_with_request_id<A extends unknown[], R>(request_id: string, fn: (...args: A) => R, ...args: A): R {
  // Stored contexts are never changed in place (set_context and run_with_context store copies), so the empty fields are shared.
  return store.run({ request_id, module: '', fields: EMPTY.fields }, fn, ...args)
}

/** The current context as stored, for the line writers (read only; `undefined` when none was ever set). */
export function current_context(): LogContext | undefined {
  return store.getStore()
}
