// The middleware chain in one small function: onion model, `await next()` runs the rest, a second `next()` is ignored.
import { defineError } from './errors.js'
import type { Request, Valid } from './request.js'
import type { Response } from './response.js'
import type { MiddlewareDoc } from './openapi/middleware-doc.js'
import type { Services } from './state.js'

/**
 * A route handler; `P` and `V` type its path parameters and validated values (see `Request`). What it returns is
 * ignored (a promise is awaited), so `(req, res) => res.json('ok', true)` is one.
 */
export type Handler<P extends string = string, V extends Valid = Valid> = (req: Request<P, V>, res: Response) => unknown

/** Runs the rest of the chain and the handler. */
export type Next = () => Promise<void>

/** App middleware: call `await next()` to continue; not calling it ends the chain. */
export type Middleware = (req: Request, res: Response, next: Next) => void | Promise<void>

/** The context that context middleware (`fw.middleware.auth`, `fw.middleware.security`) receives. */
export interface Ctx {
  readonly req: Request
  readonly res: Response
  readonly services: Services
}

/** Context middleware: `(ctx, next)`; `adapt_ctx` turns it into App middleware. */
export type CtxMiddleware = (ctx: Ctx, next: Next) => void | Promise<void>

export const ERR_APP_IDENTITY_ORDER = defineError(
  'FW_ERR_APP_IDENTITY_ORDER',
  (route: string, reader: string, auth: string) =>
    `${route}: ${reader} runs before ${auth}, so it cannot see who the caller is; register it after ${auth} (app.use order)`,
)

const done = Promise.resolve()

/**
 * Composes middleware and a handler into one function. With no middleware it is the handler itself,
 * so a bare route pays nothing for the chain.
 */
export function compose(mws: readonly Middleware[], handler: Handler): Handler {
  if (mws.length === 0) return handler
  const n = mws.length
  return function chain(req, res) {
    let index = -1
    function dispatch(i: number): Promise<void> {
      // A second next() from the same middleware would run the rest twice; it is ignored.
      if (i <= index) return done
      index = i
      try {
        if (i === n) {
          const r = handler(req, res)
          return r instanceof Promise ? r : done
        }
        let downstream: Promise<void> | undefined
        const r = mws[i]!(req, res, () => (downstream = dispatch(i + 1)))
        // An async middleware owns its `await next()` (and may catch what it throws). A sync one that calls next()
        // without returning it still waits for the rest of the chain.
        if (r instanceof Promise) return r
        return downstream ?? done
      } catch (err) {
        return Promise.reject(err)
      }
    }
    // A chain that ran to its end synchronously gives `done`: answering it as sync saves the caller a promise and a tick.
    const r = dispatch(0)
    return r === done ? undefined : r
  }
}

const CTX = Symbol('fw.ctx')
type WithCtx = Request & { [CTX]?: Ctx }

/** The per-request context shared by all context middleware of one request. */
export function ctx_of(req: Request, res: Response): Ctx {
  const r = req as WithCtx
  return (r[CTX] ??= { req, res, services: req.services })
}

/**
 * Adapts context middleware to App middleware.
 * @example
 * app.use(adapt_ctx(fw.middleware.auth.jwt({ secret })))
 */
export function adapt_ctx(mw: CtxMiddleware): Middleware {
  const adapted: Middleware = (req, res, next) => mw(ctx_of(req, res), next)
  return carry_route_options(mw, adapted)
}

/** Route-level options a middleware asks of the adapter (for example a body limit that must act before the body is read). */
export interface RouteOptions {
  body_limit?: number
  /** The route takes its request body as a stream (`stream_body`): the adapter does not read it first. */
  stream_body?: boolean
  /** The middleware authenticates the caller (its name, such as `jwt`): what reads the identity must come after it. */
  authenticates?: string
  /** The middleware reads the caller's identity (how it is written, such as `rate_limit({ key: 'user' })`). */
  reads_identity?: string
  /** What the middleware tells the OpenAPI document (security scheme, error answers). */
  doc?: MiddlewareDoc
  /** Query parameters that carry a secret the middleware reads: the App's access line redacts them. */
  secret_query?: readonly string[]
}

/** Where a middleware carries its route options. */
export const ROUTE_OPTIONS = Symbol.for('fw.route_options')

type Carrier = { [ROUTE_OPTIONS]?: RouteOptions }

/** Attaches route options to a middleware function, keeping those it already carries (a body limit, a description). */
export function with_route_options<F extends object>(fn: F, options: RouteOptions): F {
  const c = fn as Carrier
  c[ROUTE_OPTIONS] = c[ROUTE_OPTIONS] === undefined ? options : { ...c[ROUTE_OPTIONS], ...options }
  return fn
}

/** The route options a middleware carries, if any. */
export function route_options_of(fn: object): RouteOptions | undefined {
  return (fn as Carrier)[ROUTE_OPTIONS]
}

/**
 * Refuses, at startup, a route chain where middleware that reads the caller's identity runs before middleware that
 * establishes it: it would see every caller as anonymous (a per-user rate limit counting per address).
 */
export function check_identity_order(route: string, chain: ReadonlyArray<RouteOptions | undefined>): void {
  let reader: string | undefined
  for (const o of chain) {
    if (reader !== undefined && o?.authenticates !== undefined) throw ERR_APP_IDENTITY_ORDER(route, reader, o.authenticates)
    reader ??= o?.reads_identity
  }
}

function carry_route_options<F extends object>(from: object, to: F): F {
  const o = route_options_of(from)
  return o ? with_route_options(to, o) : to
}
