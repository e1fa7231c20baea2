// Prometheus metrics on prom-client: HTTP requests by route template, in-flight, process and event-loop metrics, and
// the counters fw's modules report (rate limits, cache, session store, auth refusals).
import type * as client from 'prom-client'
import { lazy } from '../lazy.js'
import { option_checker } from '../options.js'
import { ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
import { on_event, type FwEvent } from './events.js'
import { HttpSeries } from './http-series.js'

/** prom-client, loaded by the first `Metrics` rather than by `import 'fw'`. */
const prom_client = lazy<typeof client>('prom-client')

type Label = 'method' | 'route' | 'status'

const check = option_checker(ERR_OBSERVABILITY_BAD_OPTION, 'Metrics')

/**
 * Whether `buckets` are bounds a histogram can count in: finite numbers, each above the one before. A duration counts in
 * the first bound it does not exceed, so a bound out of order (or `NaN`) would be published with a wrong count.
 */
function increasing_bounds(buckets: unknown): boolean {
  return (
    Array.isArray(buckets) &&
    buckets.every((b, i) => typeof b === 'number' && Number.isFinite(b) && (i === 0 || b > (buckets[i - 1] as number)))
  )
}

/** What may start every metric name: empty, or the start of a Prometheus name (`[a-zA-Z_:][a-zA-Z0-9_:]*`). */
const METRIC_PREFIX = /^(?:[a-zA-Z_:][a-zA-Z0-9_:]*)?$/

/** prom-client's default gauges named like counters, which promtool's naming rule refuses. */
const NON_COUNTER_TOTALS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
]

/** Options of `Metrics` (and of `app.metrics`). */
export interface MetricsOptions {
  /**
   * Histogram buckets in seconds, finite and increasing (default 5 ms to 10 s); `+Inf` is always added. Anything else
   * throws `FW_ERR_OBSERVABILITY_BAD_OPTION`.
   */
  buckets?: number[]
  /**
   * Collect Node's process metrics (CPU, memory, handles, GC, event-loop lag) too (default true). `'strict'` collects
   * them without the three gauges whose names break `promtool check metrics` (`nodejs_active_handles_total`,
   * `nodejs_active_requests_total`, `nodejs_active_resources_total`: gauges ending in `_total`); their per-type series
   * (`nodejs_active_handles{type}`...) stay, and sum to them. Anything else throws `FW_ERR_OBSERVABILITY_BAD_OPTION`.
   */
  default_metrics?: boolean | 'strict'
  /**
   * Prefix of every metric name (default `fw_`; Node's process metrics keep their usual names): empty, or letters,
   * digits, `_` and `:`, not a digit first. Anything else throws `FW_ERR_OBSERVABILITY_BAD_OPTION`.
   */
  prefix?: string
}

/**
 * A registry with fw's HTTP and module metrics. The route label is always a template (`/users/:id`), never a raw URL.
 * @example
 * const metrics = new Metrics()
 * res.header('content-type', metrics.content_type).send(await metrics.text())
 */
export class Metrics {
  /** The prom-client registry: register your own metrics on it. */
  readonly registry: client.Registry
  /** The Content-Type of `text()`. */
  readonly content_type: string
  /** Per-request totals, published to the request counter and duration histogram at scrape time. */
  readonly #http: HttpSeries
  /**
   * Requests being answered; the gauge reads it at scrape time, so a request costs an integer step, not a gauge call.
   */
  #in_flight = 0
  readonly #modules: Record<FwEvent['kind'], client.Counter<string>>
  readonly #stop: () => void

