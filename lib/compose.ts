// The middleware chain in one small function: onion model, `await next()` runs the rest, a second `next()` is ignored.
import { defineError } from './errors.js'
import { is_thenable } from './maybe-promise.js'
import { quote } from './options.js'
import type { Ctx, Request, Valid } from './request.js'
import type { Response } from './response.js'

/**
 * A route handler; `P` and `V` type its path parameters and validated values (see `Request`). What it returns is
 * ignored (a promise is awaited), so `(req, res) => res.json('ok', true)` is one.
 */
export type Handler<P extends string = string, V extends Valid = Valid> = (req: Request<P, V>, res: Response) => unknown

/** Runs the rest of the chain and the handler. */
export type Next = () => Promise<void>

/** App middleware: call `await next()` to continue; not calling it ends the chain. */
export type Middleware = (req: Request, res: Response, next: Next) => void | Promise<void>

export type { Ctx } from './request.js'

/** Context middleware: `(ctx, next)`; `adapt_ctx` turns it into App middleware. */
export type CtxMiddleware = (ctx: Ctx, next: Next) => void | Promise<void>

export const ERR_APP_IDENTITY_ORDER = defineError(
  'FW_ERR_APP_IDENTITY_ORDER',
  (route: string, reader: string, auth: string) =>
    `${route}: ${reader} runs before ${auth}, so it cannot see who the caller is; register it after ${auth} (app.use order)`,
)

export const ERR_APP_SESSION_ORDER = defineError(
  'FW_ERR_APP_SESSION_ORDER',
  (route: string, reader: string, opener: string) =>
    `${route}: ${reader} runs before ${opener}, so it cannot bind its check to the session; register it after ${opener} (app.use order)`,
)

export const ERR_APP_CACHE_ORDER = defineError(
  'FW_ERR_APP_CACHE_ORDER',
  (route: string, cache: string, encoder: string) =>
    `${route}: ${cache} runs before ${encoder}, so it is handed encoded bodies, which it never stores: every request ` +
    `would run the handler; register ${encoder} before ${cache} (app.use order)`,
)

const done = Promise.resolve()

/**
 * Composes middleware and a handler into one function. With no middleware it is the handler itself, so a bare route
 * pays nothing for the chain. A chain in an order that cannot work (`csrf` before `session`) throws, as a route's does
 * at startup.
 */
export function compose(mws: readonly Middleware[], handler: Handler): Handler {
  if (mws.length === 0) return handler
  check_middleware_order('a composed chain', mws.map(route_options_of))
  return function chain(req, res) {
    // A chain that ran to its end synchronously gives `done`: answering it as sync saves the caller a promise and a
    // tick.
    const run = new ChainRun(mws, handler, req, res)
    const r = run.dispatch(0)
    return r === done ? undefined : run.ended(r)
  }
}

/**
 * One request's walk down a chain. A class rather than closures in `chain`: a request allocates one object, and no
 * named function (which tsx's keepNames would rename with a defineProperty on every request). Each middleware's `next`
 * is `#next` bound to its position, the smallest function object V8 makes (a closure over the position and the run
 * weighed about 120 bytes more per middleware).
 */
class ChainRun {
  #index = -1
  /** What the last `next()` of a synchronous middleware gave: the rest of the chain, which its caller waits for. */
  #downstream: Promise<void> | undefined = undefined
  /** The handler's promise while it runs, for a chain whose middleware did not wait for it. */
  #running: Promise<void> | undefined = undefined
  readonly #mws: readonly Middleware[]
  readonly #handler: Handler
  readonly #req: Request
  readonly #res: Response

  constructor(mws: readonly Middleware[], handler: Handler, req: Request, res: Response) {
    this.#mws = mws
    this.#handler = handler
    this.#req = req
    this.#res = res
  }

