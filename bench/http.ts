// HTTP scenarios by CPU per request (bench/cpu.ts): JSON hello, path parameter + query, POST JSON echo and 5 no-op
// middleware, fw against raw Fastify doing the same work, logging off and access log to a file; Hono and node:http as
// references. Every server in its own process pinned to core 0, wrk on core 1, on the machine's Node and on Node 24.
import { pathToFileURL } from 'node:url'
import { cost_ratios, on_each_node, type Competitor, type CpuScenario } from './cpu.js'
import type { BenchReport } from './report.js'

/** fw with its defaults; logging off, or on at info with the access line written to a file (FW_BENCH_LOG_FILE). */
export const COMPETITORS: readonly Competitor[] = [
  { name: 'fastify', script: 'http-fastify.ts' },
  { name: 'fw', script: 'http-fw.ts', env: { FW_LOG_LEVEL: 'off' } },
  { name: 'hono', script: 'http-hono.ts' },
  { name: 'node:http', script: 'http-node.ts' },
  { name: 'fastify logger', script: 'http-fastify.ts', log_file: true },
  { name: 'fw access log', script: 'http-fw.ts', env: { FW_LOG_LEVEL: 'info' }, log_file: true },
]

/** The JSON hello scenario's request. */
export const HELLO = { path: '/hello' }
/** The path parameter + query scenario's request. */
export const PARAM = { path: '/users/42?fields=name,email' }
/** The POST JSON echo scenario's request. */
export const ECHO = { path: '/echo', method: 'POST', body: JSON.stringify({ name: 'Ada', tags: ['a', 'b'], n: 42 }) }
const PLAIN = ['fastify', 'fw', 'hono', 'node:http']
const LOGGED = ['fastify logger', 'fw access log']

/** fw / raw Fastify: at most 1.10x CPU and 1.25x bytes per request (issue 25). */
const PLAIN_TARGETS = { cpu: 1.1, bytes: 1.25 }
/** fw's access log / Fastify's logger at info: at most 1.10x CPU per request. */
const LOGGED_TARGETS = { cpu: 1.1 }

/** Each scenario, its competitors and the ceilings of fw / its Fastify counterpart per request. */
const SCENARIOS: Array<CpuScenario & { pair: [string, string]; targets: { cpu?: number; bytes?: number } }> = [
  {
    name: 'json hello',
    load: HELLO,
    competitors: PLAIN,
    pair: ['fw', 'fastify'],
    targets: PLAIN_TARGETS,
  },
  { name: 'param + query', load: PARAM, competitors: PLAIN, pair: ['fw', 'fastify'], targets: PLAIN_TARGETS },
  { name: 'post json echo', load: ECHO, competitors: PLAIN, pair: ['fw', 'fastify'], targets: PLAIN_TARGETS },
  {
    name: '5 middleware',
    load: { path: '/mw/hello' },
    competitors: PLAIN,
    pair: ['fw', 'fastify'],
    targets: PLAIN_TARGETS,
  },
  ...[
    ['json hello', HELLO],
    ['param + query', PARAM],
    ['post json echo', ECHO],
  ].map(([name, load]) => ({
    name: `${name as string}, logged to a file`,
    load: load as CpuScenario['load'],
    competitors: LOGGED,
    pair: ['fw access log', 'fastify logger'] as [string, string],
    targets: LOGGED_TARGETS,
  })),
]

/** The quick mode's subset: JSON hello in both logging set-ups, fw and Fastify only, on the machine's Node. */
const QUICK = SCENARIOS.filter((s) => s.name.startsWith('json hello')).map((s) => ({ ...s, competitors: s.pair }))

/** Runs the HTTP scenarios; `quick` measures JSON hello only, on the machine's Node, in under a minute. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const scenarios = opts.quick ? QUICK : SCENARIOS
  const used = new Set(scenarios.flatMap((s) => s.competitors))
  const competitors = COMPETITORS.filter((c) => used.has(c.name))
  const control = { scenario: 'json hello', of: 'fastify' }
  const { rows, ratios, note } = await on_each_node(opts, { competitors, scenarios, control }, (node_rows, node) =>
    scenarios.flatMap((s) => [
      ...cost_ratios(node_rows, s.name, node, s.pair[0], s.pair[1], s.targets),
      ...(s.competitors.includes('hono') ? cost_ratios(node_rows, s.name, node, 'fw', 'hono') : []),
    ]),
  )
  return {
    name: 'http',
    rows,
    ratios,
    notes: [
      note,
      'fw runs with its defaults (request ids, access log at info); "fw" has FW_LOG_LEVEL=off, "fw access log" writes its access line to a file in async mode (buffered, as pino\'s SonicBoom writes Fastify\'s); ' +
        '"fastify" has its logger off, "fastify logger" logs at info to a file (its two lines per request); 5 middleware: fw app.use no-ops against 5 no-op onRequest hooks',
      'every server file imports only its framework, its plugins and Node built-ins (test/bench/servers.test.ts holds them to it), so no harness code shifts its heap or JIT state',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
