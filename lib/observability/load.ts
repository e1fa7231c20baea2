// Load shedding: event-loop delay, heap and RSS sampled on an interval; past a threshold the process refuses new work
// (503 with Retry-After) until every reading is back under a lower mark, so it does not flap at the edge.
import { ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
import { MAX_TIMER_MS, option_checker } from '../options.js'

const check = option_checker(ERR_OBSERVABILITY_BAD_OPTION, 'load')

/** The largest `retry_after_s` (about 68 years): a finite whole number, as `Retry-After` needs. */
const MAX_RETRY_AFTER_S = 2 ** 31 - 1
/**
 * The event-loop tick, in ms. Each gap is the time between two ticks, so an idle loop reads about this much: `LoopDelay`
 * subtracts it, and the reading is the delay beyond the tick.
 */
const RESOLUTION_MS = 10

/** One sample of the process's load. */
export interface LoadReading {
  event_loop_delay_ms: number
  heap_used_bytes: number
  rss_bytes: number
}

/** Thresholds of `LoadMonitor`; an omitted one is not watched. */
export interface LoadOptions {
  /**
   * Largest event-loop delay in ms: the interval's worst delay beyond the 10 ms sampling tick (an idle loop reads about
   * 0, not 10), measured to about a millisecond.
   */
  max_event_loop_delay_ms?: number
  /** Largest heap in use, in bytes. */
  max_heap_bytes?: number
  /** Largest resident set, in bytes. */
  max_rss_bytes?: number
  /** Back to normal only once every reading is under its threshold times this (default 0.8): the hysteresis. */
  recover_ratio?: number
  /** How often to sample (default 1000 ms): an integer from 1 to 2147483647, the longest wait of a Node timer. */
  sample_interval_ms?: number
  /** The `Retry-After` of a refused request, in seconds (default 10): an integer from 1 to 2147483647. */
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
  #ticker: NodeJS.Timeout | undefined

  constructor({
    max_event_loop_delay_ms = Infinity,
    max_heap_bytes = Infinity,
    max_rss_bytes = Infinity,
    recover_ratio = 0.8,
    sample_interval_ms = 1000,
    retry_after_s = 10,
  }: LoadOptions = {}) {
    const positive = (name: string, v: number): number => {
      // Infinity is allowed: the default, "not watched".
      check.must(typeof v === 'number' && v > 0, name, 'a number > 0', v)
      return v
    }
    this.#max = [
      positive('max_event_loop_delay_ms', max_event_loop_delay_ms),
      positive('max_heap_bytes', max_heap_bytes),
      positive('max_rss_bytes', max_rss_bytes),
    ]
    const ratio_ok = typeof recover_ratio === 'number' && recover_ratio > 0 && recover_ratio <= 1
    check.must(ratio_ok, 'recover_ratio', 'a number > 0 and <= 1', recover_ratio)
    this.#recover = recover_ratio
    this.#interval_ms = check.int('sample_interval_ms', sample_interval_ms, 1, MAX_TIMER_MS)
    this.retry_after_s = check.int('retry_after_s', retry_after_s, 1, MAX_RETRY_AFTER_S)
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

  /**
   * Samples every `sample_interval_ms`, the event-loop delay measured by a `LoopDelay` ticked every 10 ms (neither timer
   * keeps the process alive); returns this.
   */
  start(): this {
    if (this.#timer !== undefined) return this
    const delay = new LoopDelay(performance.now())
    this.#ticker = setInterval(() => delay.tick(performance.now()), RESOLUTION_MS).unref()
    this.#timer = setInterval(() => {
      const event_loop_delay_ms = delay.take(performance.now())
      const mem = process.memoryUsage()
      this.sample({ event_loop_delay_ms, heap_used_bytes: mem.heapUsed, rss_bytes: mem.rss })
    }, this.#interval_ms).unref()
    return this
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.#timer)
    clearInterval(this.#ticker)
    this.#timer = this.#ticker = undefined
  }
}

/**
 * The event loop's worst delay between two readings, from the times of a timer's ticks (ms, any monotonic clock): a
 * blocked loop runs its next tick late, and that gap, less the 10 ms tick, is the delay. The time of the last tick is
 * never dropped and a reading is a tick too, so a block is counted once whenever it starts: right after a reading
 * (Node's event-loop histogram forgets its last tick on `reset()`, and missed a block before its next one) or across
 * one (in the reading it ends in).
 */
export class LoopDelay {
  #last: number
  #worst = 0

  constructor(now: number) {
    this.#last = now
  }

  /** A tick of the loop at `now`. */
  tick(now: number): void {
    const gap = now - this.#last
    this.#last = now
    if (gap > this.#worst) this.#worst = gap
  }

  /** The worst delay beyond the tick since the last reading, `now` counted as a tick; starts the next reading. */
  take(now: number): number {
    this.tick(now)
    const worst = this.#worst
    this.#worst = 0
    return Math.max(0, worst - RESOLUTION_MS)
  }
}
