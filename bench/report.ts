// The shape every benchmark scenario returns, so bench/run.ts can write results and docs/performance.md uniformly.

/** One measured figure: a competitor in a scenario, as the median of several rounds. */
export interface BenchRow {
  scenario: string
  competitor: string
  /** Median over rounds, in `unit` (higher is better unless `lower_is_better`). */
  median: number
  /** Every round's figure, in run order, so noise is visible. */
  rounds: number[]
  unit: string
  lower_is_better?: boolean
  /**
   * `median` is not the rounds' median but all rounds pooled (their sum of bytes over their sum of requests), over this
   * many garbage collections: how bytes allocated per request are given (bench/allocations.ts).
   */
  pooled_over_collections?: number
}

/** A ratio of two competitors' medians in one scenario, with the target it is held to. */
export interface BenchRatio {
  scenario: string
  label: string
  value: number
  /** The target, for example 0.9 for "at least 0.9x"; omitted where none was set. */
  target?: number
  /** The target is a ceiling ("at most 1.10x"), as for a ratio of CPU time per request. */
  at_most?: boolean
  /** Where the median of the rounds' ratios lies (`median_interval`), for a ratio taken round by round. */
  interval?: Interval
}

/** A median's distribution-free confidence interval: `low` to `high` holds it with probability `coverage`. */
export interface Interval {
  low: number
  high: number
  coverage: number
}

/** A ratio as the docs and the console show it; a figure that could not be measured (NaN, null in JSON) reads n/a. */
export function ratio_text(value: number | null): string {
  return value !== null && Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a'
}

/** Whether a ratio meets its target (true when it has none). */
export function met(r: BenchRatio): boolean {
  if (r.target === undefined) return true
  // Not measured (NaN, or null once written as JSON) is never a met target.
  if (!Number.isFinite(r.value)) return false
  return meets(r, r.value)
}

/** Whether `v` meets the target of `r`, which has one. */
function meets(r: BenchRatio, v: number): boolean {
  return r.at_most ? v <= r.target! : v >= r.target!
}

/**
 * Whether the target's verdict holds over the ratio's whole interval, not only at its median (true without an
 * interval): a ratio whose interval crosses the target is met or missed by the noise of its run, not by the servers.
 */
export function settled(r: BenchRatio): boolean {
  if (r.target === undefined || r.interval === undefined) return true
  return meets(r, r.interval.low) === meets(r, r.interval.high)
}

/**
 * A ratio's verdict as the console and the docs give it: `met`, `missed` (written as `missed` says, `MISSED` or
 * `**missed**`), or which way the median went.
 */
export function verdict_text(r: BenchRatio, missed = 'missed'): string {
  const word = met(r) ? 'met' : missed
  return settled(r) ? word : `${word} by the median; the interval crosses the target`
}

/** A ratio's interval as text (`0.93-1.18x, 96%`), or '' without one. */
export function interval_text(r: Pick<BenchRatio, 'interval'>): string {
  const i = r.interval
  if (i === undefined) return ''
  return `${i.low.toFixed(2)}-${i.high.toFixed(2)}x, ${Math.floor(i.coverage * 1000) / 10}%`
}

/** How a ratio's target reads: `<= 1.1` or `>= 0.9` (a derived ceiling such as 1 / 0.95 to three decimals: `<= 1.053`). */
export function target_text(r: BenchRatio): string {
  return `${r.at_most ? '<=' : '>='} ${Number(r.target!.toFixed(3))}`
}

/**
 * A cost ratio `a / b` of two rows' medians (CPU per request: lower is better for `a`), held to a ceiling `at_most`.
 */
export function cost_ratio(scenario: string, label: string, a: BenchRow, b: BenchRow, at_most?: number): BenchRatio {
  const r: BenchRatio = { scenario, label, value: a.median / b.median, at_most: true }
  if (at_most !== undefined) r.target = at_most
  return r
}

/** What one benchmark module returns. */
export interface BenchReport {
  name: string
  rows: BenchRow[]
  ratios: BenchRatio[]
  notes?: string[]
}

/** Median of a list of numbers (mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/**
 * The median of each round's `a / b`, with its interval (`median_interval`). A round's two figures are taken seconds
 * apart, so a change of the shared machine's load between rounds cancels out: steadier than the ratio of the two
 * medians.
 */
export function round_ratio(a: readonly number[], b: readonly number[]): Pick<BenchRatio, 'value' | 'interval'> {
  const ratios = a.map((x, i) => x / b[i]!)
  const value = median(ratios)
  const interval = median_interval(ratios)
  return interval === undefined ? { value } : { value, interval }
}

/** The least coverage `median_interval` takes, where the rounds allow it. */
const CONFIDENCE = 0.95

/**
 * The interval of the median of `xs` that order statistics give whatever the figures' distribution, as long as the
 * rounds are independent: the k-th smallest and k-th largest figure hold the true median with probability 1 - 2 P(B <
 * k), B binomial (n, 1/2). k is the largest that keeps that at 95% or more (9 rounds: the 2nd and 8th, 96.1%); 5 rounds
 * or fewer cannot reach 95%, and get their whole range with its own coverage (5 rounds: 93.7%). Rounds of one process
 * pair share that pair's state (its garbage collector's cycle, its JIT), so the interval measures the noise within a
 * run, not how far another run of the same servers may land. Undefined below 2 figures.
 */
export function median_interval(xs: readonly number[]): Interval | undefined {
  const n = xs.length
  if (n < 2 || xs.some((x) => !Number.isFinite(x))) return undefined
  const s = [...xs].sort((a, b) => a - b)
  let k = 1
  // P(B < k) and its last term, C(n, k - 1) / 2^n.
  let tail = 2 ** -n
  let term = tail
  while (k + 1 <= (n + 1) / 2) {
    const next = (term * (n - k + 1)) / k
    if (1 - 2 * (tail + next) < CONFIDENCE) break
    term = next
    tail += next
    k++
  }
  return { low: s[k - 1]!, high: s[n - k]!, coverage: 1 - 2 * tail }
}

/** Ratio row helper: `a / b` of two rows' medians. */
export function ratio(scenario: string, label: string, a: BenchRow, b: BenchRow, target?: number): BenchRatio {
  const r: BenchRatio = { scenario, label, value: a.lower_is_better ? b.median / a.median : a.median / b.median }
  if (target !== undefined) r.target = target
  return r
}

/**
 * One scenario's rows from each competitor's per-round figures, and a lookup by competitor name for the ratios.
 * @example
 * const { rows, row } = scenario_rows('hello', figures, 'req/s')
 * ratio('hello', 'fw / fastify', row('fw'), row('fastify'), 0.9)
 */
export function scenario_rows(
  scenario: string,
  figures: ReadonlyMap<string, number[]>,
  unit: string,
): { rows: BenchRow[]; row: (competitor: string) => BenchRow } {
  const rows: BenchRow[] = [...figures].map(([competitor, rounds]) => ({
    scenario,
    competitor,
    median: median(rounds),
    rounds,
    unit,
  }))
  const row = (competitor: string): BenchRow => {
    const found = rows.find((r) => r.competitor === competitor)
    if (found === undefined) throw new Error(`no figures for ${competitor} in ${scenario}`)
    return found
  }
  return { rows, row }
}
