// The request counter behind app.metrics and the Fastify hooks behind load shedding and tracing: each reads the lib/
// object it serves.
import type { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { error_body } from '../lib/http-error.js'
import { CODE_OVERLOADED } from '../lib/observability/errors.js'
import type { LoadMonitor } from '../lib/observability/load.js'
import { answered_status, CLIENT_CLOSED } from '../lib/observability/http-series.js'
import type { Metrics } from '../lib/observability/metrics.js'
import { route_template, UNMATCHED_ROUTE } from '../lib/observability/route.js'
import { attach_span, span_of, type HttpTracing } from '../lib/observability/tracing.js'
import { request_owner } from './request-lines.js'

/** Where fw notes, on the raw request, the route label of its answer (a template, or `UNMATCHED_ROUTE`). */
const ROUTE = Symbol('fw.route')
type Noted = { [ROUTE]?: string }

/**
 * Notes `label` (`route_template` of the route matched) for `count_requests` to count the answer to `freq` under:
 * called where fw answers a request, at the end of a route's chain, of the not-found chain and of a refusal, each with
 * the label its route was bound with, and by load shedding. A request none of them answered is `UNMATCHED_ROUTE`.
 */
export function note_route(freq: FastifyRequest, label: string): void {
  ;(freq.raw as Noted)[ROUTE] = label
}

/** Counts one request in a `Metrics`: started now, then finished or aborted when its answer closes. */
export type RequestCounter = (req: IncomingMessage, res: ServerResponse) => void

/**
 * The per-request work of the counter: `started` now, and one listener on the answer, its `close`, which every
 * response emits once, after its `finish` or without one when the client left first; the answer is then counted under
 * the route template `note_route` noted.
 */
export function request_counter(metrics: Metrics): RequestCounter {
  return (req, res) => {
    metrics.started()
    const start = performance.now()
    res.on('close', () => {
      // The rule a span ends by too (answered_status): an answer that was ended is counted with its status, even when
      // its client left before all of it was sent; one that never was (the client left while the handler worked) only
      // leaves the in-flight count.
      const status = answered_status(res)
      if (status === undefined) return metrics.aborted()
      const seconds = (performance.now() - start) / 1000
      metrics.finished(req.method!, (req as Noted)[ROUTE] ?? UNMATCHED_ROUTE, status, seconds)
    })
  }
}

/**
 * Counts every request `server` receives (a route's, a 404, an early refusal, a malformed URL) in `metrics`, under the
 * route template `note_route` noted, on the server's `request` event before Fastify's own listener: no
 * Fastify hook, whose runner alone costs a request about 280 B and a few percent of its CPU (bench/notes.ts).
 * `App.inject` sends its requests through the same event. WebSocket upgrades are not requests of this event, and are
 * not counted.
 */
export function count_requests(server: EventEmitter, metrics: Metrics): void {
  const count = request_counter(metrics)
  // The counter wraps the server's one listener (Fastify's) rather than joining it: with two listeners Node's emit
  // copies the listener array for every request (65 B a request, by allocation profile).
  const listeners = server.listeners('request') as RequestListener[]
  if (listeners.length !== 1) return void server.prependListener('request', count)
  const fastify = listeners[0]!
  server.removeListener('request', fastify)
  const counted = function counted(this: unknown, req: IncomingMessage, res: ServerResponse): void {
    count(req, res)
    fastify.call(this, req, res)
  }
  server.on('request', counted)
  wrappers.set(server, { listener: counted, wraps: fastify, count })
}

/** A server's `request` listener. */
export type RequestListener = (this: unknown, req: IncomingMessage, res: ServerResponse) => void

/** The listener `count_requests` put around Fastify's (`wraps`) on a server, and its counter, for `refuse_from_now`. */
const wrappers = new WeakMap<
  EventEmitter,
  { listener: RequestListener; wraps: RequestListener; count: RequestCounter }
>()

/**
 * Has `f`'s server answer every request it receives from now on with `refuse` instead of Fastify's listener `routing`:
 * called when the App's close stops serving, for the requests still arriving on connections busy then, which Fastify
 * (`return503OnClosing`) would answer before any hook, in its own shape and with no span. Each is counted as before
 * (the counter of `metrics()` stays in front of it, under `(unmatched)`), and traced as a request no route matched when
 * `f` traces: `view` makes, from the raw request, what its span reads of a Fastify one (`refused_view`). Nothing is
 * added to the requests served before.
 */
export function refuse_from_now(
  f: FastifyInstance,
  routing: RequestListener,
  refuse: RequestListener,
  view: (req: IncomingMessage) => FastifyRequest,
): void {
  const server = f.server as EventEmitter
  const wrapper = wrappers.get(server)
  const replaced = wrapper?.wraps === routing ? wrapper.listener : routing
  // A listener someone else put in place of Fastify's is left alone: Fastify's own 503 then answers.
  if (!server.listeners('request').includes(replaced)) return
  const count = replaced === routing ? undefined : wrapper!.count
  const start = starters.get(f)
  server.removeListener('request', replaced)
  server.on('request', function refused(this: unknown, req: IncomingMessage, res: ServerResponse) {
    count?.(req, res)
    if (start !== undefined) start(view(req), res)
    refuse.call(this, req, res)
  })
}

/**
 * What an App's `metrics()`, `shed_load()`, `tracing()` and `health()` ask of a host that mounts it with `fw_plugin`,
 * where the App's own server never receives a request: the counters to run on each request fw's routes and 404s get,
 * and what to install on the plugin's context (its hooks: shedding, spans, readiness draining when the host closes).
 */
interface Embedding {
  counters: RequestCounter[]
  installs: Array<(instance: FastifyInstance) => void>
}
const embeddings = new WeakMap<object, Embedding>()

function embedding(app: object): Embedding {
  let e = embeddings.get(app)
  if (e === undefined) embeddings.set(app, (e = { counters: [], installs: [] }))
  return e
}

/** Has `fw_plugin` count the requests of `app` in `metrics` wherever it mounts it (`app.metrics`). */
export function count_when_embedded(app: object, metrics: Metrics): void {
  embedding(app).counters.push(request_counter(metrics))
}

/**
 * Has `fw_plugin` shed the requests of `app` by `monitor` wherever it mounts it (`app.shed_load`), but those of the
 * App's paths in `skip` (read when it mounts), which it then matches under the prefix.
 */
export function shed_when_embedded(app: object, monitor: LoadMonitor, skip: ReadonlySet<string>): void {
  embedding(app).installs.push((instance) => {
    shed_hook(instance, monitor, new Set([...skip].map((path) => prefixed(instance.prefix, path))))
  })
}

/** Has `fw_plugin` trace the requests of `app` wherever it mounts it (`app.tracing`); see `trace_hooks`. */
export function trace_when_embedded(
  app: object,
  tracing: HttpTracing,
  client_ip: (freq: FastifyRequest) => string,
  secret_query?: ReadonlySet<string>,
): void {
  embedding(app).installs.push((instance) => trace_hooks(instance, tracing, client_ip, secret_query))
}

/** Has `fw_plugin` turn readiness to `draining` when the host starts closing (its `preClose`), as `App.close` does. */
export function drain_when_embedded(app: object, health: { drain(): void }): void {
  embedding(app).installs.push((instance) => instance.addHook('preClose', (done) => (health.drain(), done())))
}

/** The counter of `app`'s requests when mounted, if `metrics()` was called on it (all of them, if several were). */
export function embedded_counter(app: object): RequestCounter | undefined {
  const counters = embeddings.get(app)?.counters ?? []
  if (counters.length <= 1) return counters[0]
  return (req, res) => {
    for (const count of counters) count(req, res)
  }
}

/** Installs on `instance`, the plugin's context, what `app`'s shedding, tracing and health asked for. */
export function install_embedded(instance: FastifyInstance, app: object): void {
  for (const install of embeddings.get(app)?.installs ?? []) install(instance)
}

/**
 * The path of the App's `path` mounted under `prefix` ('' standalone), as Fastify's `routeOptions.url` names it and
 * clients send it: `/fw` for `/` under `/fw`. Undefined (no route) stays undefined.
 */
export function prefixed<P extends string | undefined>(prefix: string, path: P): P {
  if (path === undefined || prefix === '') return path
  return (path === '/' ? prefix : prefix + path) as P
}

/**
 * Answers 503 with `Retry-After` before any route while `monitor` says the process is overloaded; the routes at `skip`
 * paths pass, whatever form of the path the router matched them by (`/health/`, `//health`).
 */
export function shed_hook(f: FastifyInstance, monitor: LoadMonitor, skip: ReadonlySet<string>): void {
  f.addHook('onRequest', (freq, reply, done) => {
    if (!monitor.overloaded()) return done()
    const url = freq.routeOptions.url
    if (url !== undefined && skip.has(url)) return done()
    note_route(freq, route_template(url))
    trace_refused(f, freq, reply)
    void reply
      .code(503)
      .header('retry-after', String(monitor.retry_after_s))
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(error_body(CODE_OVERLOADED, 'Server overloaded, retry later')))
  })
}

