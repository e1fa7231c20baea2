// Session scenario by CPU per request (bench/cpu.ts): a route reading the session's user with `rolling: true` (the
// cookie and the store's ttl renewed on every request) in fw (`session`) and Fastify with @fastify/cookie and
// @fastify/session.
import { createHmac, randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { fw_against, on_each_node } from './cpu.js'
import type { BenchReport } from './report.js'

const SCENARIO = 'session rolling'
const NAMES = ['fw', 'fastify-session']

/**
 * One Cookie header valid on both servers: fw's `sid` (`<id>.<HMAC-SHA256 base64url>`) and @fastify/session's
 * `sessionId` (`<id>.<HMAC-SHA256 base64 without padding>`, URL-encoded), for the session each server stores before
 * listening.
 */
function cookies(id: string, secret: string): string {
  const mac = createHmac('sha256', secret).update(id).digest()
  return `sid=${id}.${mac.toString('base64url')}; sessionId=${encodeURIComponent(`${id}.${mac.toString('base64').replace(/=+$/, '')}`)}`
}

/** Runs the session scenario on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const secret = randomBytes(32).toString('base64url')
  const id = randomBytes(24).toString('base64url')
  const env = { FW_BENCH_SESSION_SECRET: secret, FW_BENCH_SESSION_ID: id, FW_LOG_LEVEL: 'off' }
  const competitors = NAMES.map((name) => ({ name, script: `session-${name.replace('-session', '')}.ts`, env }))
  const scenarios = [
    { name: SCENARIO, load: { path: '/me', headers: { cookie: cookies(id, secret) } }, competitors: NAMES },
  ]
  // Target: at least 0.9x of @fastify/session's efficiency, so fw's CPU per request at most 1 / 0.9 of it.
  const { rows, ratios, note } = await on_each_node(
    opts,
    { competitors, scenarios, control: { scenario: SCENARIO, of: 'fastify-session' } },
    (node_rows, node) => fw_against(node_rows, SCENARIO, node, { 'fastify-session': { cpu: 1 / 0.9 } }),
  )
  return {
    name: 'session',
    rows,
    ratios,
    notes: [
      'GET /me with a valid session cookie; both renew the cookie and the in-memory store entry on every request (rolling) ' +
        `and answer the stored user as JSON; fw with FW_LOG_LEVEL=off; ${note}`,
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
