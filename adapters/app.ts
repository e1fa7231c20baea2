// The App: the Fastify-independent core bound to its own Fastify instance, with the server lifecycle.
import type { AddressInfo, Server, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Http2Session } from 'node:http2'
import type { SecureContextOptions } from 'node:tls'
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type InjectOptions,
  type LightMyRequestResponse,
} from 'fastify'
import type pino from 'pino'
import { AppCore } from '../lib/app.js'
import {
  check_tls,
  connections_check_ms,
  ERR_CONFIG_BAD_VALUE,
  type AppOptions,
  type TlsOptions,
} from '../lib/config.js'
import { app_middleware, compose, type CtxMiddleware, type Middleware } from '../lib/compose.js'
import { core, type LogCore } from '../lib/log/core.js'
import { request_context } from '../lib/log/context.js'
import { flush, level as log_level, pino_logger } from '../lib/log/index.js'
import { bound_logger, logf_in } from '../lib/log/logger.js'
import {
  Health,
  HttpTracing,
  LoadMonitor,
  Metrics,
  type HealthOptions,
  type LoadOptions,
  type MetricsOptions,
} from '../lib/observability/index.js'
import { serve_openapi, type OpenApiOptions } from '../lib/openapi/index.js'
import { client_error, framework_error } from './error-answers.js'
import { mount } from './mount.js'
import { ip_resolver, request_id, sequential_ids } from './request-lines.js'
import { metrics_hooks, shed_hook, trace_hooks } from './observability.js'

/**
 * A logger for Fastify's `loggerInstance` that makes no child per request. Fastify asks each request's logger for
 * `child({ reqId })`; fw's lines carry the id from the log context instead, so that child would only cost. The logger is
 * built over pino's as pino builds its children (an object whose prototype is the logger), with a `child` of its own:
 * for a request's `{ reqId }` alone (no level or serializers of the route's) it answers `root`, and any other child (a
 * plugin's, Fastify's own at start-up) is pino's child, built the same way. pino's objects are never changed. Fastify's
 * `childLoggerFactory` would do the same through a supported option, but Fastify then validates the logger it returns
 * on every request (measured: about 1.1 µs more per request).
 */
function without_request_children(base: pino.Logger, root?: pino.Logger): pino.Logger {
  const logger = Object.create(base) as pino.Logger
  const top = root ?? logger
  const child = (bindings: pino.Bindings, options?: pino.ChildLoggerOptions): pino.Logger =>
    only_request_id(bindings) && options?.level === undefined && options?.serializers === undefined
      ? top
      : without_request_children(base.child(bindings, options), top)
  Object.defineProperty(logger, 'child', { value: child, writable: true, configurable: true })
  return logger
}

/**
 * The text of Fastify's `Server listening at <url>` line, which it writes on every listen with no option to turn it off:
 * `listen` gives Fastify this marker as the text and the logger drops it, so the one listening line is fw's own.
 */
const FASTIFY_LISTENING = Symbol('fastify listening line')

/**
 * `logger` dropping Fastify's listening line (its `info(FASTIFY_LISTENING)`); every other call is the logger's own,
 * the null logger of an instance without one included.
 */
function without_listening_line(logger: pino.Logger): pino.Logger {
  return new Proxy(logger, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (key !== 'info' || typeof value !== 'function') return value
      // Read on each access: pino swaps its level methods when the level changes.
      return (...args: unknown[]) => (args[0] === FASTIFY_LISTENING ? undefined : value.apply(target, args))
    },
  })
}

/** Whether `bindings` is Fastify's per-request `{ reqId }` alone, counted without allocating (it runs per request). */
function only_request_id(bindings: pino.Bindings): boolean {
  let n = 0
  for (const key in bindings) if (++n > 1 || key !== 'reqId') return false
  return typeof bindings.reqId === 'string'
}

/** The servers an App may have: HTTP/1.1 ones close their connections themselves; an HTTP/2 one does not. */
type TlsServer = Server & { closeAllConnections?: () => void }

/**
 * Cuts every open connection of `server`. An HTTP/2 server has no `closeAllConnections` (calling it at the deadline threw
 * in a timer): its TLS sockets, HTTP/2 sessions and HTTP/1.1 fallbacks alike, are tracked and destroyed instead; the
 * sockets of a cleartext one (h2c), which never emits `secureConnection`, as they connect.
 */
