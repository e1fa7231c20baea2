// What single parts of a request cost, each as a pair of servers that differ by that part alone, measured like every
// HTTP scenario (bench/cpu.ts: pinned servers, wrk on its own core, interleaved rounds, CPU per request): the figures
// behind docs/performance.md's account of where fw's time goes.
import { pathToFileURL } from 'node:url'
import { cost_ratios, on_each_node, type Competitor } from './cpu.js'
import { ECHO, HELLO, PARAM } from './http.js'
import type { BenchReport } from './report.js'

const COMPETITORS: readonly Competitor[] = [
  { name: 'fastify', script: 'http-fastify.ts' },
  { name: 'fastify + context', script: 'http-fastify.ts', env: { FW_BENCH_CONTEXT: '1' } },
  { name: 'fastify + x-request-id', script: 'http-fastify.ts', env: { FW_BENCH_ECHO_ID: '1' } },
  { name: 'fw', script: 'http-fw.ts', env: { FW_LOG_LEVEL: 'off' } },
  { name: 'fw at warn', script: 'http-fw.ts', env: { FW_LOG_LEVEL: 'warn' } },
]

/** Each part: the scenario it is measured on, and the pair (with the part, without it). */
const PARTS = [
  { name: 'an AsyncLocalStorage context held', load: PARAM, pair: ['fastify + context', 'fastify'] },
  { name: 'x-request-id echoed, a UUID each', load: ECHO, pair: ['fastify + x-request-id', 'fastify'] },
  { name: "Fastify's logger, no line written", load: HELLO, pair: ['fw at warn', 'fw'] },
] as const

/** Runs each pair on each Node binary (the machine's alone when quick). */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const scenarios = PARTS.map((p) => ({ name: p.name, load: p.load, competitors: [...p.pair] }))
  const { rows, ratios, note } = await on_each_node(opts, { competitors: COMPETITORS, scenarios }, (node_rows, node) =>
    PARTS.flatMap((p) => cost_ratios(node_rows, p.name, node, p.pair[0], p.pair[1])),
  )
  return {
    name: 'parts',
    rows,
    ratios,
    notes: [
      note,
      'each ratio is a server with one part over the same server without it: raw Fastify holding one AsyncLocalStorage ' +
        'context for the whole process (what a followed request context costs on Node 20 and 22, which turn async hooks ' +
        'on for it); raw Fastify echoing a request id (a UUID drawn by genReqId and an x-request-id header, as fw does by ' +
        'default); fw at FW_LOG_LEVEL=warn against fw at off, which differ by the logger fw hands Fastify and the access ' +
        'line hook, no line being written',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 3, quick: true }), null, 2))
}
