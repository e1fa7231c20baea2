// The network probe: remembers whether the network was reachable at the last check, and re-checks at most once per
// interval.
import { within } from '../maybe-promise.js'
import { MAX_TIMER_MS, option_checker } from '../options.js'
import { check_now, ERR_CACHE_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_CACHE_BAD_OPTION, 'NetworkProbe')

/** Configuration of a `NetworkProbe`. */
export interface NetworkProbeConfig {
  /** Least time in ms between two checks (default 5000). */
  min_interval_ms?: number
  /** The state before the first check (default true). */
  initial_online?: boolean
  /**
   * Longest wait for one check, in ms (default 5000, at most 2147483647, the longest wait of a Node timer): a check
   * still pending then counts as offline, and the next refresh after the interval runs a new one. The check itself is
   * not cancelled: give it its own timeout too (`AbortSignal.timeout`) so that it ends.
   */
  timeout_ms?: number
}

/** The check a probe runs: true when the network is reachable. A throw or rejection counts as offline. */
export type ProbeCheck = () => boolean | Promise<boolean>

/** What the context helpers need from a probe; any object with `isOnline(now_ms)` will do. */
export interface OnlineState {
  isOnline(now_ms: number): boolean
}

/**
 * The spec's `NetworkProbe`. `isOnline(now_ms)` answers at once from the last known state; `refresh(now_ms)` runs the
 * check unless one ran less than `min_interval_ms` before (then it answers the known state), and concurrent refreshes
 * share the one check in flight. A clock that went back since the last check does not throttle.
 * @example
 * const probe = new NetworkProbe({ min_interval_ms: 10_000 }, async () => (await
 * fetch('https://example.com/health')).ok)
 * await probe.refresh(Date.now())
 * const ctx = contextFromProbe(probe, Date.now())
 */
export class NetworkProbe implements OnlineState {
  readonly min_interval_ms: number
  readonly timeout_ms: number
  readonly #check: ProbeCheck
  #online: boolean
  #last_check_ms: number | undefined
  #in_flight: Promise<boolean> | undefined

  constructor(
    { min_interval_ms = 5_000, initial_online = true, timeout_ms = 5_000 }: NetworkProbeConfig,
    probe_check: ProbeCheck,
  ) {
    this.min_interval_ms = check.int('min_interval_ms', min_interval_ms)
    // Node fires a longer timer after 1 ms, which would count every check that answers later as offline.
    this.timeout_ms = check.int('timeout_ms', timeout_ms, 1, MAX_TIMER_MS)
    this.#online = check.bool('initial_online', initial_online)
    this.#check = check.fn('check', probe_check)
  }

  /** The last known state; `now_ms` is accepted for the spec's signature and does not start a check. */
  isOnline(_now_ms: number): boolean {
    return this.#online
  }

  /** When the last check started, in the caller's ms; undefined before the first. */
  get last_check_ms(): number | undefined {
    return this.#last_check_ms
  }

  /**
   * Runs the check when the interval has passed and resolves to the state; throws `FW_ERR_CACHE_BAD_TIME` on a
   * non-finite `now_ms`.
   */
  refresh(now_ms: number): Promise<boolean> {
    check_now('NetworkProbe.refresh', now_ms)
    if (this.#in_flight) return this.#in_flight
    const last = this.#last_check_ms
    if (last !== undefined && now_ms >= last && now_ms - last < this.min_interval_ms)
      return Promise.resolve(this.#online)
    this.#last_check_ms = now_ms
    const run = this.#run()
    this.#in_flight = run
    void run.finally(() => {
      if (this.#in_flight === run) this.#in_flight = undefined
    })
    return run
  }

  async #run(): Promise<boolean> {
    let online: boolean
    try {
      // A check that never settles (a health URL that drops packets) would hold every refresh, and the state, for ever.
      online = Boolean(await within(this.#check(), this.timeout_ms, false))
    } catch {
      // A check that cannot even run (DNS failure, refused socket) is the plainest sign of being offline.
      online = false
    }
    this.#online = online
    return online
  }
}
