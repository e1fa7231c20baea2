// The recommended security chain (CORS, rate limit that never triggers, security headers, body limit, API key, JSON
// route) in fw, Fastify (@fastify/cors, @fastify/rate-limit, @fastify/helmet), Express 5 (cors, express-rate-limit,
// helmet) and Hono (hono/cors, hono/secure-headers, hono/body-limit, a plain rate limiter). Each server runs in its own
// process: this file started again with SECURITY_BENCH_SERVER=<name>, pinned to core 0 and loaded by wrk on core 1
// (bench/cpu.ts).
import { createHash, timingSafeEqual } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { cpu_ratio, on_each_node } from './cpu.js'
import type { BenchReport } from './report.js'
import { announce } from './servers.js'

const ORIGIN = 'http://localhost:5173'
const KEY = 'bench-api-key-0123456789'
const HEADERS = { origin: ORIGIN, 'x-api-key': KEY }
const PATH = '/api/data'
const SCENARIO = 'security chain'
const BODY = { ok: true, data: { id: 1, name: 'Ada' } }
const HUGE = 1_000_000_000
const MiB = 1024 * 1024

const KEY_DIGEST = createHash('sha256').update(KEY).digest()
/** The API key check every competitor's hook uses: SHA-256 digests compared in constant time, as fw's api_key does. */
const key_ok = (key: unknown): boolean =>
  typeof key === 'string' && timingSafeEqual(createHash('sha256').update(key).digest(), KEY_DIGEST)

const SERVERS: Record<string, () => Promise<number>> = {
  async fw() {
    const { App, adapt_ctx, middleware } = await import('../index.js')
    const { cors, rate_limit, security_headers, body_limit } = middleware.security
    const app = new App({ host: '127.0.0.1' })
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
    return new Promise((resolve) =>
      serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)),
    )
  },
}

/** Runs the security chain benchmark on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const names = Object.keys(SERVERS)
  // Each server is this file started again with SECURITY_BENCH_SERVER=<name>; fw with its defaults and logging off.
  const competitors = names.map((name) => ({
    name,
    script: '../security.ts',
    env: { SECURITY_BENCH_SERVER: name, FW_LOG_LEVEL: 'off' },
  }))
  const scenarios = [{ name: SCENARIO, load: { path: PATH, headers: HEADERS }, competitors: names }]
  const { rows, ratios, note } = await on_each_node(opts, { competitors, scenarios }, (node_rows, node) => [
    cpu_ratio(node_rows, SCENARIO, node, 'fw', 'fastify', 1),
    cpu_ratio(node_rows, SCENARIO, node, 'fw', 'express', 0.5),
    cpu_ratio(node_rows, SCENARIO, node, 'fw', 'hono'),
  ])
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

const serve_as = process.env.SECURITY_BENCH_SERVER
if (serve_as !== undefined) {
  const start = SERVERS[serve_as]
  if (start === undefined) throw new Error(`unknown server ${serve_as}`)
  announce(await start())
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 5 }), null, 2))
}
