// HTTP scenarios: JSON hello, path parameter + query, POST JSON echo, 5 no-op middleware; node:http, Fastify, fw, Express 5
// and Hono in the same run, each in its own process, rounds interleaved, at pipelining 10 and 1.
import { pathToFileURL } from 'node:url'
import { median, ratio, type BenchReport, type BenchRow } from './report.js'
import { load, start_server, warm_up, WARM_UP_S, type Load, type Server } from './servers.js'

const COMPETITORS = [
  ['node:http', 'http-node.ts'],
  ['fastify', 'http-fastify.ts'],
  ['fw', 'http-fw.ts'],
  ['express', 'http-express.ts'],
  ['hono', 'http-hono.ts'],
] as const

const SCENARIOS: Array<{ name: string; load: Omit<Load, 'duration_s' | 'pipelining'>; target: number }> = [
  { name: 'json hello', load: { path: '/hello' }, target: 0.9 },
  { name: 'param + query', load: { path: '/users/42?fields=name,email' }, target: 0.9 },
  { name: 'post json echo', load: { path: '/echo', method: 'POST', body: JSON.stringify({ name: 'Ada', tags: ['a', 'b'], n: 42 }) }, target: 0.9 },
  { name: '5 middleware', load: { path: '/mw/hello' }, target: 0.85 },
]

/** Runs the HTTP scenarios; `quick` shortens rounds for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const servers: Server[] = []
  try {
    for (const [name, script] of COMPETITORS) servers.push(await start_server(name, script))
    if (!opts.quick) await warm_up(servers, SCENARIOS.map((s) => s.load))
    const figures = new Map<string, number[]>()
    const pipelinings = opts.quick ? [10] : [10, 1]
    for (let round = 0; round < opts.rounds; round++) {
      for (const s of SCENARIOS) {
        for (const p of pipelinings) {
          // Rotate the order each round so no competitor always runs first on a cold machine.
          const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
          for (const server of order) {
            const rps = await load(server.port, { ...s.load, pipelining: p, duration_s })
            const key = `${s.name} -p${p}|${server.name}`
            figures.set(key, [...(figures.get(key) ?? []), rps])
          }
        }
      }
    }
    return report(figures, pipelinings)
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

function report(figures: Map<string, number[]>, pipelinings: number[]): BenchReport {
  const rows: BenchRow[] = []
  for (const [key, rounds] of figures) {
    const [scenario, competitor] = key.split('|') as [string, string]
    rows.push({ scenario, competitor, median: median(rounds), rounds, unit: 'req/s' })
  }
  const ratios = []
  for (const s of SCENARIOS) {
    for (const p of pipelinings) {
      const scenario = `${s.name} -p${p}`
      const row = (c: string): BenchRow => rows.find((r) => r.scenario === scenario && r.competitor === c)!
      ratios.push(
        ratio(scenario, 'fw / fastify', row('fw'), row('fastify'), s.target),
        ratio(scenario, 'fw / express', row('fw'), row('express'), 2),
        ratio(scenario, 'fw / hono', row('fw'), row('hono')),
        ratio(scenario, 'fw / node:http', row('fw'), row('node:http')),
      )
    }
  }
  return { name: 'http', rows, ratios, notes: [`autocannon -c 100, 2 s per run after ${WARM_UP_S} s of untimed warm-up per route and server; req/s medians over rounds`] }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
