// Liveness and readiness: the process answers (live), and its dependencies answer in time and it is not draining
// (ready).
import type { Request } from '../request.js'
import type { Response } from '../response.js'
import { CODE_NOT_READY, ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
import { option_checker } from '../options.js'

const check = option_checker(ERR_OBSERVABILITY_BAD_OPTION, 'health')

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
  /** How long one check may take before it counts as failed (default 2000 ms). */
  timeout_ms?: number
}

/** What a readiness check gave: `ok`, `timeout`, or the failure's message. */
export type CheckResult = 'ok' | 'timeout' | string

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
  #draining = false

  constructor({ path = '/health', ready_path = '/ready', checks = {}, timeout_ms = 2000 }: HealthOptions = {}) {
    check.int('timeout_ms', timeout_ms, 1)
    for (const [name, fn] of Object.entries(checks)) check.fn(`checks.${name}`, fn)
    this.path = path
    this.ready_path = ready_path
    this.#checks = Object.entries(checks)
    this.#timeout_ms = timeout_ms
  }

  /** Marks the app as closing: readiness answers 503 `draining` from now on. */
  drain(): void {
    this.#draining = true
  }

  /** Whether `drain()` was called. */
  draining(): boolean {
    return this.#draining
  }

  /** Runs every check at once, each bounded by the timeout. */
  async results(): Promise<Record<string, CheckResult>> {
    const out: Record<string, CheckResult> = {}
    await Promise.all(
      this.#checks.map(async ([name, check]) => void (out[name] = await bounded(check, this.#timeout_ms))),
    )
    return out
  }

  /** The liveness handler: 200 `{ok: true, status: 'live'}`. */
  readonly live = (_req: Request, res: Response): void =>
    void res.header('cache-control', 'no-store').json('ok', true, 'status', 'live')

  /**
   * The readiness handler: 200 with each check's result, or 503 `not_ready` with them (and `draining` when closing).
   */
  readonly ready = async (_req: Request, res: Response): Promise<void> => {
    res.header('cache-control', 'no-store')
    if (this.#draining) return void res.status(503).json('ok', false, 'error', CODE_NOT_READY, 'status', 'draining')
    const checks = await this.results()
    // close() may have started while the checks ran: a closing process is never ready.
    if (this.#draining) return void res.status(503).json('ok', false, 'error', CODE_NOT_READY, 'status', 'draining')
    const ok = Object.values(checks).every((r) => r === 'ok')
    if (ok) return void res.json('ok', true, 'status', 'ready', 'checks', checks)
    res.status(503).json('ok', false, 'error', CODE_NOT_READY, 'status', 'failing', 'checks', checks)
  }
}

/** Runs one check, turning a throw or rejection into its message and a hang into `timeout`. */
async function bounded(check: HealthCheck, timeout_ms: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<CheckResult>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeout_ms)))
  try {
    return await Promise.race([
      Promise.resolve()
        .then(check)
        .then(() => 'ok' as const),
      timeout,
    ])
  } catch (err) {
    return err instanceof Error ? err.message || err.name : String(err)
  } finally {
    clearTimeout(timer)
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
