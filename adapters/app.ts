// The App: the Fastify-independent core bound to its own Fastify instance, with the server lifecycle.
import type { AddressInfo } from 'node:net'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import { AppCore } from '../lib/app.js'
import type { AppOptions } from '../lib/config.js'
import { configure, flush, pino_logger } from '../lib/log/index.js'
import { framework_error, mount, request_id, sequential_ids } from './mount.js'

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
