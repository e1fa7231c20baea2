// The Redis benchmark's server: a session counter and a rate-limited route, with memory stores or Redis stores.
// Env: STORE (memory or redis), REDIS_PORT. Prints `listening <port>`.
import { App, adapt_ctx, middleware } from '../../index.js'
import { create_redis_client, RedisRateLimitStore, RedisSessionStore } from '../../lib/redis/index.js'

const { session, Session } = middleware.auth
const { rate_limit, MemoryRateLimitStore } = middleware.security
const redis =
  process.env.STORE === 'redis'
    ? create_redis_client({ host: '127.0.0.1', port: Number(process.env.REDIS_PORT) })
    : undefined
const stores =
  redis === undefined
    ? { sessions: new middleware.auth.InMemorySessionStore(), limits: new MemoryRateLimitStore() }
    : { sessions: new RedisSessionStore({ client: redis }), limits: new RedisRateLimitStore({ client: redis }) }

const app = new App({ host: '127.0.0.1' })
app.use('/session', adapt_ctx(session({ secret: 'bench-session-secret-0123456789abcdef', store: stores.sessions })))
app.use(
  '/limited',
  adapt_ctx(rate_limit({ max_requests: 1_000_000_000, window_seconds: 60, store: stores.limits, namespace: 'bench' })),
)
app.get('/session', (req, res) => {
  const s = req.state(Session)!
  const n = Number(s.get('n') ?? '0') + 1
  s.set('n', String(n))
  res.text(`n=${n}`)
})
app.get('/limited', (_req, res) => void res.json('ok', true))
if (redis !== undefined) app.on_close(() => redis.quit())
process.stdout.write(`listening ${await app.listen(0)}\n`)
process.once('SIGTERM', () => void app.close())
