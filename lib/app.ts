// The App's Fastify-independent core: route and middleware registration, groups, static folders, and compiling each
// route's middleware chain once at startup. adapters/ binds the compiled routes to Fastify.
import { realpath } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import {
  CORS_KIND,
  check_middleware_order,
  compose,
  drop_replaced,
  context_middleware_name,
  route_options_of,
  with_route_options,
  type Handler,
  type Middleware,
  type RouteOptions,
} from './compose.js'
import { resolve_config, secret_query_params, type AppConfig, type AppOptions } from './config.js'
import { ERR_APP_DUPLICATE_ON_ERROR, type ErrorMapper } from './error-answer.js'
import { defineError, httpCode } from './errors.js'
import { HttpError } from './http-error.js'
import { SECRET_QUERY } from './log/redact.js'
import { within } from './maybe-promise.js'
import {
  classify,
  covers,
  intersect,
  join_path,
  params_through,
  parse_route,
  prefix_segments,
  route_shape,
  router_order,
  router_path,
  routed_under,
  under_prefix,
  type PathParams,
  type RouterParams,
  type Segment,
} from './path.js'
import { response_check, type ResponseCheck } from './validation/response-check.js'
import { validated, type RouteSchema, type ValidOf } from './validation/route.js'
import type { Request } from './request.js'
import { is_unsafe_path, type Response } from './response.js'
import { Services } from './state.js'
import { Rooms, WsEndpoint, type WsHandler, type WsOptions } from './websocket/index.js'

export const ERR_APP_LOCKED = defineError(
  'FW_ERR_APP_LOCKED',
  (what: string) => `cannot ${what} after the app has started (listen, inject or mount)`,
)

export const ERR_APP_CLOSED = defineError(
  'FW_ERR_APP_CLOSED',
  (what: string) => `cannot ${what}: the app is closing or closed`,
)

export const ERR_APP_ALREADY_LISTENING = defineError(
  'FW_ERR_APP_ALREADY_LISTENING',
  () => 'cannot listen: the app is already listening or starting to',
)

export const ERR_APP_BAD_HANDLER = defineError(
  'FW_ERR_APP_BAD_HANDLER',
  (what: string, value: unknown) => `${what} must be a function; got ${value === null ? 'null' : typeof value}`,
)

export const ERR_APP_UNADAPTED_MIDDLEWARE = defineError(
  'FW_ERR_APP_UNADAPTED_MIDDLEWARE',
  (name: string) =>
    `use() got the context middleware ${JSON.stringify(name)} (ctx, next); wrap it for the App: use(adapt_ctx(mw))`,
)

export const ERR_APP_DUPLICATE_ROUTE = defineError(
  'FW_ERR_APP_DUPLICATE_ROUTE',
  (route: string, before: string) =>
    `${route} conflicts with ${before}, registered before: the same method on the same path`,
)

export const ERR_APP_ROUTE_CORS = defineError(
  'FW_ERR_APP_ROUTE_CORS',
  (route: string) =>
    `${route}: cors cannot be a route's own middleware, since a browser's preflight (OPTIONS) runs only the prefix ` +
    `middleware of the path; put it on a prefix: app.use('/api', cors) or a group's use`,
)

/**
 * A warning, not thrown: a `body_limit` middleware above the App's `body_limit` option, which it cannot raise (the
 * smallest applicable limit wins), so its route reads no more than the App option allows.
 */
export const ERR_APP_BODY_LIMIT_IGNORED = defineError(
  'FW_ERR_APP_BODY_LIMIT_IGNORED',
  (route: string, max: number, app: number) =>
    `${route}: body_limit({ max_bytes: ${max} }) is above the App's body_limit (${app}) and cannot raise it: ` +
    `raise the App's body_limit option (FW_BODY_LIMIT) to the most any route takes`,
)

/** The body-limit middleware already warned about (`ERR_APP_BODY_LIMIT_IGNORED`): once each, not once per route. */
const warned_limits = new WeakSet<object>()

/** What `within` gives for a close hook still running at `close_timeout_ms`. */
const LATE = Symbol('late')

export const CODE_NOT_FOUND = httpCode('not_found')

/** HTTP methods a route can answer. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'

/** Options of `static_dir`. */
export interface StaticOptions {
  /** URL prefix the folder is served under (default `/`). */
  prefix?: string
  /** A `Cache-Control` header for every file served. */
  cache_control?: string
  /** File served for the prefix itself (default `index.html`; false for none). */
  index?: string | false
}

