// Fastify hooks behind app.metrics, app.health's load shedding and tracing: each reads the lib/ object it serves.
import type { Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CODE_OVERLOADED } from '../lib/observability/errors.js'
import type { LoadMonitor } from '../lib/observability/load.js'
import type { Metrics } from '../lib/observability/metrics.js'
import { route_template } from '../lib/observability/route.js'
import { attach_span, span_of, type HttpTracing } from '../lib/observability/tracing.js'

/** Counts every request of `f` (its routes, 404s and early refusals) in `metrics`, under its route template. */
export function metrics_hooks(f: FastifyInstance, metrics: Metrics): void {
  f.addHook('onRequest', (_freq, _reply, done) => {
    metrics.started()
    done()
  })
  f.addHook('onResponse', (freq: FastifyRequest, reply: FastifyReply, done) => {
    metrics.finished(freq.method, route_template(freq.routeOptions.url), reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
  // An aborted request gets no onResponse: it leaves the in-flight count here instead.
  f.addHook('onRequestAbort', (_freq, done) => {
    metrics.aborted()
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
      .send(JSON.stringify({ ok: false, error: CODE_OVERLOADED, message: 'Server overloaded, retry later' }))
  })
}

/** Starts a server span per request of `f` and ends it with the answer; log lines of the request carry its ids. */
export function trace_hooks(
  f: FastifyInstance,
  tracing: HttpTracing,
  client_ip: (freq: FastifyRequest) => string,
): void {
  // Keyed by the request object (the owner its log context names), never by request id: two requests may share one.
  f.addHook('onRequest', (freq, _reply, done) => {
    if (!tracing.recording()) return done()
    attach_span(
      freq,
      tracing.start({
        method: freq.method,
        target: freq.url,
        route: route_template(freq.routeOptions.url),
        headers: freq.headers,
        client_ip: client_ip(freq),
        scheme: freq.protocol,
      }),
    )
    done()
  })
  f.addHook('onResponse', (freq, reply, done) => {
    finish(tracing, freq, reply.statusCode)
    done()
  })
  f.addHook('onRequestAbort', (freq, done) => {
    finish(tracing, freq, 499)
    done()
  })
}

/** Ends the request's span once; the access line written after it still finds the span for its ids. */
function finish(tracing: HttpTracing, freq: FastifyRequest, status: number): void {
  const span = span_of(freq)
  if (span !== undefined && !ended_spans.has(span)) {
    ended_spans.add(span)
    tracing.end(span, status)
  }
}
const ended_spans = new WeakSet<Span>()
