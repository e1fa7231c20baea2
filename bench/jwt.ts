// JWT scenario by CPU per request (bench/cpu.ts): a JWT-protected JSON route with the same HS256 token in fw (`jwt`),
// Fastify with @fastify/jwt, Express 5 with express-jwt and Hono's `hono/jwt`, each server pinned to core 0, wrk on core 1.
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { sign_dev_token } from '../lib/middleware/app/auth-presets.js'
import { cpu_ratio, on_each_node } from './cpu.js'
import type { BenchReport } from './report.js'

const SCENARIO = 'jwt protected json'
const NAMES = ['fw', 'fastify-jwt', 'express-jwt', 'hono-jwt']

/** Runs the JWT scenario on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const secret = randomBytes(32).toString('base64url')
  const token = sign_dev_token(secret, { sub: 'bench-user', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 3600 })
  const env = { FW_BENCH_JWT_SECRET: secret, FW_LOG_LEVEL: 'off' }
  const competitors = NAMES.map((name) => ({ name, script: `jwt-${name.replace('-jwt', '')}.ts`, env }))
  const scenarios = [{ name: SCENARIO, load: { path: '/secure', headers: { authorization: `Bearer ${token}` } }, competitors: NAMES }]
  const { rows, ratios, note } = await on_each_node(opts, { competitors, scenarios }, (node_rows, node) => [
    cpu_ratio(node_rows, SCENARIO, node, 'fw', 'fastify-jwt', 1),
    cpu_ratio(node_rows, SCENARIO, node, 'fw', 'express-jwt', 0.5),
    cpu_ratio(node_rows, SCENARIO, node, 'fw', 'hono-jwt'),
  ])
  return {
    name: 'jwt',
    rows,
    ratios,
    notes: [`GET /secure with one HS256 token (exp checked); fw with its defaults and FW_LOG_LEVEL=off; ${note}`],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