interface RouteDef {
  method: Method
  path: string
  segs: Segment[]
  handler: Handler
  schema: RouteSchema | undefined
  group: string
  /** Its own middleware (`use` of its schema), run after the prefix middleware. */
  own: readonly Middleware[]
}

/**
 * A registered route as the OpenAPI generator sees it: its path template, schema, group and the middleware it may run.
 */
export interface RouteInfo {
  readonly method: Method
  readonly path: string
  readonly schema: RouteSchema | undefined
  /** The prefix of the group the route was registered in ('' at the top). */
  readonly group: string
  readonly middleware: readonly Middleware[]
}
interface MwDef {
  prefix: string[]
  mw: Middleware
}

/** A route ready for the adapter: its router path, and its handler wrapped in its middleware chain. */
export interface CompiledRoute {
  readonly method: Method
  readonly url: string
  readonly run: Handler
  /** The route's middleware without its handler: a request refused before the chain (body too large) still runs it. */
  readonly middleware: readonly Middleware[]
  readonly body_limit: number
  /** Whether the route takes its bodies as streams (a `stream_body` middleware covers all its requests). */
  readonly stream_body: boolean
  /**
   * How one request takes its body (a limit at most `body_limit`; streamed, or as `stream_body` says), on a route some
   * `body_limit` or `stream_body` middleware covers for some of its requests only: its prefix lies over the route's
   * parameters or wildcard (`/a/b` on `/a/{x}`). `undefined` on every other route, whose requests all take their bodies
   * as `body_limit` and `stream_body` say.
   */
  readonly body_of?: ((req: RoutedRequest) => BodyOf) | undefined
  /**
   * The parameters the route's chain reads, from those the router gives at `url`; `undefined` on every route but the
   * OPTIONS routes that run an app's own OPTIONS route on a shape it shares with an automatic one (`#auto_options`).
   */
  readonly params_of?: ((params: RouterParams) => Record<string, string>) | undefined
  /**
   * The check of its answers against its declared `responses`, run where the answer is committed; `undefined` when
   * `check_responses` is off or the route declares no body schema, and then nothing runs.
   */
  readonly check: ResponseCheck | undefined
  /** The `on_error` that answers a failure of this route's requests (`CompiledApp.on_error`, with the route known). */
  readonly on_error: ErrorMapperOf
}

/**
 * What deciding a prefix per request reads of a request matched on a route: its canonical path segments and the
 * router's parameters. `Request` has both; so can a host request before its facade exists (its body is read first).
 */
export interface RoutedRequest {
  segments(): readonly string[]
  param(name: string): string
}

/** How one request takes its body: under which limit, and whether as a stream. */
export interface BodyOf {
  readonly limit: number
  readonly stream: boolean
}

/** What a middleware covering some of a route's requests only asks of their bodies, and which requests it covers. */
interface MaybeBody {
  readonly limit: number | undefined
  readonly stream: boolean
  readonly applies: (req: RoutedRequest) => boolean
}

/**
 * A route's per-request body settings: `limit`, lowered by each of `maybe` that applies to the request, streamed when
 * `stream` or one of them that applies streams; `undefined` when none of them could change them, as every request then
 * takes its body as `limit` and `stream` say. One object per distinct setting, made the first time it comes.
 */
function request_body(
  limit: number,
  stream: boolean,
  maybe: readonly MaybeBody[],
): ((req: RoutedRequest) => BodyOf) | undefined {
  const changes = (m: MaybeBody, l: number, s: boolean): boolean =>
    (m.limit !== undefined && m.limit < l) || (m.stream && !s)
  const some = maybe.filter((m) => changes(m, limit, stream))
  if (some.length === 0) return undefined
  const made = new Map<number, BodyOf>()
  return (req) => {
    let l = limit
    let s = stream
    for (const m of some)
      if (changes(m, l, s) && m.applies(req)) {
        if (m.limit !== undefined && m.limit < l) l = m.limit
        s ||= m.stream
      }
    const key = s ? -1 - l : l
    let b = made.get(key)
    if (b === undefined) made.set(key, (b = { limit: l, stream: s }))
    return b
  }
}

