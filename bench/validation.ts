// Validation: a POST whose body has 20 fields on 2 nested levels and one array, validated by fw with its schema and by
// Fastify with the equivalent JSON Schema (Ajv, compiled); server CPU per request on the shared wrk harness.
import { pathToFileURL } from 'node:url'
import { BYTES_UNIT, bytes_row } from './cpu.js'
import { cost_ratio, ratio, scenario_rows, type BenchReport } from './report.js'
import { ORDER_TEXT } from './validation-body.js'
import { measure, start_pinned, type CpuFigure, type PinnedServer, type WrkLoad } from './wrk.js'

const COMPETITORS = [
  ['fw', 'validation-fw.ts'],
  ['fastify', 'validation-fastify.ts'],
] as const
const SCENARIO = 'POST 20 fields, 2 levels, 1 array'
const LOAD: Omit<WrkLoad, 'duration_s'> = {
  path: '/orders',
  method: 'POST',
  body: ORDER_TEXT,
  headers: { 'content-type': 'application/json' },
}

/** Runs the validation scenario; `quick` shortens each run for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 2 : 5
  const servers: PinnedServer[] = []
  try {
    for (const [name, script] of COMPETITORS) servers.push(await start_pinned(name, script))
    // Untimed warm-up, so both run optimised code when measured.
    for (const s of servers) await measure(s, { ...LOAD, duration_s: opts.quick ? 1 : 3 })
    const figures = new Map<string, number[]>()
    const runs = new Map<string, CpuFigure[]>()
    const non_2xx: string[] = []
    for (let round = 0; round < opts.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
      for (const server of order) {
        const f = await measure(server, { ...LOAD, duration_s })
        if (f.non_2xx > 0) non_2xx.push(`${server.name}: ${f.non_2xx}`)
        figures.set(server.name, [...(figures.get(server.name) ?? []), f.cpu_us_per_req])
        runs.set(server.name, [...(runs.get(server.name) ?? []), f])
      }
    }
    const { rows, row } = scenario_rows(SCENARIO, figures, 'µs CPU/req')
    for (const r of rows) r.lower_is_better = true
    const bytes = (name: string) =>
      bytes_row(
        SCENARIO,
        name,
        BYTES_UNIT,
        runs.get(name)!.map((f) => ({ allocated: f.allocated, units: f.requests })),
      )
    return {
      name: 'validation',
      rows: [...rows, ...COMPETITORS.map(([name]) => bytes(name))],
      ratios: [
        ratio(SCENARIO, 'fw / fastify', row('fw'), row('fastify'), 0.9),
        cost_ratio(SCENARIO, 'fw / fastify bytes', bytes('fw'), bytes('fastify')),
      ],
      notes: [
        `wrk -c64, ${duration_s} s per run, servers pinned to core 0 and wrk to core 1; server CPU (utime+stime) per answered request, medians over rounds`,
        "ratio = fastify CPU / fw CPU per request (higher is better for fw; 0.9 means fw spends at most 1/0.9 of Fastify's CPU); bytes ratio = fw / fastify V8 heap bytes allocated per request, all rounds pooled (lower is better for fw)",
        `answers that were not 2xx: ${non_2xx.length === 0 ? 'none' : non_2xx.join(', ')}`,
      ],
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
