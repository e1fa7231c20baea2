// Interleaved rounds on pinned servers (bench/wrk.ts), and the report rows and ratios they give, in CPU per request and
// in V8 heap bytes allocated per request: each scenario's competitors run one after another within a round, in an
// order rotated every round, so a noisy neighbour on the shared machine weighs on all of them alike.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, truncate } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pooled, type Allocated } from './allocations.js'
import { cost_ratio, median, round_ratio, type BenchRatio, type BenchRow } from './report.js'
import {
  measure,
  node_binaries,
  start_pinned,
  warm_and_settle,
  type CpuFigure,
  type PinnedServer,
  type WrkLoad,
} from './wrk.js'

/** A server process: bench/servers/<script> with its environment. `log_file` gives it FW_BENCH_LOG_FILE to write to. */
export interface Competitor {
  name: string
  script: string
  env?: Record<string, string>
  log_file?: boolean
}

/** A request repeated by wrk against some of the competitors. */
export interface CpuScenario {
  name: string
  load: Omit<WrkLoad, 'duration_s'>
  competitors: readonly string[]
}

/** One run: the servers, the scenarios, the rounds and the Node binary every server runs on. */
export interface CpuRun {
  competitors: readonly Competitor[]
  scenarios: readonly CpuScenario[]
  rounds: number
  duration_s: number
  warm_up_s: number
  node: { label: string; path: string }
}

/** Every round's figure of a scenario's competitor, keyed `<scenario>|<competitor>`. */
export type CpuFigures = Map<string, CpuFigure[]>

/**
 * Starts the competitors pinned, warms each scenario's servers up, then measures the interleaved rounds; stops them
 * all.
 */
export async function cpu_rounds(run: CpuRun): Promise<CpuFigures> {
  // Log files go to memory (tmpfs) when the machine has one: a disk file's cost swings with the page cache's writeback
  // (one profile saw write() take 23-29% of a logged request), which would measure the disk, not the logger.
  const dir = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'fw-bench-'))
  const servers = new Map<string, { server: PinnedServer; log?: string }>()
  try {
    for (const c of run.competitors) {
      const log = c.log_file ? path.join(dir, `${c.name}.log`) : undefined
      const env = { ...c.env, ...(log === undefined ? {} : { FW_BENCH_LOG_FILE: log }) }
      const server = await start_pinned(c.name, c.script, { env, node: run.node.path })
      servers.set(c.name, log === undefined ? { server } : { server, log })
    }
    const one = async (s: CpuScenario, name: string, duration_s: number): Promise<CpuFigure> => {
      const { server, log } = servers.get(name)!
      const figure = await measure(server, { ...s.load, duration_s })
      // The log files are emptied after each run, so a full bench never fills the disk with access lines.
      if (log !== undefined) await truncate(log, 0).catch(() => undefined)
      if (figure.non_2xx > 0) throw new Error(`${name} on ${s.name}: ${figure.non_2xx} failed answers`)
      return figure
    }
    const warm_up = async (): Promise<void> => {
      for (const s of run.scenarios) for (const name of s.competitors) await one(s, name, run.warm_up_s)
    }
    // A process that has not yet collected in full keeps start-up state that one collection ends for good, and how soon
    // that comes depends on its start-up heap, not on its requests.
    await warm_and_settle(
      [...servers.values()].map((s) => s.server),
      warm_up,
    )
    const figures: CpuFigures = new Map()
    for (let round = 0; round < run.rounds; round++) {
      for (const s of run.scenarios) {
        const n = s.competitors.length
        for (let i = 0; i < n; i++) {
          const name = s.competitors[(i + round) % n]!
          const key = `${s.name}|${name}`
          figures.set(key, [...(figures.get(key) ?? []), await one(s, name, run.duration_s)])
        }
      }
    }
    return figures
  } finally {
    await Promise.all([...servers.values()].map((s) => s.server.stop()))
    await rm(dir, { recursive: true, force: true })
  }
}

/** The Node binaries to run on: the machine's alone in quick mode, else it and Node 24. */
export async function nodes(quick: boolean | undefined): Promise<Array<{ label: string; path: string }>> {
  const all = await node_binaries()
  return quick ? all.slice(0, 1) : all
}

/**
 * The rounds, run length and warm-up of a full or quick run: 1 s runs (quick: at least 3 rounds). Short runs keep the
 * competitors of a round close in time: on this shared machine the same server's CPU per request moved 2-3x within a
 * minute, so more, shorter rounds give a steadier median than fewer long ones.
 */
export function run_lengths(opts: {
  rounds: number
  quick?: boolean
}): Pick<CpuRun, 'rounds' | 'duration_s' | 'warm_up_s'> {
  return {
    rounds: opts.quick ? Math.max(opts.rounds, 3) : opts.rounds,
    duration_s: 1,
    warm_up_s: opts.quick ? 1 : 2,
  }
}

/**
 * The control pair of a run: a second process of the competitor `of` (same script and environment), measured in the
 * same rounds of `scenario`. Its ratios to `of` are the method's own error in that run (ideally 1.00), in CPU and bytes.
 */
