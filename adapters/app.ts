// The App: the Fastify-independent core bound to its own Fastify instance, with the server lifecycle.
import type { AddressInfo } from 'node:net'
import { constants } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SecureContextOptions } from 'node:tls'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type * as LightMyRequest from 'light-my-request'
import { AppCore, ERR_APP_ALREADY_LISTENING, ERR_APP_CLOSED } from '../lib/app.js'
import { check_port, check_tls, ERR_CONFIG_BAD_VALUE, type AppOptions, type TlsOptions } from '../lib/config.js'
import { app_middleware, compose, type CtxMiddleware, type Middleware } from '../lib/compose.js'
import { core, type LogCore } from '../lib/log/core.js'
import { request_context } from '../lib/log/context.js'
import { flush } from '../lib/log/index.js'
import { lazy } from '../lib/lazy.js'
import { parse_route, router_path } from '../lib/path.js'
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
import { mount } from './mount.js'
import { close_hook_failed, ip_resolver } from './request-lines.js'
import {
  count_requests,
  count_when_embedded,
  drain_when_embedded,
  shed_hook,
  shed_when_embedded,
  trace_hooks,
  trace_when_embedded,
} from './observability.js'
import { create_server, FASTIFY_LISTENING, type OwnedServer } from './server.js'

/** light-my-request, loaded by the first `inject()` (as Fastify's own inject does) rather than by `import 'fw'`. */
const light_my_request = lazy<typeof LightMyRequest>('light-my-request')

/** Optional whitespace around a header value (RFC 9110 5.5), which Node's parser drops from a socket's. */
const OWS = /^[ \t]+|[ \t]+$/g
const trimmed = (value: unknown): unknown => (typeof value === 'string' ? value.replace(OWS, '') : value)

/**
 * Injected options whose header values read as a socket's would: without the spaces and tabs around each, as Node's
 * parser gives them (light-my-request hands them over as written). The caller's object is not changed.
 */
