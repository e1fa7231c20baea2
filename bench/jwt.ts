// JWT scenario: a JWT-protected JSON route with the same HS256 token in fw (`jwt`), Fastify with @fastify/jwt, Express 5 with
// express-jwt and Hono's `hono/jwt`; each server in its own process, loaded by autocannon from here, rounds interleaved.
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { sign_dev_token } from '../lib/middleware/app/auth-presets.js'
import { ratio, scenario_rows, type BenchReport } from './report.js'
import { load, start_server, warm_up, WARM_UP_S, type Server } from './servers.js'

const COMPETITORS = [
  ['fw', 'jwt-fw.ts'],
  ['fastify-jwt', 'jwt-fastify.ts'],
  ['express-jwt', 'jwt-express.ts'],
  ['hono-jwt', 'jwt-hono.ts'],
] as const

const SCENARIO = 'jwt protected json'

/** Runs the JWT scenario; `quick` shortens rounds for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const secret = randomBytes(32).toString('base64url')
  const token = sign_dev_token(secret, { sub: 'bench-user', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 3600 })
  const headers = { authorization: `Bearer ${token}` }
  const servers: Server[] = []
  try {
    for (const [name, script] of COMPETITORS) servers.push(await start_server(name, script, { FW_BENCH_JWT_SECRET: secret }))
    if (!opts.quick) await warm_up(servers, [{ path: '/secure', headers, pipelining: 10 }])
    const figures = new Map<string, number[]>(servers.map((s) => [s.name, []]))
    for (let round = 0; round < opts.rounds; round++) {
      // Rotate the order each round so no competitor always runs first.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
      for (const server of order) {
        figures.get(server.name)!.push(await load(server.port, { path: '/secure', headers, pipelining: 10, duration_s }))
      }
    }
    return report(figures, duration_s)
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

function report(figures: Map<string, number[]>, duration_s: number): BenchReport {
  const { rows, row } = scenario_rows(SCENARIO, figures, 'req/s')
  return {
    name: 'jwt',
    rows,
    ratios: [
      ratio(SCENARIO, 'fw / fastify-jwt', row('fw'), row('fastify-jwt'), 0.9),
      ratio(SCENARIO, 'fw / express-jwt', row('fw'), row('express-jwt'), 2),
      ratio(SCENARIO, 'fw / hono-jwt', row('fw'), row('hono-jwt')),
    ],
    notes: [`GET /secure with one HS256 token (exp checked), autocannon -c 100 -p 10, ${duration_s} s per run after ${WARM_UP_S} s of untimed warm-up; req/s medians over rounds`],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
