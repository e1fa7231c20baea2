// The recommended security chain (CORS, rate limit that never triggers, security headers, body limit, API key, JSON
// route) in fw, Fastify (@fastify/cors, @fastify/rate-limit, @fastify/helmet), Express 5 (cors, express-rate-limit,
// helmet) and Hono (hono/cors, hono/secure-headers, hono/body-limit, a plain rate limiter): bench/servers/security-*.ts,
// each pinned to core 0 and loaded by wrk on core 1 (bench/cpu.ts).
import { pathToFileURL } from 'node:url'
import { fw_against, on_each_node } from './cpu.js'
import type { BenchReport } from './report.js'

const HEADERS = { origin: 'http://localhost:5173', 'x-api-key': 'bench-api-key-0123456789' }
const PATH = '/api/data'
const SCENARIO = 'security chain'
/** fw's ceilings against each competitor. */
const AGAINST = { fastify: { cpu: 1 }, express: { cpu: 0.5 }, hono: {} }
const NAMES = ['fw', ...Object.keys(AGAINST)]

/** Runs the security chain benchmark on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  // fw with its defaults and logging off.
  const competitors = NAMES.map((name) => ({ name, script: `security-${name}.ts`, env: { FW_LOG_LEVEL: 'off' } }))
  const scenarios = [{ name: SCENARIO, load: { path: PATH, headers: HEADERS }, competitors: NAMES }]
  const { rows, ratios, note } = await on_each_node(
    opts,
    { competitors, scenarios, control: { scenario: SCENARIO, of: 'fastify' } },
    (node_rows, node) => fw_against(node_rows, SCENARIO, node, AGAINST),
  )
  return {
    name: 'security',
    rows,
    ratios,
    notes: [
      `GET ${PATH} with Origin and x-api-key; CORS, rate limit (never triggered), security headers, 1 MiB body limit, API key, JSON; helmet and secureHeaders with their defaults`,
      note,
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 5 }), null, 2))
}
