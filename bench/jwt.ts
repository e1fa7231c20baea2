// JWT scenarios by CPU per request (bench/cpu.ts): a JWT-protected JSON route with the same HS256 token in fw (`jwt`),
// Fastify with @fastify/jwt, Express 5 with express-jwt and Hono's `hono/jwt`; and RS256 / ES256 tokens with the same
// public keys in fw and @fastify/jwt. Each server pinned to core 0, wrk on core 1.
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { createSigner } from 'fast-jwt'
import { sign_dev_token } from '../lib/middleware/app/auth-presets.js'
import { cost_ratios, fw_against, on_each_node } from './cpu.js'
import type { BenchReport } from './report.js'

const SCENARIO = 'jwt protected json'
/** fw's ceilings against each competitor of the HS256 scenario. */
const AGAINST = { 'fastify-jwt': { cpu: 1 }, 'express-jwt': { cpu: 0.5 }, 'hono-jwt': {} }
const NAMES = ['fw', ...Object.keys(AGAINST)]
const ASYMMETRIC = [
  { alg: 'RS256', keys: () => generateKeyPairSync('rsa', { modulusLength: 2048 }) },
  { alg: 'ES256', keys: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
] as const

/**
 * For each asymmetric algorithm: an fw and an @fastify/jwt server verifying with one new public key, and its scenario.
 */
function asymmetric(claims: Record<string, unknown>) {
  return ASYMMETRIC.map(({ alg, keys }) => {
    const { privateKey, publicKey } = keys()
    const token = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: alg })(
      claims,
    )
    const env = {
      FW_BENCH_JWT_ALG: alg,
      FW_BENCH_JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }) as string,
      FW_LOG_LEVEL: 'off',
    }
    const names = [`fw ${alg}`, `fastify-jwt ${alg}`] as const
    return {
      scenario: {
        name: `jwt ${alg} verify`,
        load: { path: '/secure', headers: { authorization: `Bearer ${token}` } },
        competitors: names,
      },
      competitors: [
        { name: names[0], script: 'jwt-fw.ts', env },
        { name: names[1], script: 'jwt-fastify.ts', env },
      ],
    }
  })
}

/** Runs the JWT scenario on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const secret = randomBytes(32).toString('base64url')
  const claims = { sub: 'bench-user', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 3600 }
  const token = sign_dev_token(secret, claims)
  const env = { FW_BENCH_JWT_SECRET: secret, FW_LOG_LEVEL: 'off' }
  const signed = asymmetric(claims)
  const competitors = [
    ...NAMES.map((name) => ({ name, script: `jwt-${name.replace('-jwt', '')}.ts`, env })),
    ...signed.flatMap((a) => a.competitors),
  ]
  const scenarios = [
    { name: SCENARIO, load: { path: '/secure', headers: { authorization: `Bearer ${token}` } }, competitors: NAMES },
    ...signed.map((a) => a.scenario),
  ]
  const { rows, ratios, note } = await on_each_node(
    opts,
    { competitors, scenarios, control: { scenario: SCENARIO, of: 'fastify-jwt' } },
    (node_rows, node) => [
      ...fw_against(node_rows, SCENARIO, node, AGAINST),
      // Target: at least 0.95x of @fastify/jwt's efficiency, so fw's CPU per request at most 1 / 0.95 of it.
      ...signed.flatMap(({ scenario: s }) =>
        cost_ratios(node_rows, s.name, node, s.competitors[0], s.competitors[1], { cpu: 1 / 0.95 }),
      ),
    ],
  )
  return {
    name: 'jwt',
    rows,
    ratios,
    notes: [
      `GET /secure with one HS256 token (exp checked); fw with its defaults and FW_LOG_LEVEL=off; ${note}`,
      'jwt RS256 / ES256 verify: one token signed with a new RSA 2048 / P-256 key, both servers given the same PEM public key ' +
        'and that algorithm alone; fw with its verified-token cache off (cache_size: 0), as @fastify/jwt is by default, so ' +
        'every request checks the signature',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