function connection_cutter(server: TlsServer, tls: boolean): () => void {
  if (typeof server.closeAllConnections === 'function') return () => server.closeAllConnections!()
  const sockets = new Set<Socket>()
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  return () => {
    for (const socket of sockets) socket.destroy()
  }
}

/**
 * Asks every session of a cleartext HTTP/2 server to end (GOAWAY: the streams in flight finish, no new one starts), what
 * Fastify's `forceCloseConnections: 'idle'` does for HTTP/1.1, which such a server cannot have (it has no
 * `closeIdleConnections`); without it, an idle client's session held `close()` until `close_timeout_ms`.
 */
function session_closer(server: Server): () => void {
  const sessions = new Set<Http2Session>()
  server.on('session', (session: Http2Session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  return () => {
    for (const session of sessions) session.close()
  }
}

/** Options of `app.metrics`. */
export interface AppMetricsOptions extends MetricsOptions {
  /** Where Prometheus scrapes (default `/metrics`). */
  path?: string
  /**
   * Middleware run before the metrics answer (an API key, an IP filter): App middleware or context middleware, as the
   * factories of `fw/middleware` make it.
   */
  middleware?: Array<Middleware | CtxMiddleware>
}

/**
 * A web application: routes, ordered middleware, static folders, lifecycle and configuration.
 * @example
 * const app = new App()
 * app.get('/health', (req, res) => res.json('ok', true))
 * await app.run(8080)
 */
export class App extends AppCore {
  #fastify: FastifyInstance | undefined
  #ready: Promise<void> | undefined
  #closing: Promise<void> | undefined
  #closed: Promise<void>
  #on_closed!: () => void
  #health: Health | undefined
  /** Cuts every connection still open (close_timeout_ms has passed, or the close failed). */
  #cut_all: () => void = () => {}
  /** Ends the idle connections a server keeps open when it stops listening (cleartext HTTP/2 sessions). */
  #close_idle: () => void = () => {}
  /** The core of `options.logger`: the lines of this app's requests go to its destination, format and pino options. */
  readonly #log: LogCore | undefined

  constructor(options: AppOptions = {}) {
    const log = options.logger === undefined ? undefined : core.child(options.logger)
    super(options)
    this.#log = log
    this.#closed = new Promise((resolve) => (this.#on_closed = resolve))
  }

  /** The Fastify instance this app owns: the escape hatch for Fastify plugins and options fw does not cover. */
  get fastify(): FastifyInstance {
    this.#fastify ??= this.#create()
    return this.#fastify
  }

  #create(): FastifyInstance {
    const c = this.config
    const checks = { connectionsCheckingInterval: connections_check_ms(c) }
    // HTTP/2 over TLS keeps HTTP/1.1 for clients whose ALPN does not offer h2; the instance's type does not change.
    const node_options =
      c.https === undefined ? { http: checks } : { https: { ...c.https, allowHTTP1: true, ...checks } }
    const h2c = c.http2 && c.https === undefined
    const f = Fastify({
      ...(node_options as object),
      http2: c.http2 as false,
      keepAliveTimeout: c.keep_alive_timeout_ms,
      requestTimeout: c.request_timeout_ms,
      routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, maxParamLength: 1000 },
      trustProxy: this.config.trust_proxy,
      bodyLimit: this.config.body_limit,
      genReqId: this.config.request_id ? request_id : sequential_ids(),
      requestIdHeader: false,
      // Fastify's own lines go through fw/log (same level, format and destination). Each request's lines carry its
      // id from the log context (`rid=`), so no per-request child logger is needed; fw writes its own access line.
      // With the level off when the instance is made, no line can be written and Fastify gets no logger: given one,
      // it builds a child and puts two listeners and two clock reads on every response. As with the
      // access line, raising the level later brings fw's lines back but not Fastify's own warnings.
      ...(log_level() === 'off'
        ? {}
        : { loggerInstance: without_request_children(pino_logger('fastify')) as FastifyBaseLogger }),
      logController: new LogController({ disableRequestLogging: true }),
      return503OnClosing: true,
      // A cleartext HTTP/2 server cannot close idle connections (Fastify refuses 'idle' there): its sessions are ended
      // by #close_idle instead.
      forceCloseConnections: h2c ? false : 'idle',
      // Fastify bounds each close hook by its plugin timeout (10 s). fw's own hooks are bounded by close_timeout_ms
      // (WebSockets that do not answer their 1001 are cut then), so Fastify's bound must come after fw's, or a stuck
      // peer makes close() fail with AVV_ERR_READY_TIMEOUT before fw cuts it.
      pluginTimeout: Math.max(10_000, c.close_timeout_ms + 1_000),
      // A malformed URL (`/x/%zz`) fails in the router, before any route: answer it in fw's error shape too.
      frameworkErrors: framework_error(this.config.request_id),
      // And so does a request Node's HTTP parser refuses (bad request line, bad chunking, headers too large).
      clientErrorHandler: client_error,
    }) as unknown as FastifyInstance
    // The instance's own logger (Fastify's child of the one given), which writes its app-level lines such as listening.
    f.log = without_listening_line(f.log as pino.Logger)
    const server = f.server as Server & { headersTimeout?: number }
    server.headersTimeout = c.headers_timeout_ms
    if (c.max_connections > 0) server.maxConnections = c.max_connections
    this.#cut_all = connection_cutter(f.server as unknown as TlsServer, c.https !== undefined)
    if (h2c) this.#close_idle = session_closer(f.server as unknown as Server)
    return f
  }

  /**
   * Swaps the TLS key and certificate of an HTTPS app without a restart: new connections use them, open ones keep
   * theirs.
   * @example
   * app.reload_tls({ key: readFileSync('key.pem'), cert: readFileSync('cert.pem') })
   */
  reload_tls(tls: TlsOptions): void {
    const server = this.fastify.server as unknown as { setSecureContext?: (o: SecureContextOptions) => void }
    if (this.config.https === undefined || server.setSecureContext === undefined)
      throw ERR_CONFIG_BAD_VALUE('https', '[not set]', 'set when the App was built to reload it')
    server.setSecureContext(check_tls(tls)!)
  }

  /** The address clients use: `http(s)://host:port`, with an IPv6 host in brackets. */
  url(): string {
    const host = this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host
    return `${this.config.https === undefined ? 'http' : 'https'}://${host}:${this.port()}`
  }

  /**
   * Serves the OpenAPI 3.1 document of every route at `path` (default `/openapi.json`) and Swagger UI at `docs`
   * (default `/docs`).
   * @example
   * app.openapi({ info: { title: 'Shop', version: '1.0.0' }, servers: [{ url: 'https://shop.example.com' }] })
   */
  openapi(options: OpenApiOptions): this {
    serve_openapi(this, options)
    return this
  }

  /**
   * Serves Prometheus metrics at `path`: requests by method, route template and status, their durations, requests in
   * flight, Node's process metrics and the module counters. Call before the first request.
   * @example
   * app.metrics({ path: '/metrics', middleware: [security.ip_filter({ allow: ['10.0.0.0/8'] })] }) // or adapt_ctx(...)
   */
  metrics({ path = '/metrics', middleware = [], ...options }: AppMetricsOptions = {}): Metrics {
    const chain = middleware.map((mw, i) => app_middleware(mw, `metrics middleware[${i}]`))
    const metrics = new Metrics(options)
    metrics_hooks(this.fastify, metrics)
    this.get(
      path,
      compose(
        chain,
        // send() keeps the content type set before it; text() would put its own over prom-client's `version=0.0.4`.
        async (_req, res) => void res.header('content-type', metrics.content_type).send(await metrics.text()),
      ),
    )
    this.on_close(() => metrics.close())
    return metrics
  }

  /**
   * Serves liveness at `path` (default `/health`) and readiness at `ready_path` (default `/ready`), which runs the
   * checks with a timeout and answers 503 `not_ready` from the moment `close()` starts. Call before the first request.
   * @example
   * app.health({ checks: { redis: redis_ping(client) } })
   */
  health(options: HealthOptions = {}): Health {
    const health = (this.#health = new Health(options))
    this.get(health.path, health.live)
    this.get(health.ready_path, health.ready)
    return health
  }

  /**
   * Refuses new requests with 503 `overloaded` and `Retry-After` while event-loop delay, heap or RSS is past its
   * threshold, until every reading is back under `recover_ratio` of it. Health paths are never refused.
   * @example
   * app.shed_load({ max_event_loop_delay_ms: 200, max_rss_bytes: 1.5e9 })
   */
  shed_load(options: LoadOptions, monitor: LoadMonitor = new LoadMonitor(options)): LoadMonitor {
    const skip = new Set(this.#health === undefined ? [] : [this.#health.path, this.#health.ready_path])
    shed_hook(this.fastify, monitor, skip)
    this.on_close(() => monitor.stop())
    return monitor.start()
  }

  /**
   * Traces each request through `@opentelemetry/api`: a server span named `METHOD /route/{template}` with the HTTP
   * semantic-convention attributes, the caller's `traceparent` continued, and `trace_id`/`span_id` on every log line of
   * the request. Call before the first request, with the SDK registered before the app starts: without one then, no
   * hook is installed and requests pay nothing.
   * @example
   * app.tracing()
   */
  tracing(tracing: HttpTracing = new HttpTracing()): HttpTracing {
    const ip = ip_resolver(this.config.trust_proxy)
    trace_hooks(this.fastify, tracing, (freq) => ip(freq))
    return tracing
  }

  /** Compiles the routes and readies the server; `listen` and `inject` call it. */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      const f = this.fastify
      await f.register(async (instance) => mount(instance, this, this.#log))
      await f.ready()
    })()
    return this.#ready
  }

  /** Sends a request without a socket (tests). */
  async inject(options: InjectOptions | string): Promise<LightMyRequestResponse> {
    await this.ready()
    return this.fastify.inject(options)
  }

  /**
   * Starts listening; resolves with the port (port 0 picks a free one) and calls `cb(port)` too.
   * @example
   * await app.listen(0, port => console.log(`listening on http://127.0.0.1:${port}`))
   */
  async listen(port: number = this.config.port, cb?: (port: number) => void): Promise<number> {
    await this.ready()
    const listening_text = (): string => FASTIFY_LISTENING as unknown as string
    await this.fastify.listen({ port, host: this.config.host, listenTextResolver: listening_text })
    const bound = this.port()
    cb?.(bound)
    return bound
  }

  /** The port the server listens on (0 before `listen`). */
  port(): number {
    const addr = this.#fastify?.server.address() as AddressInfo | null | undefined
    return addr?.port ?? 0
  }

  /** Resolves when the app has closed. */
  wait(): Promise<void> {
    return this.#closed
  }

  /**
   * Turns readiness to 503 `draining` and keeps serving for `drain_ms`, then stops accepting connections, lets in-flight
   * requests finish (at most `close_timeout_ms`, then cuts them), runs `on_close` hooks (stores), flushes buffered log
   * lines, and resolves `wait()`.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#health?.drain()
      const f = this.#fastify
      // Until a load balancer's probe has seen the 503, it still sends requests: closing the listener now would refuse
      // them.
      if (f?.server.listening && this.config.drain_ms > 0) await sleep(this.config.drain_ms)
      if (f) {
        const cut = setTimeout(this.#cut_all, this.config.close_timeout_ms)
        cut.unref()
        // New connections are refused from now on: Fastify closes the listening socket only after its preClose hooks,
        // which end SSE streams and wait for WebSockets to answer their 1001 close. Its own close() accepts a server
        // already closed.
        if (f.server.listening) f.server.close()
        this.#close_idle()
        try {
          await f.close()
        } catch (err) {
          // A host's hook failed or hung past its timeout: the stores must still close and the lines be written.
          this.#cut_all()
          logf_in(request_context('', undefined, this.#log), 'fw', 'error', 'closing the server failed', ['err', err])
        } finally {
          clearTimeout(cut)
        }
      }
      await this.run_closers()
      // In async mode lines wait in a buffer: a closed app has written every line it logged.
      await flush()
      await this.#log?.flush()
      this.#log?.close()
      this.#on_closed()
    })()
    return this.#closing
  }

  /**
   * Listens and blocks until the app closes; SIGINT and SIGTERM close it gracefully. The listening line goes through
   * the logger (`[fw] [info] listening on http://127.0.0.1:8080`), and to `on_listening` with the URL when given.
   */
  async run(port: number = this.config.port, on_listening?: (url: string) => void): Promise<void> {
    const stop = (): void => void this.close()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    try {
      await this.listen(port, () => {
        bound_logger('fw', request_context('', undefined, this.#log)).info('listening on {}', this.url())
        on_listening?.(this.url())
      })
      await this.wait()
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
  }
}