export interface Control {
  scenario: string
  of: string
}

/** The name of the control pair's second process of competitor `of`. */
export const control_name = (of: string): string => `${of} (control)`

/** `setup` with the control's second process added to its competitors and to its scenario. */
function with_control(setup: Pick<CpuRun, 'competitors' | 'scenarios'>, control: Control) {
  const name = control_name(control.of)
  const original = setup.competitors.find((c) => c.name === control.of)
  if (original === undefined) throw new Error(`control: no competitor ${control.of}`)
  return {
    competitors: [...setup.competitors, { ...original, name }],
    scenarios: setup.scenarios.map((s) =>
      s.name === control.scenario ? { ...s, competitors: [...s.competitors, name] } : s,
    ),
  }
}

/** The note a report with a control pair carries. */
function control_note(control: Control): string {
  return (
    `"${control_name(control.of)}" is a second process of the same server as "${control.of}", measured in the same ` +
    `rounds of ${control.scenario}: its ratios to "${control.of}" show how far two identical servers land apart in ` +
    'this run, in CPU and in bytes'
  )
}

/**
 * Runs the scenarios on each Node binary (the machine's alone when quick) and gathers every binary's rows, and the
 * ratios `ratios_of` draws from them, followed by each control pair's when `setup` names any (full runs only: a quick
 * run measures its competitors alone). A scenario whose ratios compare two competitors of fw's own (a cost such as
 * metrics on against off) needs a control pair of its own: another scenario's says nothing of its spread.
 */
export async function on_each_node(
  opts: { rounds: number; quick?: boolean },
  setup: Pick<CpuRun, 'competitors' | 'scenarios'> & { control?: Control | readonly Control[] },
  ratios_of: (rows: BenchRow[], node_label: string) => BenchRatio[],
): Promise<{ rows: BenchRow[]; ratios: BenchRatio[]; note: string }> {
  const lengths = run_lengths(opts)
  const controls = opts.quick || setup.control === undefined ? [] : [setup.control].flat()
  const run = controls.reduce(with_control, setup)
  const rows: BenchRow[] = []
  const ratios: BenchRatio[] = []
  for (const node of await nodes(opts.quick)) {
    const node_rows = cpu_rows(await cpu_rounds({ ...run, ...lengths, node }), node.label)
    rows.push(...node_rows)
    ratios.push(...ratios_of(node_rows, node.label))
    for (const c of controls) ratios.push(...cost_ratios(node_rows, c.scenario, node.label, control_name(c.of), c.of))
  }
  return { rows, ratios, note: [method_note(lengths), ...controls.map(control_note)].join('; ') }
}

/** The unit of the CPU rows. */
export const CPU_UNIT = 'µs CPU/request'
/** The unit of the allocation rows. */
export const BYTES_UNIT = 'B allocated/request'
/** The unit of the full-collection rows. */
const FULL_GCS_UNIT = 'full GCs/1,000 requests'
/** The unit of the page-fault rows. */
const PAGE_FAULTS_UNIT = 'page faults/request'
/** Each cost a ratio can compare, by its rows' unit, and the word its label ends with. */
const COSTS = { cpu: { unit: CPU_UNIT, word: 'CPU' }, bytes: { unit: BYTES_UNIT, word: 'bytes' } } as const

/**
 * Five rows per scenario and competitor: server CPU µs per request (the rounds' median), V8 heap bytes allocated per
 * request (all rounds pooled; bench/allocations.ts), both lower is better, req/s (the rounds' median), full
 * collections per 1,000 requests and minor page faults per request (`count_row`).
 */
export function cpu_rows(figures: CpuFigures, node_label: string): BenchRow[] {
  const rows: BenchRow[] = []
  for (const [key, list] of figures) {
    const [scenario, competitor] = key.split('|') as [string, string]
    const at = `${scenario} (${node_label})`
    const row = (rounds: number[], unit: string, lower_is_better?: true): BenchRow => ({
      scenario: at,
      competitor,
      median: median(rounds),
      rounds,
      unit,
      ...(lower_is_better ? { lower_is_better } : {}),
    })
    rows.push(
      row(
        list.map((f) => f.cpu_us_per_req),
        CPU_UNIT,
        true,
      ),
    )
    rows.push(
      bytes_row(
        at,
        competitor,
        BYTES_UNIT,
        list.map((f) => ({ allocated: f.allocated, units: f.requests })),
      ),
    )
    rows.push(
      row(
        list.map((f) => f.rps),
        'req/s',
      ),
    )
    rows.push(count_row(at, competitor, list, (f) => f.allocated.full * 1000, FULL_GCS_UNIT))
    rows.push(count_row(at, competitor, list, (f) => f.page_faults, PAGE_FAULTS_UNIT))
  }
  return rows
}

/**
 * A count per request of one competitor: each round's, and all rounds pooled as the figure. Two are shown beside the
 * CPU figure because, where a scenario makes them happen on nearly every request (1 MiB uploads), they decide most of
 * it (docs/performance.md): full (mark-compact) collections, per 1,000 requests, each marking the process's whole
 * heap; and minor page faults, memory the allocator returned to the system and touched again.
 */
