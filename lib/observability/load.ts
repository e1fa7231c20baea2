// Load shedding: event-loop delay, heap and RSS sampled on an interval; past a threshold the process refuses new work
// (503 with Retry-After) until every reading is back under a lower mark, so it does not flap at the edge.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import { ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
import { option_checker } from '../options.js'

const check = option_checker(ERR_OBSERVABILITY_BAD_OPTION, 'load')

/** One sample of the process's load. */
export interface LoadReading {
  event_loop_delay_ms: number
  heap_used_bytes: number
  rss_bytes: number
}

/** Thresholds of `LoadMonitor`; an omitted one is not watched. */
export interface LoadOptions {
  /** Largest event-loop delay (the interval's maximum) in ms. */
  max_event_loop_delay_ms?: number
  /** Largest heap in use, in bytes. */
  max_heap_bytes?: number
  /** Largest resident set, in bytes. */
  max_rss_bytes?: number
  /** Back to normal only once every reading is under its threshold times this (default 0.8): the hysteresis. */
  recover_ratio?: number
  /** How often to sample (default 1000 ms). */
  sample_interval_ms?: number
  /** The `Retry-After` of a refused request, in seconds (default 10). */
  retry_after_s?: number
}

/**
 * Decides whether the process is overloaded from samples. `start()` samples on a timer; tests call `sample()`.
 * @example
 * const load = new LoadMonitor({ max_event_loop_delay_ms: 200, max_rss_bytes: 1.5e9 }).start()
 */
export class LoadMonitor {
  readonly retry_after_s: number
  readonly #max: readonly [number, number, number]
  readonly #recover: number
  readonly #interval_ms: number
  #over = false
  #timer: NodeJS.Timeout | undefined
  #histogram: IntervalHistogram | undefined

  constructor({
    max_event_loop_delay_ms = Infinity,
    max_heap_bytes = Infinity,
    max_rss_bytes = Infinity,
    recover_ratio = 0.8,
    sample_interval_ms = 1000,
    retry_after_s = 10,
  }: LoadOptions = {}) {
    const positive = (name: string, v: number): number => {
      check.must(typeof v === 'number' && v > 0, name, 'a number > 0', v)
      return v
    }
    this.#max = [
      positive('max_event_loop_delay_ms', max_event_loop_delay_ms),
      positive('max_heap_bytes', max_heap_bytes),
      positive('max_rss_bytes', max_rss_bytes),
    ]
    check.must(recover_ratio > 0 && recover_ratio <= 1, 'recover_ratio', 'a number > 0 and <= 1', recover_ratio)
    this.#recover = recover_ratio
    this.#interval_ms = positive('sample_interval_ms', sample_interval_ms)
    this.retry_after_s = Math.ceil(positive('retry_after_s', retry_after_s))
  }

  /** Whether new requests are refused now. */
  overloaded(): boolean {
    return this.#over
  }

  /**
   * Applies one sample: over any threshold turns shedding on; it turns off only when every reading is under its lower
   * mark.
   */
  sample(r: LoadReading): boolean {
    const values = [r.event_loop_delay_ms, r.heap_used_bytes, r.rss_bytes]
    if (values.some((v, i) => v > this.#max[i]!)) this.#over = true
    else if (values.every((v, i) => v < this.#max[i]! * this.#recover)) this.#over = false
    return this.#over
  }

  /** Samples every `sample_interval_ms` (the timer never keeps the process alive); returns this. */
  start(): this {
    if (this.#timer !== undefined) return this
    const h = (this.#histogram = monitorEventLoopDelay({ resolution: 10 }))
    h.enable()
    this.#timer = setInterval(() => {
      const mem = process.memoryUsage()
      this.sample({ event_loop_delay_ms: h.max / 1e6, heap_used_bytes: mem.heapUsed, rss_bytes: mem.rss })
      h.reset()
    }, this.#interval_ms)
    this.#timer.unref()
    return this
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.#timer)
    this.#histogram?.disable()
    this.#timer = undefined
  }
}