/**
 * Starts a server span per request of `f` and ends it with the answer; log lines of the request carry its ids, and its
 * `url.query` hides the values of `secret_query` (lowercase names, read per request; default `SECRET_QUERY`). Whether
 * spans can record is decided when the app starts: with no SDK registered by then, no hook is installed at all, so
 * tracing without an SDK costs a request nothing. With one, the end of a span is listened for on its own answer, not
 * through Fastify's onResponse and onRequestAbort hooks (the latter adds a listener to every request).
 */
export function trace_hooks(
  f: FastifyInstance,
  tracing: HttpTracing,
  client_ip: (freq: FastifyRequest) => string,
  secret_query?: ReadonlySet<string>,
): void {
  const install = async (instance: FastifyInstance): Promise<void> => {
    if (!tracing.recording()) return
    const start = span_starter(tracing, client_ip, secret_query)
    starters.set(f, start)
    instance.addHook('onRequest', (freq, reply, done) => (start(freq, reply.raw), done()))
  }
  // Loaded when the app starts, before the routes its mount registers; not encapsulated, so the hook is f's own.
  void f.register(Object.assign(install, { [Symbol.for('skip-override')]: true }))
}

/** Starts the span of `freq`, ended with its answer `res`. */
type SpanStarter = (freq: FastifyRequest, res: ServerResponse) => void