export function count_row(
  scenario: string,
  competitor: string,
  figures: ReadonlyArray<Pick<CpuFigure, 'allocated' | 'requests' | 'page_faults'>>,
  count: (f: Pick<CpuFigure, 'allocated' | 'page_faults'>) => number,
  unit: string,
): BenchRow {
  const counted = figures.reduce((n, f) => n + count(f), 0)
  const requests = figures.reduce((n, f) => n + f.requests, 0)
  return {
    scenario,
    competitor,
    median: counted / requests,
    rounds: figures.map((f) => count(f) / f.requests),
    unit,
    lower_is_better: true,
  }
}

/**
 * The row of V8 heap bytes allocated per unit of work (a request, a message) of one competitor over its windows: each
 * window's figure as a round, and all of them pooled as the figure (bench/allocations.ts).
 */
export function bytes_row(
  scenario: string,
  competitor: string,
  unit: string,
  windows: ReadonlyArray<{ allocated: Allocated; units: number }>,
): BenchRow {
  return {
    scenario,
    competitor,
    median: pooled(windows),
    rounds: windows.map((w) => w.allocated.bytes / w.units),
    unit,
    lower_is_better: true,
    pooled_over_collections: windows.reduce((n, w) => n + w.allocated.collections, 0),
  }
}

/**
 * `a / b` of one cost per request (CPU by default, or bytes allocated) in one scenario on one Node binary, held to the
 * ceiling `at_most`: for CPU the median of the rounds' ratios, for bytes the ratio of the pooled figures.
 */
export function cpu_ratio(
  rows: readonly BenchRow[],
  scenario: string,
  node_label: string,
  a: string,
  b: string,
  at_most?: number,
  cost: keyof typeof COSTS = 'cpu',
): BenchRatio {
  const at = `${scenario} (${node_label})`
  const { unit, word } = COSTS[cost]
  const row = (c: string): BenchRow => {
    const found = rows.find((r) => r.scenario === at && r.competitor === c && r.unit === unit)
    if (found === undefined) throw new Error(`no ${word} figures for ${c} in ${at}`)
    return found
  }
  const ra = row(a)
  const rb = row(b)
  const ratio = cost_ratio(at, `${a} / ${b} ${word}`, ra, rb, at_most)
  // Bytes allocated do not follow the machine's load; one round's bytes are exact only to a young generation at each
  // end, which pooling removes.
  if (cost === 'bytes') return ratio
  return { ...ratio, ...round_ratio(ra.rounds, rb.rounds) }
}

/**
 * The CPU and the bytes ratio of `a / b` in one scenario on one Node binary, each held to its ceiling when given.
 * @example
 * cost_ratios(rows, 'json hello', 'node v20.20.2', 'fw', 'fastify', { cpu: 1.1, bytes: 1.25 })
 */
export function cost_ratios(
  rows: readonly BenchRow[],
  scenario: string,
  node_label: string,
  a: string,
  b: string,
  at_most: Ceilings = {},
): BenchRatio[] {
  return [
    cpu_ratio(rows, scenario, node_label, a, b, at_most.cpu),
    cpu_ratio(rows, scenario, node_label, a, b, at_most.bytes, 'bytes'),
  ]
}

/** Ceilings of fw / one competitor per request, by cost. */
export type Ceilings = { cpu?: number; bytes?: number }

/**
 * The CPU and bytes ratios of fw against each competitor of `against` in one scenario on one Node binary, each held to
 * its ceilings; `['fw', ...Object.keys(against)]` are the scenario's competitors.
 * @example
 * fw_against(rows, 'security chain', node, { fastify: { cpu: 1 }, express: { cpu: 0.5 }, hono: {} })
 */
export function fw_against(
  rows: readonly BenchRow[],
  scenario: string,
  node_label: string,
  against: Readonly<Record<string, Ceilings>>,
): BenchRatio[] {
  return Object.entries(against).flatMap(([name, at_most]) =>
    cost_ratios(rows, scenario, node_label, 'fw', name, at_most),
  )
}

/** The method note every CPU-per-request bench shares. */
export function method_note(run: Pick<CpuRun, 'duration_s' | 'warm_up_s' | 'rounds'>): string {
  return (
    `each server pinned to core 0 (taskset), wrk -t1 -c64 pinned to core 1, ${run.warm_up_s} s of untimed warm-up per scenario and ` +
    `server, then one full collection in every server while idle (a heap snapshot by signal, deleted) and the warm-up again, then ${run.rounds} interleaved rounds of ${run.duration_s} s; server CPU (utime+stime of its process) per answered request, the median of the rounds; V8 heap bytes allocated per ` +
    'answered request (the sum of `allocated=` over the --trace-gc-nvp lines written during the runs), all rounds pooled; ratios are fw / competitor ' +
    "(lower is better for fw): for CPU the median of each round's ratio, for bytes the ratio of the pooled figures"
  )
}
