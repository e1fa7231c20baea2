// The request counter behind app.metrics and the Fastify hooks behind load shedding and tracing: each reads the lib/
// object it serves.
import type { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { error_body } from '../lib/http-error.js'
import { CODE_OVERLOADED } from '../lib/observability/errors.js'
import type { LoadMonitor } from '../lib/observability/load.js'
import type { Metrics } from '../lib/observability/metrics.js'
import { route_template, UNMATCHED_ROUTE } from '../lib/observability/route.js'
import { attach_span, type HttpTracing } from '../lib/observability/tracing.js'
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

/**
 * Counts every request `server` receives (a route's, a 404, an early refusal, a malformed URL) in `metrics`, under the
 * route template `note_route` noted, on the server's `request` event before Fastify's own listener: no
 * Fastify hook, whose runner alone costs a request about 280 B and a few percent of its CPU (bench/notes.ts), and one
 * listener on the answer, its `close`, which every response emits once, after its `finish` or without one when the
 * client left first. `App.inject` sends its requests through the same event. WebSocket upgrades are not requests of
 * this event, and are not counted.
 */
export function count_requests(server: EventEmitter, metrics: Metrics): void {
  const count = (req: IncomingMessage, res: ServerResponse): void => {
    metrics.started()
    const start = performance.now()
    res.on('close', () => {
      // An answer that was ended is counted with its status, even when its client left before all of it was sent;
      // one that never was (the client left while the handler worked) only leaves the in-flight count.
      if (!res.writableEnded) return metrics.aborted()
      const seconds = (performance.now() - start) / 1000
      metrics.finished(req.method!, (req as Noted)[ROUTE] ?? UNMATCHED_ROUTE, res.statusCode, seconds)
    })
  }
  // The counter wraps the server's one listener (Fastify's) rather than joining it: with two listeners Node's emit
  // copies the listener array for every request (65 B a request, by allocation profile).
  const listeners = server.listeners('request') as RequestListener[]
  if (listeners.length !== 1) return void server.prependListener('request', count)
  const fastify = listeners[0]!
  server.removeListener('request', fastify)
  server.on('request', function counted(this: unknown, req: IncomingMessage, res: ServerResponse) {
    count(req, res)
    fastify.call(this, req, res)
  })
}

type RequestListener = (this: unknown, req: IncomingMessage, res: ServerResponse) => void

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
    if (tracing.recording()) instance.addHook('onRequest', start_span(tracing, client_ip, secret_query))
  }
  // Loaded when the app starts, before the routes its mount registers; not encapsulated, so the hook is f's own.
  void f.register(Object.assign(install, { [Symbol.for('skip-override')]: true }))
}

/** The onRequest hook that starts a request's span, keyed by the owner its log context names, never by request id. */
function start_span(
  tracing: HttpTracing,
  client_ip: (freq: FastifyRequest) => string,
  secret_query: ReadonlySet<string> | undefined,
): onRequestHookHandler {
  return (freq, reply, done) => {
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
    // 'finish' as Fastify's onResponse (the access line, written first, still finds the span for its ids); a 'close'
    // without it is a client that left before the answer.
    const res = reply.raw
    res.once('finish', () => finish(tracing, span, reply.statusCode))
    res.once('close', () => finish(tracing, span, 499))
    done()
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