  constructor({
    buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    default_metrics = true,
    prefix = 'fw_',
  }: MetricsOptions = {}) {
    check.must(increasing_bounds(buckets), 'buckets', 'a list of finite numbers in increasing order', buckets)
    // prom-client would refuse such a prefix with its own uncoded error, and take any truthy default_metrics for true.
    check.must(
      typeof prefix === 'string' && METRIC_PREFIX.test(prefix),
      'prefix',
      'empty or a Prometheus name (letters, digits, _ and :, not a digit first)',
      prefix,
    )
    check.must(
      default_metrics === true || default_metrics === false || default_metrics === 'strict',
      'default_metrics',
      'true, false or "strict"',
      default_metrics,
    )
    const prom = prom_client()
    this.registry = new prom.Registry()
    const registers = [this.registry]
    const labelNames = ['method', 'route', 'status'] as const
    this.content_type = this.registry.contentType
    const http = (this.#http = new HttpSeries(buckets))
    new prom.Counter<Label>({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests answered',
      labelNames,
      registers,
      collect() {
        this.reset()
        for (const s of http.all) this.inc(s.labels, s.count)
      },
    })
    new prom.Histogram<Label>({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time to answer',
      labelNames,
      buckets,
      registers,
      collect() {
        publish_histogram(this, http)
      },
    })
    const in_flight = (): number => this.#in_flight
    new prom.Gauge({
      name: `${prefix}http_requests_in_flight`,
      help: 'Requests being answered',
      registers,
      collect() {
        this.set(in_flight())
      },
    })
    const counter = (name: string, help: string, labels: string[]) =>
      new prom.Counter({ name: `${prefix}${name}`, help, labelNames: labels, registers })
    this.#modules = {
      rate_limit_refused: counter('rate_limit_refusals_total', 'Requests refused by a rate limit', ['namespace']),
      cache: counter('cache_lookups_total', 'Response cache decisions', ['outcome']),
      session_store_error: counter('session_store_errors_total', 'Session store failures', []),
      auth_refused: counter('auth_refusals_total', 'Answers 401 and 403 by error code', ['code']),
    }
    if (default_metrics !== false) prom.collectDefaultMetrics({ register: this.registry })
    if (default_metrics === 'strict') for (const name of NON_COUNTER_TOTALS) this.registry.removeSingleMetric(name)
    this.#stop = on_event((e) => this.#count(e))
  }

  /** A request started: counted in flight until `finished`. */
  started(): void {
    this.#in_flight++
  }

  /**
   * A request was answered: counts it and records its duration under its route template (`UNMATCHED_ROUTE` for none).
   */
  finished(method: string, route: string, status: number, seconds: number): void {
    this.#in_flight--
    this.#http.record(method, route, status, seconds)
  }

  /** A request was aborted by its client before an answer: it leaves the in-flight count uncounted otherwise. */
  aborted(): void {
    this.#in_flight--
  }

  /** The exposition text Prometheus scrapes. */
  text(): Promise<string> {
    return this.registry.metrics()
  }

  /** Stops counting module events (the registry keeps what it has). */
  close(): void {
    this.#stop()
  }

  #count(e: FwEvent): void {
    const counter = this.#modules[e.kind]
    if (e.kind === 'rate_limit_refused') counter.inc({ namespace: e.namespace })
    else if (e.kind === 'cache') counter.inc({ outcome: e.outcome })
    else if (e.kind === 'auth_refused') counter.inc({ code: e.code })
    else counter.inc()
  }
}

/**
 * Sets `histogram`'s series to the totals of `http`, as `observe` would have left them. prom-client offers no call to
 * set a bucket's count, so its series table is written directly; the /metrics test compares the result byte for byte
 * with a histogram fed by `observe`, so a prom-client that stores series differently fails it.
 */
function publish_histogram(histogram: client.Histogram<Label>, http: HttpSeries): void {
  const bounds = (histogram as unknown as { upperBounds: readonly number[] }).upperBounds
  const table: Record<string, unknown> = {}
  for (const s of http.all) {
    const bucketValues: Record<number, number> = {}
    for (let i = 0; i < bounds.length; i++) bucketValues[bounds[i]!] = (bucketValues[bounds[i]!] ?? 0) + s.buckets[i]!
    // A key that is not an integer keeps the table in insertion order, the order observe() would have made.
    table[`${s.labels.method} ${s.labels.route} ${s.labels.status}`] = {
      labels: s.labels,
      bucketValues,
      sum: s.sum,
      count: s.count,
    }
  }
  ;(histogram as unknown as { hashMap: Record<string, unknown> }).hashMap = table
}