  dispatch(i: number): Promise<void> {
    // A second next() from the same middleware would run the rest twice; it is ignored.
    if (i <= this.#index) return done
    this.#index = i
    try {
      if (i === this.#mws.length) {
        const r = this.#handler(this.#req, this.#res)
        if (!is_thenable(r)) return done
        // Any thenable, as `await` takes one (a promise library's, a lazy query builder's, another realm's), adopted
        // into a native promise; a native one is given back as it is. Noted as settled when it is: what it gives is
        // then the middleware's to see. Its failure is never an unhandled rejection that ends the process, even when
        // no middleware waited for it.
        const p = Promise.resolve(r) as Promise<void>
        this.#running = p
        p.then(
          () => void (this.#running = undefined),
          () => void (this.#running = undefined),
        )
        return p
      }
      this.#downstream = undefined
      const r = this.#mws[i]!(this.#req, this.#res, this.#next.bind(this, i + 1))
      // An async middleware owns its `await next()` (and may catch what it throws). A sync one that calls next()
      // without returning it still waits for the rest of the chain: its next() ran (and returned) before it returned,
      // so the field holds what that call gave, whatever the calls deeper in the chain wrote there before.
      if (is_thenable(r)) return Promise.resolve(r)
      return this.#downstream ?? done
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /**
   * The end of a chain that went async, `first` being its first middleware's promise. An async middleware that calls
   * next() without awaiting it resolves before the handler has answered: the chain still ends with the handler (then
   * its answer is the one sent, and its failure is this chain's). A method, not a closure in `compose`'s chain, so a
   * chain that ends synchronously allocates no context for it.
   */
  ended(first: Promise<void>): Promise<void> {
    return first.then(() => this.#running)
  }

  #next(i: number): Promise<void> {
    return (this.#downstream = this.dispatch(i))
  }
}

/** The per-request context shared by all context middleware of one request. */
export function ctx_of(req: Request, res: Response): Ctx {
  return req.ctx(res)
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

/** Where fw's factories mark the context middleware they return, with the factory's name. */
const CONTEXT_MIDDLEWARE = Symbol.for('fw.context_middleware')

/**
 * Marks context middleware made by the fw factory `name`, so `app.use` can refuse it before `adapt_ctx` (its
 * `(ctx, next)` cannot be told from App middleware `(req, res)` by its parameters) and name it in the refusal. The name
 * is given rather than read from the function: a bundler may rename a function (`dist/` calls an inner `cors` `cors2`).
 * `adapt_ctx` does not carry the mark.
 */
export function context_middleware<F extends CtxMiddleware>(mw: F, name: string): F {
  Object.defineProperty(mw, CONTEXT_MIDDLEWARE, { value: name })
  return mw
}

/** The factory name of context middleware an fw factory made (marked by `context_middleware`), else undefined. */
export function context_middleware_name(fn: object): string | undefined {
  return (fn as { [CONTEXT_MIDDLEWARE]?: string })[CONTEXT_MIDDLEWARE]
}

/** A middleware option given neither App middleware `(req, res, next)` nor context middleware `(ctx, next)`. */
export const ERR_APP_BAD_MIDDLEWARE = defineError(
  'FW_ERR_APP_BAD_MIDDLEWARE',
  (what: string, value: unknown) =>
    `${what} must be App middleware (req, res, next) or context middleware (ctx, next); got ${
      typeof value === 'function'
        ? `a function of ${value.length} parameter${value.length === 1 ? '' : 's'}`
        : quote(value)
    }`,
)

/**
 * An App middleware from either shape a middleware option takes: `(req, res, next)` as it is, context middleware
 * `(ctx, next)` (the factories of `fw/middleware`) through `adapt_ctx`. The shape is read from the declared parameters;
 * anything else fails at startup with `FW_ERR_APP_BAD_MIDDLEWARE` naming `what`.
 */
export function app_middleware(mw: Middleware | CtxMiddleware, what: string): Middleware {
  if (typeof mw === 'function' && mw.length === 3) return mw as Middleware
  if (typeof mw === 'function' && mw.length === 2) return adapt_ctx(mw as CtxMiddleware)
  throw ERR_APP_BAD_MIDDLEWARE(what, mw)
}

/**
 * An OpenAPI security scheme object (`{ type: 'http', scheme: 'bearer' }`, `{ type: 'apiKey', in: 'header', name
 * }`...).
 */
export type SecurityScheme = Readonly<Record<string, unknown>>

/** What a middleware tells the OpenAPI document about the routes it covers. */
export interface MiddlewareDoc {
  /**
   * Schemes by name; `optional`: a request without credentials goes on; `requirements`: the alternatives, each a list
   * of scheme names that must hold together (default: any one scheme alone); `missing`: the code the middleware
   * answers when no credential came at all (so `any_of` can prefer a refusal of a bad one).
   */
  readonly security?: {
    readonly schemes: Readonly<Record<string, SecurityScheme>>
    readonly optional: boolean
    readonly requirements?: ReadonlyArray<readonly string[]>
    readonly missing?: string
  }
  /** Error answers it may give, by status, with their `error` codes. */
  readonly responses?: Readonly<Record<number, readonly string[]>>
}

/**
 * Route-level options a middleware asks of the adapter (for example a body limit that must act before the body is
 * read).
 */
export interface RouteOptions {
  body_limit?: number
  /** The route takes its request body as a stream (`stream_body`): the adapter does not read it first. */
  stream_body?: boolean
  /** The middleware authenticates the caller (its name, such as `jwt`): what reads the identity must come after it. */
  authenticates?: string
  /** The middleware reads the caller's identity (how it is written, such as `rate_limit({ key: 'user' })`). */
  reads_identity?: string
  /** The middleware loads the request's session (its name, `session`): what binds to it must come after it. */
  opens_session?: string
  /** The middleware binds what it checks to the session (its name, such as `csrf`). */
  binds_session?: string
  /** The middleware encodes the answers of what runs after it (its name, `compression`): a cache must come after. */
  encodes?: string
  /** The middleware stores answers it can replay, never encoded ones (its name, `http_cache`). */
  caches?: string
  /** What the middleware tells the OpenAPI document (security scheme, error answers). */
  doc?: MiddlewareDoc
  /** What kind of middleware this is, for `replaces` (such as `rate_limit`). */
  kind?: string
  /**
   * On the routes its prefix surely covers, drops the middleware of this kind placed on a shorter or the same prefix
   * before it.
   */
  replaces?: string
  /** Query parameters that carry a secret the middleware reads: the App's access line redacts them. */
  secret_query?: readonly string[]
}

/** The `kind` of fw's `cors` middleware: an adapter keeps a host's CORS plugin off the routes that run it. */
export const CORS_KIND = 'cors'

/** The `kind` of fw's `security_headers` middleware: embedded, an adapter tells when they replace a host's headers. */
export const SECURITY_HEADERS_KIND = 'security_headers'

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

/** Route options naming what a middleware establishes, what reads it, and the error when the reader runs first. */
const ORDERS = [
  { establishes: 'authenticates', reads: 'reads_identity', error: ERR_APP_IDENTITY_ORDER },
  { establishes: 'opens_session', reads: 'binds_session', error: ERR_APP_SESSION_ORDER },
  // A cache inside the encoder stores unencoded answers and is served through it; one outside it gets encoded ones.
  { establishes: 'encodes', reads: 'caches', error: ERR_APP_CACHE_ORDER },
] as const

/**
 * Refuses, at startup, a route chain where middleware that reads what another establishes runs before it: a per-user
 * rate limit before authentication would see every caller as anonymous (counting per address), a CSRF check before
 * `session` would accept a token minted for no session (an attacker's own, replayed in the victim's session), an
 * `http_cache` before `compression` would store nothing a client asking for compression gets.
 */
export function check_middleware_order(route: string, chain: ReadonlyArray<RouteOptions | undefined>): void {
  for (const { establishes, reads, error } of ORDERS) {
    let reader: string | undefined
    for (const o of chain) {
      const by = o?.[establishes]
      if (reader !== undefined && by !== undefined) throw error(route, reader, by)
      reader ??= o?.[reads]
    }
  }
}

/**
 * A middleware placed on a prefix of `depth` segments, and whether it applies to the route for certain (no parameter on
 * the way).
 */
export interface Placement {
  readonly mw: object
  readonly depth: number
  readonly sure: boolean
}

/**
 * A route's middleware after `replaces`: a more specific placement (a route's own rate limit) takes the place of the
 * less specific ones of its kind (the global limit). Only a placement sure to apply replaces; ties go to the later one.
 */
export function drop_replaced<P extends Placement>(chain: readonly P[]): P[] {
  const dropped = new Set<number>()
  chain.forEach((e, i) => {
    const kind = e.sure ? route_options_of(e.mw)?.replaces : undefined
    if (kind === undefined) return
    chain.forEach((f, j) => {
      if (j !== i && route_options_of(f.mw)?.kind === kind && (f.depth < e.depth || (f.depth === e.depth && j < i)))
        dropped.add(j)
    })
  })
  return dropped.size === 0 ? [...chain] : chain.filter((_, j) => !dropped.has(j))
}

function carry_route_options<F extends object>(from: object, to: F): F {
  const o = route_options_of(from)
  return o ? with_route_options(to, o) : to
}
