// Fastify hooks behind app.metrics, app.health's load shedding and tracing: each reads the lib/ object it serves.
import type { Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { error_body } from '../lib/http-error.js'
import { CODE_OVERLOADED } from '../lib/observability/errors.js'
import type { LoadMonitor } from '../lib/observability/load.js'
import type { Metrics } from '../lib/observability/metrics.js'
import { route_template } from '../lib/observability/route.js'
import { attach_span, type HttpTracing } from '../lib/observability/tracing.js'
import { request_owner } from './request-lines.js'

/**
 * Counts every request of `f` (its routes, 404s and early refusals) in `metrics`, under its route template. One hook
 * and one listener on the answer, its `close`, which every response emits once, after its `finish` or without one when
 * the client left first: Fastify's onResponse and onRequestAbort hooks would add a hook runner, two timers and three
 * listeners per request, and a second listener on `finish` would cost a closure and the array of that event's
 * listeners.
 */
export function metrics_hooks(f: FastifyInstance, metrics: Metrics): void {
  f.addHook('onRequest', (freq, reply, done) => {
    metrics.started()
    const start = performance.now()
    const res = reply.raw
    res.on('close', () => {
      // An answer that was ended is counted with its status, even when its client left before all of it was sent;
      // one that never was (the client left while the handler worked) only leaves the in-flight count.
      if (!res.writableEnded) return metrics.aborted()
      const seconds = (performance.now() - start) / 1000
      metrics.finished(freq.method, route_template(freq.routeOptions.url), reply.statusCode, seconds)
    })
    done()
  })
}

/**
 * Answers 503 with `Retry-After` before any route while `monitor` says the process is overloaded; `skip` paths pass.
 */
export function shed_hook(f: FastifyInstance, monitor: LoadMonitor, skip: ReadonlySet<string>): void {
  f.addHook('onRequest', (freq, reply, done) => {
    if (!monitor.overloaded() || skip.has(freq.url.split('?', 1)[0]!)) return done()
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