function as_over_a_socket(options: InjectOptions | string): InjectOptions | string {
  if (typeof options === 'string' || options.headers === undefined) return options
  const headers: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(options.headers))
    headers[name] = Array.isArray(value) ? value.map(trimmed) : trimmed(value)
  return { ...options, headers: headers as NonNullable<InjectOptions['headers']> }
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
  /** Whether the close has passed its drain and closes the Fastify instance, which then answers `inject()` itself. */
  #stopping = false
  /** The `listen()` under way or done (settled, never rejecting), which `close()` waits for; none after one failed. */
  #starting: Promise<void> | undefined
  #closed: Promise<void>
  #on_closed!: () => void
  #health: Health | undefined
  /** Whether `metrics()` counts requests: each answer then notes its route for the counter's label. */
  #note_routes = false
  /**
   * Paths load shedding never refuses, in the router's form (`/live/` is `/live`): the health probes, added by
   * `health()`, and the metrics route, added by `metrics()`.
   */
  readonly #unshed = new Set<string>()
  /** Cuts every connection still open (close_timeout_ms has passed, or the close failed). */
  #cut_all: () => void = () => {}
  /** Stops serving once the listener is closed: see `OwnedServer.stop_serving`. */
  #stop_serving: () => void = () => {}
  /** Hands the server the refusal of a request no route matched: see `OwnedServer.answer_unmatched`. */
  #answer_unmatched: OwnedServer['answer_unmatched'] = () => {}
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
    const server = create_server(this.config)
    this.#cut_all = server.cut_all
    this.#stop_serving = server.stop_serving
    this.#answer_unmatched = server.answer_unmatched
    return server.fastify
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
    this.get(
      path,
      compose(
        chain,
        // send() keeps the content type set before it; text() would put its own over prom-client's `version=0.0.4`.
        async (_req, res) => void res.header('content-type', metrics.content_type).send(await metrics.text()),
      ),
    )
    // Scrapes go on while load shedding refuses the rest: the overload is what Prometheus most needs to see.
    this.#never_shed(path)
    count_requests(this.fastify.server, metrics)
    // Mounted into a host (fw_plugin), the App's own server hears nothing: the plugin counts there instead.
    count_when_embedded(this, metrics)
    this.#note_routes = true
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
    // Load shedding never refuses the probes, whether it was set up before this call or after.
    this.#never_shed(health.path)
    this.#never_shed(health.ready_path)
    drain_when_embedded(this, health)
    return health
  }

  /**
   * Has load shedding pass the route at `path` (registered already, so a valid route path), under the URL the router
   * names it by, which `shed_hook` compares: `/live/` is registered as `/live`.
   */
  #never_shed(path: string): void {
    this.#unshed.add(router_path(parse_route(path)))
  }

  /**
   * Refuses new requests with 503 `overloaded` and `Retry-After` while event-loop delay, heap or RSS is past its
   * threshold, until every reading is back under `recover_ratio` of it. The health probes and the metrics route are
   * never refused.
   * @example
   * app.shed_load({ max_event_loop_delay_ms: 200, max_rss_bytes: 1.5e9 })
   */
  shed_load(options: LoadOptions, monitor: LoadMonitor = new LoadMonitor(options)): LoadMonitor {
    shed_hook(this.fastify, monitor, this.#unshed)
    shed_when_embedded(this, monitor, this.#unshed)
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
    trace_hooks(this.fastify, tracing, (freq) => ip(freq), this.secret_query)
    trace_when_embedded(this, tracing, (freq) => ip(freq), this.secret_query)
    return tracing
  }

  /** Compiles the routes and readies the server; `listen` and `inject` call it. */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      const f = this.fastify
      await f.register(async (instance) =>
        this.#answer_unmatched(await mount(instance, this, this.#log, this.#note_routes)),
      )
      await f.ready()
    })()
    return this.#ready
  }

  /**
   * Sends a request without a socket (tests), through the server's `request` event as a request from a socket, so what
   * listens there (the counter of `metrics()`) sees it too.
   */
  async inject(options: InjectOptions | string): Promise<LightMyRequestResponse> {
    // A close() that began before the app got ready leaves nothing to serve, as for listen(): readying it now would
    // start a server after its close (or fail in avvio, when metrics() or app.fastify made the instance first).
    if (this.#closing !== undefined && this.#ready === undefined) throw ERR_APP_CLOSED('inject')
    await this.ready()
    const f = this.fastify
    // Once the drain is over, Fastify's own inject refuses the request, as it always has. While the app drains it still
    // serves, and through the server's event, as the sockets' requests then.
    const request = as_over_a_socket(options)
    if (this.#stopping) return f.inject(request)
    return light_my_request().inject((req, res) => f.server.emit('request', req, res), request)
  }

  /**
   * Starts listening; resolves with the port (port 0 picks a free one) and calls `cb(port)` too. An App listens once: a
   * second call rejects with `FW_ERR_APP_ALREADY_LISTENING` (unless the first failed), one after `close()` with
   * `FW_ERR_APP_CLOSED`.
   * @example
   * await app.listen(0, port => console.log(`listening on http://127.0.0.1:${port}`))
   */
  async listen(port: number = this.config.port, cb?: (port: number) => void): Promise<number> {
    // Refused as the `port` option is, rather than with Node's ERR_SOCKET_BAD_PORT once the app got ready.
    check_port(port)
    // A close() that began before, or while the app was getting ready (a SIGTERM at startup), wins: nothing listens
    // after it. Checked before ready() too: a closed Fastify instance cannot be readied (avvio's
    // AVV_ERR_ROOT_PLG_BOOTED when metrics(), shed_load() or app.fastify made it before the close).
    if (this.#closing !== undefined) throw ERR_APP_CLOSED('listen')
    // One App, one server: a second listen, even one made while the first is getting ready, would have Fastify listen
    // the same server again (its onListen hooks run twice) or refuse with its own FST_ERR_REOPENED_SERVER.
    if (this.#starting !== undefined) throw ERR_APP_ALREADY_LISTENING()
    const starting = (async () => {
      await this.ready()
      if (this.#closing !== undefined) throw ERR_APP_CLOSED('listen')
      const listening_text = (): string => FASTIFY_LISTENING as unknown as string
      await this.fastify.listen({ port, host: this.config.host, listenTextResolver: listening_text })
    })()
    // close() waits for a listen under way, so the server it closes is the one that listens. One that failed (the port
    // in use) may be tried again.
    this.#starting = starting.catch(() => void (this.#starting = undefined))
    await starting
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
      await this.#starting
      this.#health?.drain()
      const f = this.#fastify
      // Until a load balancer's probe has seen the 503, it still sends requests: closing the listener now would refuse
      // them.
      if (f?.server.listening && this.config.drain_ms > 0) await sleep(this.config.drain_ms)
      this.#stopping = true
      if (f) {
        const cut = setTimeout(this.#cut_all, this.config.close_timeout_ms)
        cut.unref()
        // New connections are refused from now on: Fastify closes the listening socket only after its preClose hooks,
        // which end SSE streams and wait for WebSockets to answer their 1001 close. Its own close() accepts a server
        // already closed.
        if (f.server.listening) f.server.close()
        this.#stop_serving()
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
      await this.run_closers(close_hook_failed(this.#log))
      // In async mode lines wait in a buffer: a closed app has written every line it logged.
      await flush()
      await this.#log?.flush()
      this.#log?.close()
      this.#on_closed()
    })()
    return this.#closing
  }

  /**
   * Listens and blocks until the app closes; SIGINT and SIGTERM close it gracefully, and a second one while it closes
   * ends the process at once (exit code 128 + the signal's number, after an error line). The listening line goes through
   * the logger (`[fw] [info] listening on http://127.0.0.1:8080`), and to `on_listening` with the URL when given.
   */
  async run(port: number = this.config.port, on_listening?: (url: string) => void): Promise<void> {
    const log = bound_logger('fw', request_context('', undefined, this.#log))
    let closing = false
    const stop = (signal: NodeJS.Signals): void => {
      if (!closing) {
        closing = true
        return void this.close()
      }
      // A second signal while closing asks to stop now (close-with-grace's rule). Left to the signal's default action,
      // the process died without a word and its buffered log lines were lost: it exits with the code that action gives
      // (128 + the signal's number), and the exit writes what the log buffered.
      log.error(
        'second {} while closing: exiting now, without waiting for in-flight requests or on_close hooks',
        signal,
      )
      process.exit(128 + constants.signals[signal])
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
    try {
      await this.listen(port, () => {
        log.info('listening on {}', this.url())
        on_listening?.(this.url())
      }).catch((err: unknown) => {
        // A signal during startup closed the app before it listened: that is a clean stop, not a failure.
        if ((err as { code?: unknown }).code !== ERR_APP_CLOSED.code) throw err
      })
      await this.wait()
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
  }
}
