// OpenTelemetry server spans through @opentelemetry/api only: the SDK, exporter and propagator are the application's
// choice, and with none registered every call is a no-op.
import type * as OtelApi from '@opentelemetry/api'
import type { Context, Span, Tracer } from '@opentelemetry/api'
import { lazy } from '../lazy.js'
import { current_context, follow_context } from '../log/context.js'
import { core } from '../log/core.js'
import { redact_query } from '../log/redact.js'
import { origin_form } from '../path.js'
import { known_method, OTHER_METHOD } from './http-series.js'
import { UNMATCHED_ROUTE } from './route.js'

/** @opentelemetry/api, loaded by the first traced request, span or `HttpTracing` rather than by `import 'fw'`. */
const api = lazy<typeof OtelApi>('@opentelemetry/api')

/**
 * The server span of each traced request, keyed by the request object its log context names: never by request id, which
 * two concurrent requests may share (`x-request-id` is the client's). Weak, so an ended request leaves nothing.
 */
const request_spans = new WeakMap<object, Span>()

/**
 * Ties `span` to the request `owner` (the object its log context names, `request_context`): every log line of the request carries its
 * `trace_id` and `span_id`, and child spans (`in_span`) started while serving it are its children.
 */
export function attach_span(owner: object, span: Span): void {
  if (request_spans_used === false) {
    request_spans_used = true
    // Installed once for every App: the lookup is by request, so one App's tracing never reads another's spans.
    core.set_line_fields((ctx) => span_fields(ctx?.owner === undefined ? undefined : request_spans.get(ctx.owner)))
    // A child span after an await must still find its request, even with logging off.
    follow_context()
  }
  request_spans.set(owner, span)
}
let request_spans_used = false

/** The server span of the request `owner`, or undefined when it is not traced. */
export function span_of(owner: object): Span | undefined {
  return request_spans.get(owner)
}

/** The server span of the request the current flow serves, or undefined when it is not traced. */
export function request_span(): Span | undefined {
  const owner = current_context()?.owner
  return owner === undefined ? undefined : request_spans.get(owner)
}

/** The context a child span starts in: the active one when it holds a span, else the current request's span. */
function parent_context(): Context | undefined {
  const active = api().context.active()
  if (api().trace.getSpan(active) !== undefined) return active
  const span = request_span()
  return span === undefined ? undefined : api().trace.setSpan(active, span)
}

/** fw's own tracer, got from the API on first use. */
let own_tracer: Tracer | undefined
const fw_tracer = (): Tracer => (own_tracer ??= api().trace.getTracer('fw'))
/** What the global provider delegates to while no SDK is registered. */
let no_provider: unknown
const NO_PROVIDER = (): unknown => (no_provider ??= new (api().ProxyTracerProvider)().getDelegate())

/**
 * Runs `fn` in a span named `name`, a child of the current request's server span (or of the active span), ended when
 * `fn` settles; `fn` may set more attributes on it. An error is recorded and rethrown. Outside a traced request it runs
 * `fn` with no span at all, so a module pays one lookup when tracing is off.
 * @example
 * const value = await in_span('redis GET', { 'db.system': 'redis' }, () => client.get(key))
 */
export function in_span<T>(
  name: string,
  attributes: Record<string, string>,
  fn: (span: Span | undefined) => T | Promise<T>,
): Promise<T> | T {
  if (request_spans_used === false && api().trace.getActiveSpan() === undefined) return fn(undefined)
  const parent = parent_context()
  if (parent === undefined) return fn(undefined)
  const span = fw_tracer().startSpan(name, { kind: api().SpanKind.INTERNAL, attributes }, parent)
  return ended(span, () => api().context.with(api().trace.setSpan(parent, span), fn, undefined, span))
}

/**
 * Records a decision taken at this instant (a cache hit or miss) as a span of the current traced request, with
 * `attributes`; outside a traced request it does nothing.
 * @example
 * decision_span('http_cache', { 'fw.cache.outcome': 'hit' })
 */
export function decision_span(name: string, attributes: Record<string, string>): void {
  if (request_spans_used === false && api().trace.getActiveSpan() === undefined) return
  const parent = parent_context()
  if (parent !== undefined) fw_tracer().startSpan(name, { kind: api().SpanKind.INTERNAL, attributes }, parent).end()
}

async function ended<T>(span: Span, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    span.recordException(err as Error)
    span.setStatus({ code: api().SpanStatusCode.ERROR })
    throw err
  } finally {
    span.end()
  }
}

/** What a server span is built from: the request's method, path, route template, headers and client. */
export interface ServerRequestInfo {
  method: string
  /** The path and query as received. */
  target: string
  /**
   * The query parameters whose values `url.query` shows as `[redacted]`, lowercase (default `SECRET_QUERY`); an App
   * passes its `secret_query`, as its access line hides them.
   */
  secret_query?: ReadonlySet<string> | undefined
  route: string
  headers: Record<string, string | string[] | undefined>
  client_ip: string
  scheme: string
}

