// Redis killed, paused (DEBUG SLEEP) and answering LOADING (DEBUG RELOAD slowed by key-load-delay) while requests keep
// coming: every answer is the documented degradation of docs/redis.md (sessions 503, a closed rate limit 503, the cache
// a bypass), none waits much past the 1 s command timeout, none is a 500, and all are 200 again soon after Redis is
// back.
import t from 'tap'
import { Redis } from 'ioredis'
import * as fw from '../../index.js'
import { RedisCacheStore, RedisRateLimitStore, RedisSessionStore, create_redis_client } from '../../lib/redis/index.js'
import { build } from '../helpers/build.js'
import { start_redis, type RedisServer } from '../helpers/redis-server.js'
import type { App } from '../../index.js'
import type { Test } from 'tap'

const { session } = fw.middleware.auth
const { http_cache, rate_limit } = fw.middleware.app

interface Answer {
  path: string
  status: number
  code: string
  ms: number
  at: number
}

/** An App whose three routes each depend on one Redis store. */
function redis_app(t: Test, redis: RedisServer): App {
  const client = create_redis_client(redis.url)
  t.teardown(() => client.disconnect())
  return build(t, (app) => {
    app.use(
      '/session',
      fw.adapt_ctx(
        session({ secret: 'a-session-secret-for-tests-0123456789', store: new RedisSessionStore({ client }) }),
      ),
    )
    app.use(
      '/limited',
      rate_limit({
        max_requests: 1_000_000,
        window_seconds: 60,
        store: new RedisRateLimitStore({ client }),
        namespace: 'faults',
      }),
    )
    app.use('/cached', http_cache({ store: new RedisCacheStore({ client }) }))
    app.get('/session', (req, res) => {
      req.state(fw.middleware.auth.Session)!.set('seen', 'yes')
      res.json('ok', true)
    })
    app.get('/limited', (_req, res) => void res.json('ok', true))
    app.get('/cached', (_req, res) => void res.json('ok', true))
  })
}

/**
 * Eight clients, each keeping one route busy (three, three and two per route), until `fault()` has run and `after_ms`
 * more passed; every answer, timed. A client stays on its route so that every route has a request waiting on Redis when
 * the fault starts: clients cycling over the routes could all be on one route at that moment, and a 2 s pause only
 * fails the first wave of commands (the next ones are answered within the 1 s timeout).
 */
async function under_load(
  app: App,
  fault: () => Promise<unknown>,
  after_ms: number,
): Promise<{ answers: Answer[]; back_at: number }> {
  const answers: Answer[] = []
  let stop = false
  const paths = ['/session', '/limited', '/cached']
  const client = async (k: number): Promise<void> => {
    const path = paths[k % 3]!
    while (!stop) {
      const started = Date.now()
      const r = await app.inject({ url: path })
      const code = r.statusCode === 200 ? '' : String((r.json() as { error?: string }).error)
      answers.push({ path, status: r.statusCode, code, ms: Date.now() - started, at: Date.now() })
    }
  }
  const clients = Array.from({ length: 8 }, (_, k) => client(k))
  await new Promise((resolve) => setTimeout(resolve, 200))
  await fault()
  const back_at = Date.now()
  await new Promise((resolve) => setTimeout(resolve, after_ms))
  stop = true
  await Promise.all(clients)
  return { answers, back_at }
}

/** The checks every fault shares. */
function degraded_then_back(
  t: Test,
  { answers, back_at }: { answers: Answer[]; back_at: number },
  recovery_ms: number,
): void {
  const kinds = new Set(answers.map((a) => `${a.path} ${a.status} ${a.code}`))
  const allowed = new Set([
    '/session 200 ',
    '/limited 200 ',
    '/cached 200 ',
    '/session 503 session_store_unavailable',
    '/limited 503 rate_limit_unavailable',
  ])
  t.same(
    [...kinds].filter((k) => !allowed.has(k)),
    [],
    'only 200 and the documented 503s',
  )
  t.ok(
    kinds.has('/session 503 session_store_unavailable') && kinds.has('/limited 503 rate_limit_unavailable'),
    `the fault was felt (seen: ${[...kinds].join(', ')})`,
  )
  t.notOk(
    answers.some((a) => a.path === '/cached' && a.status !== 200),
    'the cached route answers through a bypass',
  )
  const slowest = Math.max(...answers.map((a) => a.ms))
  t.ok(slowest < 2600, `no request waits much past the command timeout (slowest ${slowest} ms)`)
  const late = answers.filter((a) => a.at > back_at + recovery_ms)
  t.ok(late.length > 20, `requests kept being answered after the fault (${late.length})`)
  t.same(
    late.filter((a) => a.status !== 200),
    [],
    `every request ${recovery_ms} ms after Redis is back answers 200`,
  )
  t.comment(
    `${answers.length} requests, ${answers.filter((a) => a.status === 503).length} answered 503, slowest ${slowest} ms`,
  )
}

t.test('Redis faults under load', async (t) => {
  const redis = await start_redis(t)
  const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 })
  admin.on('error', () => {})
  t.teardown(() => admin.disconnect())

  t.test('killed, then restarted on the same port', async (t) => {
    const app = redis_app(t, redis)
    const run = await under_load(
      app,
      async () => {
        await redis.kill()
        await new Promise((resolve) => setTimeout(resolve, 2500))
        await redis.restart()
      },
      4000,
    )
    degraded_then_back(t, run, 2000)
  })

  t.test('paused by DEBUG SLEEP 2', async (t) => {
    const app = redis_app(t, redis)
    const run = await under_load(app, () => admin.call('DEBUG', 'SLEEP', '2'), 2500)
    degraded_then_back(t, run, 1200)
  })

  t.test('answering LOADING during a slowed DEBUG RELOAD', async (t) => {
    await admin.call('DEBUG', 'POPULATE', '20000', 'filler')
    await admin.call('CONFIG', 'SET', 'key-load-delay', '100')
    await admin.call('CONFIG', 'SET', 'loading-process-events-interval-bytes', '1024')
    const app = redis_app(t, redis)
    let loading_seen = false
    const run = await under_load(
      app,
      async () => {
        const reload = admin.call('DEBUG', 'RELOAD')
        const probe = new Redis(redis.url, { maxRetriesPerRequest: 0, enableReadyCheck: false })
        probe.on('error', () => {})
        await new Promise((resolve) => setTimeout(resolve, 300))
        loading_seen = await probe.get('x').then(
          () => false,
          (e: Error) => e.message.startsWith('LOADING'),
        )
        probe.disconnect()
        await reload
      },
      2500,
    )
    t.ok(loading_seen, 'Redis did answer LOADING during the reload')
    degraded_then_back(t, run, 1200)
    await admin.call('CONFIG', 'SET', 'key-load-delay', '0')
  })
})
