// Hono on @hono/node-server serving the security chain: hono/cors, a plain fixed-window rate limiter (Hono has none of
// its own; never triggered), hono/secure-headers, hono/body-limit (1 MiB), an API key check (SHA-256 digests compared
// in constant time, as fw's api_key does), GET /api/data as JSON.
import { createHash, timingSafeEqual } from 'node:crypto'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { cors } from 'hono/cors'
import { secureHeaders } from 'hono/secure-headers'

const MAX = 1_000_000_000
const KEY_DIGEST = createHash('sha256').update('bench-api-key-0123456789').digest()
const key_ok = (key: unknown): boolean =>
  typeof key === 'string' && timingSafeEqual(createHash('sha256').update(key).digest(), KEY_DIGEST)
const app = new Hono()
const hits = new Map<string, { start: number; n: number }>()
app.use(cors({ origin: 'http://localhost:5173', credentials: true }))
app.use(async (c, next) => {
  const ip = (c.env as { incoming: { socket: { remoteAddress?: string } } }).incoming.socket.remoteAddress ?? ''
  const now = Date.now()
  const w = hits.get(ip)
  const e = w && now - w.start < 60_000 ? w : { start: now, n: 0 }
  e.n++
  hits.set(ip, e)
  if (e.n > MAX) return c.json({ ok: false, error: 'rate_limit_exceeded' }, 429)
  c.header('X-RateLimit-Limit', String(MAX))
  c.header('X-RateLimit-Remaining', String(MAX - e.n))
  return next()
})
app.use(secureHeaders())
app.use(bodyLimit({ maxSize: 1024 * 1024 }))
app.use(async (c, next) => (key_ok(c.req.header('x-api-key')) ? next() : c.json({ ok: false }, 401)))
app.get('/api/data', (c) => c.json({ ok: true, data: { id: 1, name: 'Ada' } }))
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`))
