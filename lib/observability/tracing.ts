// OpenTelemetry server spans through @opentelemetry/api only: the SDK, exporter and propagator are the application's
// choice, and with none registered every call is a no-op.
import type * as OtelApi from '@opentelemetry/api'
import type { Span, Tracer } from '@opentelemetry/api'
import { lazy } from '../lazy.js'

/** @opentelemetry/api, loaded by the first `HttpTracing` or traced log line rather than by `import 'fw'`. */
const otel = lazy<typeof OtelApi>('@opentelemetry/api')

/** What a server span is built from: the request's method, path, route template, headers and client. */
export interface ServerRequestInfo {
  method: string
  /** The path and query as received. */
  target: string
  route: string
  headers: Record<string, string | string[] | undefined>
  client_ip: string
  scheme: string
}

/**
 * One server span per request, named `METHOD /route/{template}`, child of the caller's trace when the registered
 * propagator (W3C `traceparent` with the SDK's default) finds one; a malformed or all-zero `traceparent` starts a new trace.
 * @example
 * const tracing = new HttpTracing()
 */
export class HttpTracing {
  readonly #tracer: Tracer

  constructor(tracer: Tracer = otel().trace.getTracer('fw')) {
    this.#tracer = tracer
  }

  /** Starts the span of a request, with the HTTP semantic-convention attributes known before the answer. */
  start(r: ServerRequestInfo): Span {
    const { context, propagation } = otel()
    const parent = propagation.extract(context.active(), r.headers)
    const [path, query] = split_target(r.target)
    const attributes: Record<string, string> = {
      'http.request.method': r.method,
      'http.route': r.route,
      'url.path': path,
      'url.scheme': r.scheme,
      'client.address': r.client_ip,
    }
    if (query !== undefined) attributes['url.query'] = query
    const ua = r.headers['user-agent']
    if (typeof ua === 'string') attributes['user_agent.original'] = ua
    return this.#tracer.startSpan(`${r.method} ${r.route}`, { kind: otel().SpanKind.SERVER, attributes }, parent)
  }

  /** Ends a request's span with its status code; a 5xx marks the span as failed (a 4xx is the client's, per semconv). */
  end(span: Span, status: number): void {
    span.setAttribute('http.response.status_code', status)
    if (status >= 500) span.setStatus({ code: otel().SpanStatusCode.ERROR })
    span.end()
  }

  /**
   * Runs `fn` inside a child span named `name` (a cache lookup, a Redis call), ended when `fn` settles; an error is
   * recorded on the span and rethrown.
   * @example
   * const entry = await tracing.child('cache.lookup', () => store.get(key))
   */
  async child<T>(name: string, fn: () => T | Promise<T>, attributes: Record<string, string> = {}): Promise<T> {
    const span = this.#tracer.startSpan(name, { kind: otel().SpanKind.INTERNAL, attributes })
    try {
      const { context, trace } = otel()
      return await context.with(trace.setSpan(context.active(), span), fn)
    } catch (err) {
      span.recordException(err as Error)
      span.setStatus({ code: otel().SpanStatusCode.ERROR })
      throw err
    } finally {
      span.end()
    }
  }
}

/** The pairs every log line of a traced request carries: `trace_id` and `span_id`, or none for an unsampled no-op span. */
export function span_fields(span: Span | undefined): readonly unknown[] | undefined {
  if (span === undefined) return undefined
  const c = span.spanContext()
  return otel().trace.isSpanContextValid(c) ? ['trace_id', c.traceId, 'span_id', c.spanId] : undefined
}

function split_target(target: string): [string, string | undefined] {
  const q = target.indexOf('?')
  return q === -1 ? [target, undefined] : [target.slice(0, q), target.slice(q + 1)]
}
