// Observability costs on the shared CPU-per-request harness: metrics on vs off, tracing through the API without an SDK,
// and compression of a 20 KiB JSON answer against @fastify/compress. Rounds interleave the competitors.
import type { Allocated } from './allocations.js'
import { BYTES_UNIT, bytes_row } from './cpu.js'
import { cost_ratio, scenario_rows, ratio, type BenchReport, type BenchRow } from './report.js'
import { measure, start_pinned, type WrkLoad } from './wrk.js'

type Case = { scenario: string; name: string; script: string; env: Record<string, string>; load: WrkLoad }

/** Runs every case once per round, interleaved, and reports CPU µs per request. */
export async function bench({ rounds, quick }: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = quick ? 3 : 10
  const users: WrkLoad = { path: '/users/42', duration_s, connections: 32 }
  const big: WrkLoad = {
    path: '/big',
    duration_s,
    connections: 32,
    headers: { 'accept-encoding': 'gzip, deflate, br' },
  }
  const cases: Case[] = [
    { scenario: 'route', name: 'fw plain', script: 'obs-fw.ts', env: { MODE: 'plain' }, load: users },
    { scenario: 'route', name: 'fw metrics', script: 'obs-fw.ts', env: { MODE: 'metrics' }, load: users },
    { scenario: 'route', name: 'fw tracing api', script: 'obs-fw.ts', env: { MODE: 'tracing' }, load: users },
    {
      scenario: '20 KiB JSON compressed',
      name: 'fw compression',
      script: 'obs-fw.ts',
      env: { MODE: 'compress' },
      load: big,
    },
    { scenario: '20 KiB JSON compressed', name: 'fastify compress', script: 'obs-fastify.ts', env: {}, load: big },
  ]
  const figures = new Map<string, Map<string, number[]>>()
  const heap = new Map<string, Array<{ allocated: Allocated; units: number }>>()
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const server = await start_pinned(c.name, c.script, { env: c.env })
      try {
        const f = await measure(server, c.load)
        const by = figures.get(c.scenario) ?? new Map<string, number[]>()
        figures.set(c.scenario, by)
        by.set(c.name, [...(by.get(c.name) ?? []), f.cpu_us_per_req])
        heap.set(c.name, [...(heap.get(c.name) ?? []), { allocated: f.allocated, units: f.requests }])
      } finally {
        await server.stop()
      }
    }
  }
  const route = scenario_rows('route', figures.get('route')!, 'CPU µs/req')
  const zip = scenario_rows('20 KiB JSON compressed', figures.get('20 KiB JSON compressed')!, 'CPU µs/req')
  const rows: BenchRow[] = [...route.rows, ...zip.rows].map((r) => ({ ...r, lower_is_better: true }))
  const row = (name: string) => rows.find((r) => r.competitor === name)!
  const bytes = (name: string) =>
    bytes_row(cases.find((c) => c.name === name)!.scenario, name, BYTES_UNIT, heap.get(name)!)
  rows.push(...cases.map((c) => bytes(c.name)))
  return {
    name: 'observability',
    rows,
    ratios: [
      // With lower_is_better a ratio is the second row's CPU over the first's: a speed, held to >= its target.
      ratio('route', 'fw plain / fw metrics speed (metrics cost <= 5%)', row('fw metrics'), row('fw plain'), 0.95),
      ratio(
        'route',
        'fw plain / fw tracing API speed (no SDK, cost <= 2%)',
        row('fw tracing api'),
        row('fw plain'),
        0.98,
      ),
      ratio(
        '20 KiB JSON compressed',
        'fw / @fastify/compress speed',
        row('fw compression'),
        row('fastify compress'),
        0.95,
      ),
      cost_ratio('route', 'fw metrics / fw plain bytes', bytes('fw metrics'), bytes('fw plain')),
      cost_ratio('route', 'fw tracing api / fw plain bytes', bytes('fw tracing api'), bytes('fw plain')),
      cost_ratio(
        '20 KiB JSON compressed',
        'fw / @fastify/compress bytes',
        bytes('fw compression'),
        bytes('fastify compress'),
      ),
    ],
    notes: [
      'each case is a fresh server per round, measured once (no warm-up); bytes: V8 heap bytes allocated per request, all rounds pooled (lower is better)',
      'fw JSON logging against raw pino is the log bench (bench/log.ts), whose lines now all go through pino.',
    ],
  }
}