/** A WebSocket route ready for the adapter: the middleware its upgrade request runs, then its endpoint. */
export interface CompiledWsRoute {
  readonly url: string
  readonly middleware: readonly Middleware[]
  readonly endpoint: WsEndpoint
  /** The `on_error` that answers a failure of its upgrade request. */
  readonly on_error: ErrorMapperOf
}

/** Which `on_error` answers a failed request: its nearest group's, else the App's, else none. */
export type ErrorMapperOf = (req: Request) => ErrorMapper | undefined

/** Everything the adapter registers. */
export interface CompiledApp {
  readonly routes: CompiledRoute[]
  readonly ws: CompiledWsRoute[]
  readonly not_found: Handler
  /**
   * The middleware `not_found` runs before its 404 (the App's, prefix middleware decided on the canonical path): a
   * refusal of a request no route matched (a malformed URL, a body too large) runs it too.
   */
  readonly middleware: readonly Middleware[]
  /** The `on_error` that answers a failed request no route matched: decided on its canonical path. */
  readonly on_error: ErrorMapperOf
}

/** Any route handler, whatever its parameter and value types (the overloads check them). */
type LooseHandler = (req: never, res: Response) => unknown

/** The handler of a route on `path` under a router whose prefix has parameters `PP`, given its schema `O`. */
type RouteHandler<PP extends string, P extends string, O = object> = Handler<PP | PathParams<P>, ValidOf<O>>

/**
 * A typed route method: `(path, handler)` or `(path, schema, handler)` on a router whose prefix has parameters `PP`;
 * returns `R` (the router) for chaining.
 */
export interface RouteMethod<PP extends string, R> {
  <const P extends string>(path: P, handler: RouteHandler<PP, P>): R
  <const P extends string, const O extends RouteSchema>(path: P, schema: O, handler: RouteHandler<PP, P, O>): R
}

/**
 * Route registration shared by the App and its groups. Every method takes `(path, handler)` or `(path, schema,
 * handler)`; path parameter names are inferred from the path (`req.param('idd')` on `/users/{id}` is a type error), and
 * the schema's validated values are typed in `req.valid(part)`.
 * @example
 * app.group('/api', api => { api.get('/health', h); api.group('/admin', a => a.get('/stats', h)) })
 * app.post('/orders', { body: Order }, (req, res) =>
 *   res.status(201).json('ok', true, 'items', req.valid('body').items.length),
 * )
 */
export class Router<PP extends string = never> {
  readonly #core: AppCore
  readonly #prefix: string

  constructor(core: AppCore | undefined, prefix: string) {
    this.#core = core ?? (this as unknown as AppCore)
    this.#prefix = prefix
  }

  /** Registers a GET route. */
  readonly get: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('GET', path, a, b)
  /** Registers a POST route. */
  readonly post: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('POST', path, a, b)
  /** Registers a PUT route. */
  readonly put: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('PUT', path, a, b)
  /** Registers a PATCH route. */
  readonly patch: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('PATCH', path, a, b)
  /** Registers a DELETE route (`delete` is a reserved word, hence `del`). */
  readonly del: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('DELETE', path, a, b)
  /** Registers a HEAD route (GET routes answer HEAD on their own). */
  readonly head: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('HEAD', path, a, b)
  /** Registers an OPTIONS route (known paths answer OPTIONS on their own). */
  readonly options: RouteMethod<PP, this> = (path: string, a: LooseHandler | RouteSchema, b?: LooseHandler) =>
    this.#add('OPTIONS', path, a, b)

  /** Registers a route for any method. */
  route<const P extends string>(method: Method, path: P, handler: RouteHandler<PP, P>): this
  route<const P extends string, const O extends RouteSchema>(
    method: Method,
    path: P,
    schema: O,
    handler: RouteHandler<PP, P, O>,
  ): this
  route(method: Method, path: string, a: LooseHandler | RouteSchema, b?: LooseHandler): this {
    return this.#add(method, path, a, b)
  }

