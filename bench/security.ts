// The recommended security chain (CORS, rate limit that never triggers, security headers, body limit, API key, JSON route)
// in fw, Fastify (@fastify/cors, @fastify/rate-limit, @fastify/helmet), Express 5 (cors, express-rate-limit, helmet) and Hono
// (hono/cors, hono/secure-headers, hono/body-limit, a plain rate limiter). Each server runs in its own process: this file
// started again with SECURITY_BENCH_SERVER=<name>.
import { createHash, timingSafeEqual } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { ratio, scenario_rows, type BenchReport } from './report.js'
import { announce, load, start_server, warm_up, WARM_UP_S, type Server } from './servers.js'

const ORIGIN = 'http://localhost:5173'
const KEY = 'bench-api-key-0123456789'
const HEADERS = { origin: ORIGIN, 'x-api-key': KEY }
const PATH = '/api/data'
const BODY = { ok: true, data: { id: 1, name: 'Ada' } }
const HUGE = 1_000_000_000
const MiB = 1024 * 1024

const KEY_DIGEST = createHash('sha256').update(KEY).digest()
/** The API key check every competitor's hook uses: SHA-256 digests compared in constant time, as fw's api_key does. */
const key_ok = (key: unknown): boolean =>
  typeof key === 'string' && timingSafeEqual(createHash('sha256').update(key).digest(), KEY_DIGEST)

const SERVERS: Record<string, () => Promise<number>> = {
  async fw() {
    const { App, adapt_ctx, middleware } = await import('../lib/index.js')
    const { cors, rate_limit, security_headers, body_limit } = middleware.security
    const app = new App({ host: '127.0.0.1', request_id: false, access_log: false })
    app.use(adapt_ctx(cors({ origins: [ORIGIN], allow_credentials: true })))
    app.use(adapt_ctx(rate_limit({ max_requests: HUGE, window_seconds: 60 })))
    app.use(adapt_ctx(security_headers()))
    app.use(adapt_ctx(body_limit({ max_bytes: MiB })))
    app.use(adapt_ctx(middleware.auth.api_key({ allowed_keys: [KEY] })))
    app.get(PATH, (_req, res) => void res.json(BODY))
    return app.listen(0)
  },

  async fastify() {
    const { default: Fastify } = await import('fastify')
    const f = Fastify({ bodyLimit: MiB })
    await f.register((await import('@fastify/cors')).default, { origin: [ORIGIN], credentials: true })
    await f.register((await import('@fastify/rate-limit')).default, { max: HUGE, timeWindow: 60_000 })
    await f.register((await import('@fastify/helmet')).default)
    f.addHook('onRequest', async (req, reply) => {
      if (!key_ok(req.headers['x-api-key'])) return reply.code(401).send({ ok: false, error: 'missing_api_key' })
    })
    f.get(PATH, async () => BODY)
    await f.listen({ port: 0, host: '127.0.0.1' })
    return (f.server.address() as { port: number }).port
  },

  async express() {
    const { default: express } = await import('express')
    const { default: cors } = await import('cors')
    const { rateLimit } = await import('express-rate-limit')
    const { default: helmet } = await import('helmet')
    const app = express()
    app.disable('x-powered-by')
    app.use(cors({ origin: [ORIGIN], credentials: true }))
    app.use(rateLimit({ windowMs: 60_000, limit: HUGE, legacyHeaders: true, standardHeaders: false }))
    app.use(helmet())
    app.use(express.json({ limit: MiB }))
    app.use((req, res, next) => (key_ok(req.headers['x-api-key']) ? next() : void res.status(401).json({ ok: false })))
    app.get(PATH, (_req, res) => void res.json(BODY))
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port))
    })
  },

  async hono() {
    const { serve } = await import('@hono/node-server')
    const { Hono } = await import('hono')
    const { cors } = await import('hono/cors')
    const { secureHeaders } = await import('hono/secure-headers')
    const { bodyLimit } = await import('hono/body-limit')
    const app = new Hono()
    // Hono has no rate limiter of its own: a plain fixed window per client address.
    const hits = new Map<string, { start: number; n: number }>()
    app.use(cors({ origin: ORIGIN, credentials: true }))
    app.use(async (c, next) => {
      const ip = (c.env as { incoming: { socket: { remoteAddress?: string } } }).incoming.socket.remoteAddress ?? ''
      const now = Date.now()
      const w = hits.get(ip)
      const e = w && now - w.start < 60_000 ? w : { start: now, n: 0 }
      e.n++
      hits.set(ip, e)
      if (e.n > HUGE) return c.json({ ok: false, error: 'rate_limit_exceeded' }, 429)
      c.header('X-RateLimit-Limit', String(HUGE))
      c.header('X-RateLimit-Remaining', String(HUGE - e.n))
      return next()
    })
    app.use(secureHeaders())
    app.use(bodyLimit({ maxSize: MiB }))
    app.use(async (c, next) => (key_ok(c.req.header('x-api-key')) ? next() : c.json({ ok: false }, 401)))
    app.get(PATH, (c) => c.json(BODY))
    return new Promise((resolve) => serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)))
  },
}

/** Runs the security chain benchmark; `quick` shortens rounds for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const servers: Server[] = []
  try {
    for (const name of Object.keys(SERVERS)) {
      servers.push(await start_server(name, '../security.ts', { SECURITY_BENCH_SERVER: name }))
    }
    if (!opts.quick) await warm_up(servers, [{ path: PATH, headers: HEADERS }])
    const figures = new Map<string, number[]>(servers.map((s) => [s.name, []]))
    for (let round = 0; round < opts.rounds; round++) {
      // Rotate the order each round so no competitor always runs first.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
      for (const s of order) figures.get(s.name)!.push(await load(s.port, { path: PATH, headers: HEADERS, duration_s }))
    }
    return report(figures, duration_s)
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

function report(figures: Map<string, number[]>, duration_s: number): BenchReport {
  const scenario = 'security chain'
  const { rows, row } = scenario_rows(scenario, figures, 'req/s')
  return {
    name: 'security',
    rows,
    ratios: [
      ratio(scenario, 'fw / fastify', row('fw'), row('fastify'), 1.0),
      ratio(scenario, 'fw / express', row('fw'), row('express'), 2),
      ratio(scenario, 'fw / hono', row('fw'), row('hono'), 1.1),
    ],
    notes: [
      `GET ${PATH} with Origin and x-api-key; CORS, rate limit (never triggered), security headers, 1 MiB body limit, API key, JSON`,
      `autocannon -c 100 -p 10, ${duration_s} s per run after ${WARM_UP_S} s of untimed warm-up, rounds interleaved; req/s medians; helmet and secureHeaders with their defaults`,
    ],
  }
}

const serve_as = process.env.SECURITY_BENCH_SERVER
if (serve_as !== undefined) {
  const start = SERVERS[serve_as]
  if (start === undefined) throw new Error(`unknown server ${serve_as}`)
  announce(await start())
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 5 }), null, 2))
}