/** The span starter of each instance `trace_hooks` traces, for `trace_refused`. */
const starters = new WeakMap<FastifyInstance, SpanStarter>()

/**
 * Starts the span of `freq`, which `f` refuses (load shedding) before every route, when `f` traces it and its tracing
 * hook has not run yet: Fastify runs onRequest hooks in the order they were added, which is the order `shed_load()` and
 * `tracing()` were called. A URL the router refuses (`framework_error`) and a method it has no tree for
 * (`error_handler`) run no hook at all. `f` may be a context `register` made inside the traced instance (Fastify's
 * contexts inherit from their parent's object): its tracing is the nearest one up the chain. Read only on the refusal,
 * so a request served pays nothing for it.
 */
export function trace_refused(f: FastifyInstance, freq: FastifyRequest, reply: FastifyReply): void {
  let start: SpanStarter | undefined
  for (let i: object | null = f; start === undefined && i !== null; i = Object.getPrototypeOf(i) as object | null)
    start = starters.get(i as FastifyInstance)
  if (start !== undefined && span_of(request_owner(freq)) === undefined) start(freq, reply.raw)
}

/** What starts a request's span, keyed by the owner its log context names, never by request id. */
function span_starter(
  tracing: HttpTracing,
  client_ip: (freq: FastifyRequest) => string,
  secret_query: ReadonlySet<string> | undefined,
): SpanStarter {
  return (freq, res) => {
    const span = tracing.start({
      method: freq.method,
      target: freq.url,
      secret_query,
      route: route_template(freq.routeOptions.url),
      headers: freq.headers,
      client_ip: client_ip(freq),
      scheme: freq.protocol,
    })
    attach_span(request_owner(freq), span)
    // Ended at 'finish' as Fastify's onResponse (the access line, written first, still finds the span for its ids), or
    // at 'close' when there is none; with the status metrics count (answered_status), or 499 when the client left
    // before the answer was ended.
    const end = (): void => finish(tracing, span, answered_status(res) ?? CLIENT_CLOSED)
    res.once('finish', end)
    res.once('close', end)
  }
}

/** Ends a request's span once: an answer's 'close' follows its 'finish'. */
function finish(tracing: HttpTracing, span: Span, status: number): void {
  if (!ended_spans.has(span)) {
    ended_spans.add(span)
    tracing.end(span, status)
  }
}
const ended_spans = new WeakSet<Span>()
