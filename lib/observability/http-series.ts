// Per-request HTTP counts and durations kept in fw's own counters, handed to prom-client only when Prometheus scrapes:
// prom-client hashes a label set on every inc() and observe(), bound children included, which cost more per request
// than the rest of the metrics together.

// Read as CommonJS, not imported: see lib/http-error.ts (an ESM import of node:http loads undici on Node 24).
const { METHODS } = process.getBuiltinModule('node:http')

/**
 * The `method` label of a request whose method Node's HTTP/1 parser does not know: over HTTP/2 a client may send any
 * token, and each would otherwise be a series of its own (OpenTelemetry's semantic conventions name it `_OTHER` too).
 */
export const OTHER_METHOD = '_OTHER'
const KNOWN_METHODS = new Set(METHODS)

/** Whether Node knows `method` (`http.METHODS`): one that is not is `OTHER_METHOD` in metrics and spans. */
export function known_method(method: string): boolean {
  return KNOWN_METHODS.has(method)
}

/**
 * The status of a request whose client left before its answer was ended (nginx's "client closed request"): its span
 * records it, and metrics count no status for it (`answered_status`).
 */
export const CLIENT_CLOSED = 499

/**
 * The status a request's answer is counted with (metrics) and traced with (its span), read when its connection is done
 * with it (`close`, or `finish` before it): its own status once the handler ended it, even when the client left before
 * reading all of it (the handler gave that answer; how much was read is the client's doing); undefined when the client
 * left before it was ended, which metrics take out of the in-flight count and a span records as `CLIENT_CLOSED`.
 * Whether Node emitted `finish` first is not asked: on a socket the client left, Node 24 emits none, Node 20 one.
 */
export function answered_status(res: {
  readonly writableEnded: boolean
  readonly statusCode: number
}): number | undefined {
  return res.writableEnded ? res.statusCode : undefined
}

/** The labels of one series, in the order the exposition lists them. */
export interface HttpLabels {
  method: string
  route: string
  status: string
}

/** One label set's running totals: requests, the sum of their durations, and per-bucket (not cumulative) counts. */
export interface HttpSeriesTotals {
  readonly labels: Readonly<HttpLabels>
  /** The status as a number, so a request finds its series without making the label string. */
  readonly status: number
  count: number
  sum: number
  /** Requests whose duration fell in bucket i (the first bound it does not exceed); above the last bound: none. */
  readonly buckets: Float64Array
}

/** The series of one route template, with the last one used: a route mostly answers one method and status. */
interface RouteSeries {
  last: HttpSeriesTotals
  readonly by: Map<string, HttpSeriesTotals>
}

/**
 * Request counts and duration histograms by method, route template and status, in the order each series first appeared
 * (the order prom-client lists series it was fed one by one).
 * @example
 * const series = new HttpSeries([0.005, 0.01, 0.1])
 * series.record('GET', '/users/{id}', 200, 0.004)
 */
export class HttpSeries {
  /** Every series, first seen first. */
  readonly all: HttpSeriesTotals[] = []
  readonly #bounds: readonly number[]
  readonly #routes = new Map<string, RouteSeries>()

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds
  }

  /**
   * Counts one answer of `route` to `method` (`OTHER_METHOD` when Node does not know it) with `status`, which took
   * `seconds`.
   */
  record(method: string, route: string, status: number, seconds: number): void {
    const series = this.#series(method, route, status)
    series.count++
    series.sum += seconds
    const bounds = this.#bounds
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        series.buckets[i]!++
        return
      }
    }
  }

  #series(method: string, route: string, status: number): HttpSeriesTotals {
    let of_route = this.#routes.get(route)
    if (of_route !== undefined) {
      const last = of_route.last
      if (last.status === status && last.labels.method === method) return last
      const found = of_route.by.get(`${method} ${status}`)
      if (found !== undefined) return (of_route.last = found)
    }
    // Checked only on a miss: a known method finds its series above from its second request on.
    if (method !== OTHER_METHOD && !known_method(method)) return this.#series(OTHER_METHOD, route, status)
    const status_label = String(status)
    const series: HttpSeriesTotals = {
      labels: { method, route, status: status_label },
      status,
      count: 0,
      sum: 0,
      buckets: new Float64Array(this.#bounds.length),
    }
    this.all.push(series)
    if (of_route === undefined) this.#routes.set(route, (of_route = { last: series, by: new Map() }))
    of_route.last = series
    of_route.by.set(`${method} ${status}`, series)
    return series
  }
}
