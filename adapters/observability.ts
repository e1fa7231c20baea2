// Fastify hooks behind app.metrics, app.health's load shedding and tracing: each reads the lib/ object it serves.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CODE_OVERLOADED } from '../lib/observability/errors.js'
import type { LoadMonitor } from '../lib/observability/load.js'
import type { Metrics } from '../lib/observability/metrics.js'
import { route_template } from '../lib/observability/route.js'

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

/** Answers 503 with `Retry-After` before any route while `monitor` says the process is overloaded; `skip` paths pass. */
export function shed_hook(f: FastifyInstance, monitor: LoadMonitor, skip: ReadonlySet<string>): void {
  f.addHook('onRequest', (freq, reply, done) => {
    if (!monitor.overloaded() || skip.has(freq.url.split('?', 1)[0]!)) return done()
    void reply.code(503).header('retry-after', String(monitor.retry_after_s)).header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ ok: false, error: CODE_OVERLOADED, message: 'Server overloaded, retry later' }))
  })
}
