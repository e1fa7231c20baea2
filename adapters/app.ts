// The App: the Fastify-independent core bound to its own Fastify instance, with the server lifecycle.
import type { AddressInfo } from 'node:net'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import { AppCore } from '../lib/app.js'
import type { AppOptions } from '../lib/config.js'
import { compose, type Middleware } from '../lib/compose.js'
import { configure, flush, pino_logger } from '../lib/log/index.js'
import { Health, LoadMonitor, Metrics, type HealthOptions, type LoadOptions, type MetricsOptions } from '../lib/observability/index.js'
import { framework_error, mount, request_id, sequential_ids } from './mount.js'
import { metrics_hooks, shed_hook } from './observability.js'

/** Options of `app.metrics`. */
export interface AppMetricsOptions extends MetricsOptions {
  /** Where Prometheus scrapes (default `/metrics`). */
  path?: string
  /** Middleware run before the metrics answer (an API key, an IP filter). */
  middleware?: Middleware[]
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

  constructor(options: AppOptions = {}) {
    if (options.logger !== undefined) configure(options.logger)
    super(options)
    this.#closed = new Promise((resolve) => (this.#on_closed = resolve))
  }

  /** The Fastify instance this app owns: the escape hatch for Fastify plugins and options fw does not cover. */
  get fastify(): FastifyInstance {
    this.#fastify ??= Fastify({
      routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, maxParamLength: 1000 },
      trustProxy: this.config.trust_proxy,
      bodyLimit: this.config.body_limit,
      genReqId: this.config.request_id ? request_id : sequential_ids(),
      requestIdHeader: false,
      // Fastify's own lines go through fw/log (same level, format and destination). Each request's lines carry its
      // id from the log context (`rid=`), so no per-request child logger is needed; fw writes its own access line.
      loggerInstance: pino_logger('fastify') as FastifyBaseLogger,
      childLoggerFactory: (logger) => logger,
      logController: new LogController({ disableRequestLogging: true }),
      return503OnClosing: true,
      forceCloseConnections: 'idle',
      // A malformed URL (`/x/%zz`) fails in the router, before any route: answer it in fw's error shape too.
      frameworkErrors: framework_error(this.config.request_id),
    })
    return this.#fastify
  }

  /**
   * Serves Prometheus metrics at `path`: requests by method, route template and status, their durations, requests in
   * flight, Node's process metrics and the module counters. Call before the first request.
   * @example
   * app.metrics({ path: '/metrics', middleware: [ip_filter({ allow: ['10.0.0.0/8'] })] })
   */
  metrics({ path = '/metrics', middleware = [], ...options }: AppMetricsOptions = {}): Metrics {
    const metrics = new Metrics(options)
    metrics_hooks(this.fastify, metrics)
    this.get(path, compose(middleware, async (_req, res) => void res.header('content-type', metrics.content_type).text(await metrics.text())))
    this.on_close(() => metrics.close())
    return metrics
  }

  /**
   * Serves liveness at `path` (default `/health`) and readiness at `ready_path` (default `/ready`), which runs the checks
   * with a timeout and answers 503 `not_ready` from the moment `close()` starts. Call before the first request.
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

  /** Compiles the routes and readies the server; `listen` and `inject` call it. */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      const f = this.fastify
      await f.register(async (instance) => mount(instance, this))
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
    await this.fastify.listen({ port, host: this.config.host })
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
   * Stops accepting connections, lets in-flight requests finish (at most `close_timeout_ms`, then cuts them),
   * runs `on_close` hooks (stores), flushes buffered log lines, and resolves `wait()`.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#health?.drain()
      const f = this.#fastify
      if (f) {
        const cut = setTimeout(() => f.server.closeAllConnections(), this.config.close_timeout_ms)
        cut.unref()
        try {
          await f.close()
        } finally {
          clearTimeout(cut)
        }
      }
      await this.run_closers()
      // In async mode lines wait in a buffer: a closed app has written every line it logged.
      await flush()
      this.#on_closed()
    })()
    return this.#closing
  }

  /** Listens and blocks until the app closes; SIGINT and SIGTERM close it gracefully. */
  async run(port: number = this.config.port): Promise<void> {
    const stop = (): void => void this.close()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    try {
      await this.listen(port, (p) => console.log(`listening on http://${this.config.host}:${p}`))
      await this.wait()
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
  }
}