  #add(method: Method, path: string, a: LooseHandler | RouteSchema, b: LooseHandler | undefined): this {
    const [schema, handler] = (typeof a === 'object' && a !== null ? [a, b] : [undefined, a]) as [
      RouteSchema | undefined,
      Handler,
    ]
    this.#core.add_route(method, join_path(this.#prefix, path), handler, schema, this.#prefix)
    return this
  }

  /**
   * Registers a WebSocket route: the upgrade request runs the route's middleware like any GET, and a refusal answers it
   * (401, 403, 429...) without opening a socket. See docs/websocket.md.
   * @example
   * app.ws('/ws/echo/{room}', (ws, req) => ws.on_message((m) => ws.send(m)), { max_payload: 64 * 1024 })
   */
  ws(path: string, handler: WsHandler, options?: WsOptions): this {
    this.#core.add_ws(join_path(this.#prefix, path), handler, options)
    return this
  }

  /** Registers routes under a prefix; groups nest, and the prefix's parameters are typed in their handlers. */
  group<const G extends string>(prefix: G, fn: (group: Router<PP | PathParams<G>>) => void): this {
    parse_route(prefix)
    fn(new Router<PP | PathParams<G>>(this.#core, join_path(this.#prefix, prefix)))
    return this
  }

  /**
   * Maps the errors of every route under this router (the App, or a group's prefix): `fn(err, req, res)` answers
   * through `res`, or answers nothing to leave the default (an `HttpError`'s own answer, else 500, logged). It runs
   * once per failed request, after the error has left the chain, with the headers the middleware set (CORS, security
   * headers) still on `res`; if it throws, the answer is 500. The nearest group's `on_error` wins. See docs/app.md.
   * @example
   * app.on_error((err, _req, res) => {
   *   if (err instanceof NotFound) res.error(404, 'user_not_found', err.message)
   * })
   */
  on_error(fn: ErrorMapper): this {
    this.#core.add_error_handler(this.#prefix, fn)
    return this
  }

  /** Adds middleware for everything under this router (`use(mw)`), or under a sub-prefix (`use('/admin', mw)`). */
  use(mw: Middleware): this
  use(prefix: string, mw: Middleware): this
  use(a: string | Middleware, b?: Middleware): this {
    const [prefix, mw] = typeof a === 'string' ? [join_path(this.#prefix, a), b!] : [this.#prefix, a]
    this.#core.add_middleware(prefix, mw)
    return this
  }
}

/** The Fastify-independent part of an App. */
export class AppCore extends Router {
  /** Resolved configuration (options, then FW_* environment). */
  readonly config: AppConfig
  /** Typed service registry: `services.set(Token, impl)`, `services.get(Token)`. */
  readonly services = new Services()
  /** WebSocket rooms: `app.rooms.broadcast(room, message)`, `app.rooms.members(room)`. */
  readonly rooms = new Rooms()
  readonly #routes: RouteDef[] = []
  /**
   * Each route by method and shape (`GET /users/:`), as `GET /users/{id}` or `WS /chat`: a second one there would only
   * fail in Fastify, at listen. A WebSocket route is a GET route there.
   */
  readonly #route_keys = new Map<string, string>()
  readonly #mws: MwDef[] = []
  readonly #ws: Array<{ segs: Segment[]; endpoint: WsEndpoint; own: readonly Middleware[] }> = []
  readonly #closers: Array<() => unknown> = []
  /** Whether `run_closers` has taken the hooks: one added after would never run. */
  #closers_ran = false
  readonly #error_handlers = new Map<string, { prefix: string[]; fn: ErrorMapper }>()
  /** The compiled app per mount prefix: a host may mount one App under several. */
  readonly #compiled = new Map<string, CompiledApp>()
  #base: string[] = []
  readonly #secret_query: Set<string>

  constructor(options: AppOptions = {}) {
    super(undefined, '')
    this.config = resolve_config(options)
    this.#secret_query = new Set([...SECRET_QUERY, ...secret_query_params(options)].map((n) => n.toLowerCase()))
    this.on_close(() => this.rooms.close())
  }

  /** @internal Adds a route; use `get`, `post`, ... */
  add_route(method: Method, path: string, handler: Handler, schema?: RouteSchema, group = ''): void {
    if (this.started) throw ERR_APP_LOCKED(`add route ${method} ${path}`)
    if (typeof handler !== 'function') throw ERR_APP_BAD_HANDLER(`the handler of ${method} ${path}`, handler)
    // Validators compile here, at registration, so a bad schema fails at startup.
    const segs = parse_route(path)
    const own = this.#own_middleware(schema?.use, `${method} ${path}`)
    this.#claim(method, segs, `${method} ${path}`)
    const mapped = (req: Request): boolean => this.#error_of(req, segs) !== undefined
    const run = schema === undefined ? handler : validated(schema, handler, `${method} ${path}`, mapped)
    this.#routes.push({ method, path, segs, handler: run, schema, group, own })
  }

  /** Takes `method` on the shape of `segs` for `label`, or throws `FW_ERR_APP_DUPLICATE_ROUTE` naming its holder. */
  #claim(method: string, segs: readonly Segment[], label: string): void {
    const key = `${method} ${route_shape(segs)}`
    const before = this.#route_keys.get(key)
    if (before !== undefined) throw ERR_APP_DUPLICATE_ROUTE(label, before)
    this.#route_keys.set(key, label)
  }

  /**
   * @internal Every registered route with its schema and the middleware it may run: the route registry the OpenAPI
   * generator reads (the core knows nothing of OpenAPI).
   */
  route_infos(): RouteInfo[] {
    return this.#routes.map((r) => ({
      method: r.method,
      path: r.path,
      schema: r.schema,
      group: r.group,
      middleware: [...this.#mws.filter((m) => classify(r.segs, m.prefix) !== 'never').map((m) => m.mw), ...r.own],
    }))
  }

  /** @internal Adds a WebSocket route; use `ws`. */
  add_ws(path: string, handler: WsHandler, options?: WsOptions): void {
    if (this.started) throw ERR_APP_LOCKED(`add route WS ${path}`)
    if (typeof handler !== 'function') throw ERR_APP_BAD_HANDLER(`the handler of WS ${path}`, handler)
    const segs = parse_route(path)
    const own = this.#own_middleware(options?.use, `WS ${path}`)
    this.#claim('GET', segs, `WS ${path}`)
    this.#ws.push({ segs, endpoint: new WsEndpoint(path, handler, options), own })
  }

  /**
   * The `on_error` of a request, on `route` when one matched (known once compiled; a route's validation asks it when it
   * fails, to know whether an `on_error` covers it).
   */
  #error_of: (req: Request, route?: readonly Segment[]) => ErrorMapper | undefined = () => undefined

  /** @internal Sets the error mapper of a prefix; use `on_error`. */
  add_error_handler(prefix: string, fn: ErrorMapper): void {
    if (this.started) throw ERR_APP_LOCKED('set on_error')
    if (typeof fn !== 'function') throw ERR_APP_BAD_HANDLER('on_error', fn)
    if (this.#error_handlers.has(prefix)) throw ERR_APP_DUPLICATE_ON_ERROR(prefix)
    this.#error_handlers.set(prefix, { prefix: prefix_segments(prefix), fn })
  }

  /** @internal Adds middleware; use `use`. */
  add_middleware(prefix: string, mw: Middleware): void {
    if (this.started) throw ERR_APP_LOCKED('add middleware')
    this.#accept_middleware(mw, 'middleware')
    this.#mws.push({ prefix: prefix_segments(prefix), mw })
  }

  /** A route's own middleware (its `use`: one or a list), each checked, for the route `label`. */
  #own_middleware(use: Middleware | readonly Middleware[] | undefined, label: string): readonly Middleware[] {
    const own = use === undefined ? [] : [use].flat()
    for (const mw of own) {
      this.#accept_middleware(mw, `the middleware of ${label}`)
      // A preflight it never sees would answer 204 without CORS headers, and the browser would refuse the request.
      if (route_options_of(mw)?.kind === CORS_KIND) throw ERR_APP_ROUTE_CORS(label)
    }
    return own
  }

  /**
   * Checks middleware given to `use` or a route's `use` (named `what` in the error), and takes note of the secret query
   * parameters it reads.
   */
  #accept_middleware(mw: Middleware, what: string): void {
    if (typeof mw !== 'function') throw ERR_APP_BAD_HANDLER(what, mw)
    // Run as (req, res, next), it would read the request as its context and fail on every request it covers.
    const unadapted = context_middleware_name(mw)
    if (unadapted !== undefined) throw ERR_APP_UNADAPTED_MIDDLEWARE(unadapted)
    for (const name of route_options_of(mw)?.secret_query ?? []) this.#secret_query.add(name.toLowerCase())
  }

  /**
   * The query parameters this App's access line redacts (lowercase): `SECRET_QUERY`'s, the
   * `secret_query_params` option, and the `query_param` of each `api_key` or `jwt` middleware it uses.
   */
  get secret_query(): ReadonlySet<string> {
    return this.#secret_query
  }

  /**
   * Serves a folder. Paths with `..`, dot files and anything resolving outside the folder, through a symbolic link
   * too, are never served.
   * @example
   * app.static_dir('./public', { prefix: '/static', cache_control: 'public, max-age=3600' })
   */
  static_dir(dir: string, options: StaticOptions = {}): this {
    const root = resolve(dir)
    const prefix = options.prefix ?? '/'
    const index = options.index ?? 'index.html'
    const cache = options.cache_control
    // The folder as the file system resolves it: a file is served only when its own resolved path is inside. Kept
    // between requests, and resolved again when a file seems outside: the folder may be a link a deploy switches.
    let real_root: Promise<string> | undefined
    const resolve_root = (): Promise<string> => (real_root = realpath(root).catch(() => root))
    const not_found = (res: Response): void => void res.error(404, CODE_NOT_FOUND, 'File not found')
    const serve: Handler = async (req, res) => {
      const wild = req.param('*')
      const rel = wild || index || ''
      const target = resolve(root, '.' + sep + rel)
      // A trailing slash (which the router ignores, or an encoded one) asks for a folder, and `resolve` drops it: the
      // file of that name is not what was asked for.
      if (
        rel === '' ||
        (wild !== '' && req.path().endsWith('/')) ||
        rel.endsWith('/') ||
        is_unsafe_path(rel) ||
        !target.startsWith(root + sep) ||
        /(^|[\\/])\./.test(rel)
      )
        return not_found(res)
      // A link inside the folder may point anywhere (an extracted upload, a deploy script's shortcut).
      const [inside, real] = [await (real_root ?? resolve_root()), await realpath(target).catch(() => undefined)]
      if (real !== undefined && !real.startsWith(inside + sep) && !real.startsWith((await resolve_root()) + sep))
        return not_found(res)
      if (cache !== undefined) res.header('Cache-Control', cache)
      res.file(target)
    }
    this.route('GET', join_path(prefix === '/' ? '' : prefix, '/*'), { hide: true }, serve)
    if (index) this.route('GET', prefix, { hide: true }, serve)
    return this
  }

  /**
   * Registers a function to run when the app closes (stores, timers). Once the close has begun to run them it throws
   * `FW_ERR_APP_CLOSED`, as Fastify refuses a late `onClose` hook: kept, it would never run.
   */
  on_close(fn: () => unknown): this {
    if (this.#closers_ran) throw ERR_APP_CLOSED('add an on_close hook')
    this.#closers.push(fn)
    return this
  }

  /**
   * @internal Runs the close hooks, last registered first. One that throws or rejects goes to `failed`, and the rest
   * still run: a store whose quit failed must not keep the others open. Each is waited for at most `close_timeout_ms`:
   * one that never settles (a quit to a server that stopped answering) held `close()` and `wait()` forever.
   */
  async run_closers(failed: (err: unknown) => void): Promise<void> {
    const ms = this.config.close_timeout_ms
    this.#closers_ran = true
    for (const fn of this.#closers.splice(0).reverse()) {
      try {
        const done = fn()
        if (typeof (done as { then?: unknown } | null | undefined)?.then !== 'function') continue
        if ((await within(done as PromiseLike<unknown>, ms, LATE)) === LATE)
          failed(new Error(`on_close hook did not finish within ${ms} ms`))
      } catch (err) {
        failed(err)
      }
    }
  }

  /** Whether routes were compiled (the app started). */
  get started(): boolean {
    return this.#compiled.size > 0
  }

  /**
   * @internal Compiles every route's chain once per mount prefix; the app is locked afterwards. `mount_prefix` is where
   * a host mounted the app, so per-request prefix checks see the app's own paths under each mount.
   */
  compile(mount_prefix = ''): CompiledApp {
    const done = this.#compiled.get(mount_prefix)
    if (done !== undefined) return done
    this.#base = prefix_segments(mount_prefix)
    this.#error_of = this.#error_handler_of()
    // Decided here, once: with `check_responses` off no route carries a check, so its requests pay nothing for it.
    const checking = this.config.check_responses
    const check = (r: RouteDef) => (checking ? response_check(`${r.method} ${r.path}`, r.schema) : undefined)
    const routes = this.#routes.map((r) => this.#compile_route(r.method, r.segs, r.handler, check(r), r.own))
    routes.push(...this.#auto_options(check))
    const guarded = this.#mws.map((m) => (m.prefix.length === 0 ? m.mw : this.#guard(m)))
    const error_of = this.#error_of
    // An on_error over the path may answer an unknown route in its API's shape: it gets the 404 as an HttpError, which
    // answers as before when it does not. Without one nothing is thrown (a flood of 404s makes no stack traces).
    const not_found = compose(guarded, (req, res) => {
      if (error_of(req) !== undefined) throw new HttpError(404, CODE_NOT_FOUND, 'Route not found')
      res.error(404, CODE_NOT_FOUND, 'Route not found')
    })
    const ws = this.#ws.map(({ segs, endpoint, own }) => {
      const r = this.#compile_route('GET', segs, not_found, undefined, own)
      return { url: r.url, middleware: r.middleware, endpoint, on_error: r.on_error }
    })
    const compiled = { routes, ws, not_found, middleware: guarded, on_error: this.#error_of }
    this.#compiled.set(mount_prefix, compiled)
    return compiled
  }

  /**
   * How a failed request finds its `on_error`: the one set on the longest prefix the request is under, decided as prefix
   * middleware is (failures are rare, so per request): its canonical path, or, on a route, the path the route was
   * matched at (`/api/..` reaches `/{section}/{page}` with section `api`).
   */
  #error_handler_of(): (req: Request, route?: readonly Segment[]) => ErrorMapper | undefined {
    const handlers = [...this.#error_handlers.values()]
      .map((h) => ({ prefix: [...this.#base, ...h.prefix], own: h.prefix, fn: h.fn }))
      .sort((a, b) => b.prefix.length - a.prefix.length)
    if (handlers.length === 0) return () => undefined
    return (req, route) =>
      handlers.find(
        (h) => under_prefix(req.segments(), h.prefix) || (route !== undefined && routed_under(route, h.own, req)),
      )?.fn
  }

  #compile_route(
    method: Method,
    segs: Segment[],
    handler: Handler,
    check?: ResponseCheck,
    own: readonly Middleware[] = [],
  ): CompiledRoute {
    const chain: Middleware[] = []
    const options: Array<RouteOptions | undefined> = []
    const url = router_path(segs)
    const label = `${method} ${url}`
    let body_limit = this.config.body_limit
    let stream_body = false
    const placed = this.#mws
      .map((m) => ({ ...m, depth: m.prefix.length, c: classify(segs, m.prefix) }))
      .filter((p) => p.c !== 'never')
      .map((p) => ({ ...p, sure: p.c === 'always' }))
    // A route's own middleware is the most specific placement there is (deeper than any prefix, one past a wildcard
    // included): its `override` rate limit replaces the App's.
    placed.push(...own.map((mw) => ({ mw, prefix: [], depth: Infinity, c: 'always' as const, sure: true })))
    // A limit or streaming whose prefix the route lies under only for some requests (`/a/b` on `/a/{x}`) is decided
    // per request.
    const maybe_bodies: MaybeBody[] = []
    for (const m of drop_replaced(placed)) {
      chain.push(m.sure ? m.mw : this.#guard(m, segs))
      const o = route_options_of(m.mw)
      options.push(o)
      if (o?.body_limit !== undefined) {
        if (m.sure) body_limit = Math.min(body_limit, o.body_limit)
        if (o.body_limit > this.config.body_limit && !warned_limits.has(m.mw)) {
          warned_limits.add(m.mw)
          process.emitWarning(ERR_APP_BODY_LIMIT_IGNORED(label, o.body_limit, this.config.body_limit))
        }
      }
      if (o?.stream_body === true && m.sure) stream_body = true
      if (!m.sure && (o?.body_limit !== undefined || o?.stream_body === true))
        maybe_bodies.push({
          limit: o.body_limit,
          stream: o.stream_body === true,
          applies: this.#covers_request(m, segs),
        })
    }
    check_middleware_order(label, options)
    const run = compose(chain, handler)
    const error_of = this.#error_of
    const on_error: ErrorMapperOf = (req) => error_of(req, segs)
    const body_of = request_body(body_limit, stream_body, maybe_bodies)
    return { method, url, run, middleware: chain, body_limit, stream_body, body_of, check, on_error }
  }

  /**
   * Wraps prefix middleware that can only be decided per request (parameters, wildcard, unknown routes): it runs when
   * the canonical path is under its prefix, or, on a route (`segs`), when the path the route was matched at is.
   */
  #guard(m: MwDef, segs?: readonly Segment[]): Middleware {
    const covered = this.#covers_request(m, segs)
    const mw = m.mw
    const guard: Middleware = (req, res, next) => (covered(req) ? mw(req, res, next) : next())
    // What the middleware asks of the adapter (its kind, a body limit) holds wherever it may run.
    const options = route_options_of(mw)
    return options === undefined ? guard : with_route_options(guard, options)
  }

  /**
   * Whether prefix middleware `m` covers a request: its canonical path is under the prefix (under the mount), or, on the
   * route `segs` the prefix lies partly over, the path the route was matched at is. Without `segs` (a request no route
   * matched), the path alone decides.
   */
  #covers_request(m: MwDef, segs?: readonly Segment[]): (req: RoutedRequest) => boolean {
    const prefix = [...this.#base, ...m.prefix]
    if (segs === undefined) return (req) => under_prefix(req.segments(), prefix)
    const own = m.prefix
    return (req) => under_prefix(req.segments(), prefix) || routed_under(segs, own, req)
  }

  /**
   * OPTIONS on a known path runs the chain, then answers 204 with `Allow`. Paths are grouped by shape: `GET /users/{id}`
   * and `DELETE /users/{user_id}` are one path, which one OPTIONS route answers (two would conflict in the router).
   * `Allow` lists every method a route answers there, a more general one's too (`DELETE /users/{id}` on
   * `/users/me`, `GET /files/*` on `/files/upload`), in registration order. A path the app's own OPTIONS route covers
   * (`options('/*')`, a hand-made preflight) is left to it: an automatic route, more specific, would take its requests,
   * and where one overlapping it is more specific, a route running the own route takes them. `check` gives a route's
   * response check.
   */
  #auto_options(check: (r: RouteDef) => ResponseCheck | undefined): CompiledRoute[] {
    const shapes = new Map<string, Segment[]>()
    for (const r of this.#routes) {
      const shape = route_shape(r.segs)
      if (!shapes.has(shape)) shapes.set(shape, r.segs)
    }
    // Two shapes that overlap without one covering the other (`/a/{x}/c`, `/a/b/{y}`) share paths (`/a/b/c`) whose
    // OPTIONS the router gives the more specific alone. Their intersection gets a route of its own, more specific than
    // both, and so on until the set is closed: the route the router picks for any path is then covered by every shape
    // matching the path, and its `Allow`, computed here, lists every route there.
    const list = [...shapes.values()]
    for (let i = 1; i < list.length; i++)
      for (let j = 0; j < i; j++) {
        const both = intersect(list[i]!, list[j]!)
        if (both === undefined) continue
        const shape = route_shape(both)
        if (shapes.has(shape)) continue
        shapes.set(shape, both)
        list.push(both)
      }
    const out: CompiledRoute[] = []
    const automatic: Segment[][] = []
    for (const segs of list) {
      const methods = new Set<string>()
      for (const r of this.#routes) {
        if (!covers(r.segs, segs)) continue
        methods.add(r.method)
        if (r.method === 'GET') methods.add('HEAD')
      }
      if (methods.has('OPTIONS')) continue
      const allow = [...methods, 'OPTIONS'].join(', ')
      out.push(this.#compile_route('OPTIONS', segs, (_req, res) => res.status(204).header('Allow', allow).send()))
      automatic.push(segs)
    }
    // The automatic route of a shape an own OPTIONS route overlaps without covering it (`/a/b/{y}` beside own
    // `/a/{x}/c`) is the router's pick on paths they share (`/a/b/c`) when more specific. So each shape of the closed
    // set that both an own route and an automatic one cover gets an OPTIONS route of its own, the most specific for its
    // paths, running the own route the router would pick there among the app's (its chain, handler, check and
    // `on_error`, compiled on its own pattern), its parameters named as that route names them (`x` read as `b`). A path
    // no automatic route matches stays the router's among the own routes alone, as for any method.
    const own = this.#routes.filter((r) => r.method === 'OPTIONS')
    for (const segs of list) {
      const owners = own.filter((r) => covers(r.segs, segs))
      const shape = route_shape(segs)
      if (owners.length === 0 || owners.some((r) => route_shape(r.segs) === shape)) continue
      if (!automatic.some((a) => covers(a, segs))) continue
      const r = owners.reduce((a, b) => (router_order(a.segs, b.segs) <= 0 ? a : b))
      const runs = this.#compile_route('OPTIONS', r.segs, r.handler, check(r), r.own)
      out.push({ ...runs, url: router_path(segs), params_of: params_through(r.segs, segs) })
    }
    return out
  }
}
