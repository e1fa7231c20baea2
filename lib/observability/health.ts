// Liveness and readiness: the process answers (live), and its dependencies answer in time and it is not draining
// (ready).
import type { Request } from '../request.js'
import type { Response } from '../response.js'
import { CODE_NOT_READY, ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
import { logger, type Logger } from '../log/index.js'
import { within } from '../maybe-promise.js'
import { MAX_TIMER_MS, option_checker } from '../options.js'

const check = option_checker(ERR_OBSERVABILITY_BAD_OPTION, 'health')
/** Where `results()` called without a logger writes its failures. */
const health_log = logger('health')
/** How often a check that keeps failing is logged again, in ms. */
const REPEAT_LOG_MS = 60_000

/**
 * A readiness check: resolves (any value) when the dependency is fine; throws, rejects or hangs past the timeout when
 * not.
 */
export type HealthCheck = () => unknown

/** Options of `Health` (and of `app.health`). */
export interface HealthOptions {
  /** Liveness path (default `/health`): 200 while the process serves requests at all. */
  path?: string
  /**
   * Readiness path (default `/ready`): 200 when every check passes and the app is not closing, else 503 `not_ready`.
   */
  ready_path?: string
  /** Readiness checks by name. */
  checks?: Record<string, HealthCheck>
  /** How long one check may take before it counts as failed (default 2000 ms, at most 2147483647). */
  timeout_ms?: number
  /** The clock in ms (default `Date.now`), which spaces the lines of a check that keeps failing; tests pass a fake one. */
  now?: () => number
}

/**
 * What a readiness check gave: `ok`, `failing` (it threw or rejected) or `timeout`. Never the failure's message, which
 * may name internal hosts and addresses: that goes to the log.
 */
export type CheckResult = 'ok' | 'failing' | 'timeout'

/** One check's result, with what a failing one threw, for the log only. */
interface Outcome {
  readonly result: CheckResult
  readonly error?: unknown
}

/** What the log was last told of a check: its result, since when, and when a line about it was last written. */
interface Logged {
  result: CheckResult
  since: number
  logged_at: number
}

/**
 * The probes' answers. `drain()` (called by `App.close()`) turns readiness to 503 at once, so a load balancer stops
 * sending traffic while in-flight requests finish.
 * @example
 * const health = new Health({ checks: { redis: redis_ping(client) } })
 */
export class Health {
  readonly path: string
  readonly ready_path: string
  readonly #checks: ReadonlyArray<readonly [string, HealthCheck]>
  readonly #timeout_ms: number
  readonly #now: () => number
  readonly #logged = new Map<string, Logged>()
  #draining = false

  constructor({
    path = '/health',
    ready_path = '/ready',
    checks = {},
    timeout_ms = 2000,
    now = Date.now,
  }: HealthOptions = {}) {
    check.int('timeout_ms', timeout_ms, 1, MAX_TIMER_MS)
    for (const [name, fn] of Object.entries(checks)) check.fn(`checks.${name}`, fn)
    this.path = path
    this.ready_path = ready_path
    this.#checks = Object.entries(checks)
    this.#timeout_ms = timeout_ms
    this.#now = check.fn('now', now)
  }

  /** Marks the app as closing: readiness answers 503 `draining` from now on. */
  drain(): void {
    this.#draining = true
  }

  /** Whether `drain()` was called. */
  draining(): boolean {
    return this.#draining
  }

  /**
   * Runs every check at once, each bounded by the timeout. A check's changes are logged to `log` (the readiness handler
   * passes `req.log`) with its name: at warn when it starts failing (with what it threw) or timing out, and once a
   * minute while it keeps doing so; at info when it passes again. A probe every few seconds logs nothing new.
   */
  async results(log: Logger = health_log): Promise<Record<string, CheckResult>> {
    const out: Record<string, CheckResult> = {}
    await Promise.all(
      this.#checks.map(async ([name, check]) => {
        const outcome = await bounded(check, this.#timeout_ms)
        this.#log(log, name, outcome)
        out[name] = outcome.result
      }),
    )
    return out
  }

  /** Logs `outcome` of the check `name` when it differs from what was last logged, or a minute after it while failing. */
  #log(log: Logger, name: string, { result, error }: Outcome): void {
    const last = this.#logged.get(name)
    if (result === 'ok' && last === undefined) return
    const now = this.#now()
    if (result === 'ok') {
      this.#logged.delete(name)
      return void log.logf('info', 'readiness check recovered', 'check', name, 'failed_ms', now - last!.since)
    }
    if (last?.result !== result) this.#logged.set(name, { result, since: last?.since ?? now, logged_at: now })
    else if (now - last.logged_at < REPEAT_LOG_MS) return
    else last.logged_at = now
    if (result === 'failing') log.logf('warn', 'readiness check failed', 'check', name, 'err', error)
    else log.logf('warn', 'readiness check timed out', 'check', name, 'timeout_ms', this.#timeout_ms)
  }

  /** The liveness handler: 200 `{ok: true, status: 'live'}`. */
  readonly live = (_req: Request, res: Response): void =>
    void res.header('cache-control', 'no-store').json('ok', true, 'status', 'live')

  /**
   * The readiness handler: 200 with each check's result, or 503 `not_ready` with them (and `draining` when closing).
   */
  readonly ready = async (req: Request, res: Response): Promise<void> => {
    res.header('cache-control', 'no-store')
    // Before the checks, and after them: close() may have started while they ran, and a closing process is never ready.
    const checks = this.#draining ? undefined : await this.results(req.log)
    if (checks === undefined || this.#draining)
      return void res.status(503).json('ok', false, 'error', CODE_NOT_READY, 'status', 'draining')
    const ok = Object.values(checks).every((r) => r === 'ok')
    if (ok) return void res.json('ok', true, 'status', 'ready', 'checks', checks)
    res.status(503).json('ok', false, 'error', CODE_NOT_READY, 'status', 'failing', 'checks', checks)
  }
}

const OK: Outcome = { result: 'ok' }
const TIMEOUT: Outcome = { result: 'timeout' }

/**
 * Runs one check: a throw or rejection is `failing` (whatever its message, `'ok'` included) with what was thrown kept
 * apart, a hang past the timeout is `timeout`.
 */
async function bounded(check: HealthCheck, timeout_ms: number): Promise<Outcome> {
  try {
    return await within(
      Promise.resolve()
        .then(check)
        .then(() => OK),
      timeout_ms,
      TIMEOUT,
    )
  } catch (error) {
    return { result: 'failing', error }
  }
}

/**
 * A readiness check that pings Redis (any client with `ping()`, such as ioredis).
 * @example
 * app.health({ checks: { redis: redis_ping(client) } })
 */
export function redis_ping(client: { ping(): Promise<unknown> }): HealthCheck {
  return async () => {
    const answer = await client.ping()
    if (answer !== 'PONG') throw new Error(`unexpected PING answer ${JSON.stringify(answer)}`)
  }
}
