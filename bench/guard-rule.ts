// The CI guard's rule (bench/guard.ts), apart from its measuring so that it can be tested: fw / Fastify CPU per request
// must not stay above LIMIT, judged only on tries whose control pair (two processes of the same Fastify server) landed
// within CONTROL_LIMIT of each other.

export const LIMIT = 1.35
export const CONTROL_LIMIT = 1.2
/** Measured tries above the limit that fail the guard. */
export const MEASURED = 2
/** Tries at most, noisy ones included. */
export const TRIES = 5

/** One try's ratios: fw / Fastify in CPU per request, and the control pair's second Fastify / Fastify. */
export interface GuardTry {
  cpu: number
  control: number
}

/** A try whose control pair landed beyond CONTROL_LIMIT apart: it measured the machine, not fw. */
export const noisy = (t: GuardTry): boolean => t.control > CONTROL_LIMIT || t.control < 1 / CONTROL_LIMIT

/**
 * What the tries so far decide: `pass` at the first measured try at or under the limit, `fail` at the MEASURED-th
 * measured try above it or when the tries are used up without a verdict (too noisy to tell), else `more`.
 * @example
 * guard_verdict([{ cpu: 1.56, control: 1.31 }, { cpu: 1.05, control: 0.98 }]) // 'pass'
 */
export function guard_verdict(tries: readonly GuardTry[]): 'pass' | 'fail' | 'more' {
  let over = 0
  for (const t of tries) {
    if (noisy(t)) continue
    if (t.cpu <= LIMIT) return 'pass'
    if (++over === MEASURED) return 'fail'
  }
  return tries.length >= TRIES ? 'fail' : 'more'
}