/**
 * One server span per request, named `METHOD /route/{template}` (`METHOD` alone, without `http.route`, when no route
 * matched), child of the caller's trace when the registered
 * propagator (W3C `traceparent` with the SDK's default) finds one; a malformed or all-zero `traceparent` starts a new
 * trace.
 * @example
 * const tracing = new HttpTracing()
 */
export class HttpTracing {
  readonly #tracer: Tracer
  /** Whether the tracer is the global one, whose calls are all no-ops until an SDK registers a provider. */
  readonly #global: boolean

  constructor(tracer?: Tracer) {
    this.#tracer = tracer ?? api().trace.getTracer('fw')
    this.#global = tracer === undefined
  }

  /**
   * Whether spans can record: false while the global tracer has no SDK behind it, so a request pays no span, no
   * propagation and no attributes for nothing. Checked per request, so an SDK registered later takes effect at once.
   */
  recording(): boolean {
    if (!this.#global) return true
    const provider = api().trace.getTracerProvider()
    return !(provider instanceof api().ProxyTracerProvider) || provider.getDelegate() !== NO_PROVIDER()
  }

  /** Starts the span of a request, with the HTTP semantic-convention attributes known before the answer. */
  start(r: ServerRequestInfo): Span {
    const parent = api().propagation.extract(api().context.active(), r.headers)
    // A span leaves the process for a tracing backend: secret parameters never go with it.
    const [path, query] = split_target(redact_query(r.target, r.secret_query))
    const matched = r.route !== UNMATCHED_ROUTE
    // OpenTelemetry's HTTP conventions: a method the instrumentation does not know (any token, over HTTP/2) is `_OTHER`
    // with the original beside it, and the span is named `HTTP`; fw knows Node's methods, as metrics do.
    const known = known_method(r.method)
    const method = known ? r.method : 'HTTP'
    const attributes: Record<string, string> = {
      'http.request.method': known ? r.method : OTHER_METHOD,
      'url.path': path,
      'url.scheme': r.scheme,
      'client.address': r.client_ip,
    }
    if (!known) attributes['http.request.method_original'] = r.method
    // A request no route matched has no route to name (OpenTelemetry's HTTP conventions): its span is named by its
    // method alone, and a scan of random paths still makes one name.
    if (matched) attributes['http.route'] = r.route
    if (query !== undefined) attributes['url.query'] = query
    const ua = r.headers['user-agent']
    if (typeof ua === 'string') attributes['user_agent.original'] = ua
    const name = matched ? `${method} ${r.route}` : method
    return this.#tracer.startSpan(name, { kind: api().SpanKind.SERVER, attributes }, parent)
  }

  /**
   * Ends a request's span with its status code; a 5xx marks the span as failed, with `error.type` (a 4xx is the
   * client's, per semconv).
   */
  end(span: Span, status: number): void {
    span.setAttribute('http.response.status_code', status)
    if (status >= 500) {
      // OpenTelemetry's HTTP conventions: `error.type` is required on a failed request, the status code as a string.
      span.setAttribute('error.type', String(status))
      span.setStatus({ code: api().SpanStatusCode.ERROR })
    }
    span.end()
  }

  /**
   * Runs `fn` inside a child span named `name` (a cache lookup, a Redis call) of the current request's span, ended when
   * `fn` settles; an error is recorded on the span and rethrown.
   * @example
   * const entry = await tracing.child('cache.lookup', () => store.get(key))
   */
  async child<T>(name: string, fn: () => T | Promise<T>, attributes: Record<string, string> = {}): Promise<T> {
    const parent = parent_context() ?? api().context.active()
    const span = this.#tracer.startSpan(name, { kind: api().SpanKind.INTERNAL, attributes }, parent)
    return ended(span, () => api().context.with(api().trace.setSpan(parent, span), fn))
  }
}

/**
 * The pairs every log line of a traced request carries: `trace_id` and `span_id`, or none for an unsampled no-op span.
 */
export function span_fields(span: Span | undefined): readonly unknown[] | undefined {
  if (span === undefined) return undefined
  const c = span.spanContext()
  return api().trace.isSpanContextValid(c) ? ['trace_id', c.traceId, 'span_id', c.spanId] : undefined
}

/** The path and query of a request target, an absolute-form one by its path (`origin_form`). */
function split_target(request_target: string): [string, string | undefined] {
  const target = origin_form(request_target)
  const q = target.indexOf('?')
  return q === -1 ? [target, undefined] : [target.slice(0, q), target.slice(q + 1)]
}
