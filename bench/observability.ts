// Observability costs by CPU per request (bench/cpu.ts): metrics on against off, tracing through the API without an
// SDK, and compression of a 20 KiB JSON answer against @fastify/compress. Each server pinned to core 0, wrk on core 1,
// on the machine's Node and on Node 24.
import { pathToFileURL } from 'node:url'
import { cost_ratios, on_each_node, type Competitor } from './cpu.js'
import type { BenchReport } from './report.js'

const ROUTE = 'route'
const ZIP = '20 KiB JSON compressed'

/** fw with its defaults and FW_LOG_LEVEL=off in each mode of bench/servers/obs-fw.ts. */
const fw = (name: string, mode: string): Competitor => ({
  name,
  script: 'obs-fw.ts',
  env: { MODE: mode, FW_LOG_LEVEL: 'off' },
})
const COMPETITORS: Competitor[] = [
  fw('fw plain', 'plain'),
  fw('fw metrics', 'metrics'),
  fw('fw tracing api', 'tracing'),
  fw('fw compression', 'compress'),
  { name: 'fastify compress', script: 'obs-fastify.ts' },
]

/** Runs the observability scenarios on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const scenarios = [
    { name: ROUTE, load: { path: '/users/42' }, competitors: ['fw plain', 'fw metrics', 'fw tracing api'] },
    {
      name: ZIP,
      load: { path: '/big', headers: { 'accept-encoding': 'gzip, deflate, br' } },
      competitors: ['fw compression', 'fastify compress'],
    },
  ]
  // The route scenario's ratios are fw against fw: a second plain process shows how far two of them land apart.
  const control = [
    { scenario: ROUTE, of: 'fw plain' },
    { scenario: ZIP, of: 'fastify compress' },
  ]
  const setup = { competitors: COMPETITORS, scenarios, control }
  const { rows, ratios, note } = await on_each_node(opts, setup, (node_rows, node) => [
    // Ceilings from the costs allowed: metrics at most 5% of a route's speed, the tracing API without an SDK 2%,
    // compression at least 0.95x of @fastify/compress's speed.
    ...cost_ratios(node_rows, ROUTE, node, 'fw metrics', 'fw plain', { cpu: 1 / 0.95 }),
    ...cost_ratios(node_rows, ROUTE, node, 'fw tracing api', 'fw plain', { cpu: 1 / 0.98 }),
    ...cost_ratios(node_rows, ZIP, node, 'fw compression', 'fastify compress', { cpu: 1 / 0.95 }),
  ])
  return {
    name: 'observability',
    rows,
    ratios,
    notes: [
      note,
      'fw with its defaults and FW_LOG_LEVEL=off: plain, with app.metrics(), with app.tracing() and no OpenTelemetry SDK, and with the compression middleware; Fastify with @fastify/compress; the compressed answer is a 20 KiB JSON body asked for with accept-encoding: gzip, deflate, br',
      'fw JSON logging against raw pino is the log bench (bench/log.ts), whose lines all go through pino',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
