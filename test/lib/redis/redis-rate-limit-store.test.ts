import t, { type Test } from 'tap'
import { App, adapt_ctx } from '../../../index.js'
import { rate_limit, type RateLimitOptions } from '../../../lib/middleware/security/rate-limit.js'
import { MemoryRateLimitStore, type RateLimitStore } from '../../../lib/middleware/security/rate-limit-store.js'
import { RedisRateLimitStore } from '../../../lib/redis/index.js'
import { free_port, start_redis } from '../../helpers/redis-server.js'
import { client, redis_proxy } from './setup.js'

/**
 * A repeatable sequence of hits (key, clock reading): steps of 0 to 700 ms over a 1000 ms window, sometimes backwards
 * but never out of the latest window (a hit behind it is where the stores differ: the Redis one never moves a window
 * back, as its hits come from several clocks).
 */
function hits(n: number): Array<[string, number]> {
  let seed = 7
  const rand = (m: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % m)
  let now = 1_700_000_000_123
  let latest = now
  return Array.from({ length: n }, () => {
    now = rand(10) === 0 ? Math.max(now - rand(1500), latest - (latest % 1000)) : now + rand(701)
    latest = Math.max(latest, now)
    return [`k${rand(3)}`, now]
  })
}

/** An App limited by `options` on GET /data (200 `{ok:true}`), closed at teardown. */
function limited(t: Test, options: RateLimitOptions): App {
  const app = new App({ access_log: false })
  app.use(adapt_ctx(rate_limit(options)))
  app.get('/data', (_req, res) => void res.json('ok', true))
  t.teardown(() => app.close())
  return app
}

t.test('RedisRateLimitStore.hit', async (t) => {
  const server = await start_redis(t)
  const redis = client(t, server.port)
  let n = 0
  /** A store on its own prefix, so subtests never share counts. */
  const fresh = () => new RedisRateLimitStore({ client: redis, prefix: `t${++n}:` })

  t.test('answers exactly what the memory store answers for the same hits and clock readings', async (t) => {
    const memory = new MemoryRateLimitStore()
    const store = fresh()
    const steps = hits(400)
    const got = []
    const want = []
    for (const [key, now] of steps) {
      want.push(memory.hit(key, now, 1000))
      got.push(await store.hit(key, now, 1000))
    }
    t.same(got, want)
    t.ok(
      want.some((h) => h.previous > 0) && want.some((h) => h.current > 3),
      'the sequence crosses windows with counts carried over',
    )
  })

  t.test('moves the count to previous in the next window and forgets it a window later', async (t) => {
    const store = fresh()
    t.same(await store.hit('a', 10_500, 10_000), { current: 1, previous: 0, window_start_ms: 10_000 })
    t.same(await store.hit('a', 19_999, 10_000), { current: 2, previous: 0, window_start_ms: 10_000 })
    t.same(await store.hit('a', 20_000, 10_000), { current: 1, previous: 2, window_start_ms: 20_000 })
    t.same(await store.hit('a', 40_000, 10_000), { current: 1, previous: 0, window_start_ms: 40_000 })
    t.same(
      await store.hit('a', 35_000, 10_000),
      { current: 1, previous: 0, window_start_ms: 30_000 },
      'a clock a window behind counts in its own window',
    )
    t.same(await store.hit('a', 40_001, 10_000), { current: 2, previous: 1, window_start_ms: 40_000 }, 'kept')
  })

  t.test(
    'keeps window starts of 16 digits exact, which Lua would print rounded (they travel as strings)',
    async (t) => {
      const store = fresh()
      const now = 8_999_999_999_999_001
      const first = await store.hit('big', now, 1000)
      const second = await store.hit('big', now + 1, 1000)
      t.same([first.current, second.current], [1, 2])
      t.equal(await redis.hget(store.key('big'), 's'), String(first.window_start_ms))
    },
  )

  t.test('keeps one hash per key that expires when its counts can no longer matter', async (t) => {
    const store = fresh()
    await store.hit('ip:1.2.3.4', 61_000, 60_000)
    t.same(await redis.hgetall(store.key('ip:1.2.3.4')), { s: '60000', c: '1', p: '0' })
    const pttl = await redis.pttl(store.key('ip:1.2.3.4'))
    t.ok(pttl > 118_000 && pttl <= 119_000, `PTTL ${pttl}: until the end of the window after this one`)
  })

  t.test('counts every one of many concurrent hits exactly once, from two connections', async (t) => {
    const store = fresh()
    const other = new RedisRateLimitStore({ client: client(t, server.port), prefix: store.key('').slice(0, -3) })
    const all = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? store : other).hit('burst', 5_000, 60_000)),
    )
    t.same(
      all.map((h) => h.current).sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i + 1),
    )
  })

  t.test('counts a hit once when the connection drops after Redis ran it, before its reply came', async (t) => {
    const proxy = await redis_proxy(t, server.port)
    const store = new RedisRateLimitStore({ client: client(t, proxy.port, 500), prefix: `t${++n}:` })
    await store.hit('loaded', 5_000, 60_000) // the script is known: the cut reply is the hit's, not a NOSCRIPT
    const cut = proxy.cut_next_reply()
    const first = await store.hit('k', 5_000, 60_000).then(
      (h) => h.current,
      (err: { code?: string }) => err.code,
    )
    await cut
    t.equal(await redis.hget(store.key('k'), 'c'), '1', 'Redis ran the hit once')
    t.equal(first, 'FW_ERR_REDIS_UNAVAILABLE', 'the caller is told the store could not answer')
    t.equal((await store.hit('k', 5_001, 60_000)).current, 2, 'the next hit, on the new connection, counts on')
  })

  t.test('loads its script again after the server forgot it', async (t) => {
    const store = fresh()
    await store.hit('s', 0, 1000)
    await redis.script('FLUSH')
    t.same(await store.hit('s', 1, 1000), { current: 2, previous: 0, window_start_ms: 0 })
  })

  t.test('gives rate_limit the same headers and statuses as the memory store', async (t) => {
    const clock = { ms: 1_000_000 }
    const options = { max_requests: 5, window_seconds: 10, now: () => clock.ms }
    const apps = [
      limited(t, { ...options, store: new MemoryRateLimitStore() }),
      limited(t, { ...options, store: fresh() }),
    ]
    const seen: Array<Array<[number, unknown, unknown, unknown]>> = [[], []]
    for (const at of [
      1_000_000, 1_001_000, 1_002_000, 1_003_000, 1_009_999, 1_009_999, 1_010_000, 1_012_500, 1_015_000, 1_019_000,
      1_031_000,
    ]) {
      clock.ms = at
      for (const [i, app] of apps.entries()) {
        const r = await app.inject({ url: '/data' })
        seen[i]!.push([
          r.statusCode,
          r.headers['x-ratelimit-remaining'],
          r.headers['x-ratelimit-reset'],
          r.headers['retry-after'],
        ])
      }
    }
    t.same(seen[1], seen[0])
    t.same(
      seen[0]!.map(([s]) => s),
      [200, 200, 200, 200, 200, 429, 429, 429, 429, 200, 200],
      'the previous window weighs 6, then 4.5, 3 and 0.6',
    )
  })

  t.test('lets exactly max_requests of many parallel requests through rate_limit', async (t) => {
    const app = limited(t, { max_requests: 20, window_seconds: 60, store: fresh(), now: () => 0 })
    const rs = await Promise.all(Array.from({ length: 50 }, () => app.inject({ url: '/data' })))
    t.equal(rs.filter((r) => r.statusCode === 200).length, 20)
    t.equal(rs.filter((r) => r.statusCode === 429).length, 30)
  })

  t.test('keeps the counts of an instance whose clock is ahead when one behind hits across a boundary', async (t) => {
    const store = fresh()
    for (let i = 0; i < 3; i++) await store.hit('k', 15_000, 10_000)
    t.same(await store.hit('k', 20_100, 10_000), { current: 1, previous: 3, window_start_ms: 20_000 }, 'ahead')
    t.same(
      await store.hit('k', 19_900, 10_000),
      { current: 4, previous: 0, window_start_ms: 10_000 },
      'behind: counted in its own window, which the store keeps as the previous one',
    )
    t.same(await store.hit('k', 20_200, 10_000), { current: 2, previous: 4, window_start_ms: 20_000 }, 'ahead again')
    t.same(
      await store.hit('k', 5_000, 10_000),
      { current: 3, previous: 4, window_start_ms: 0 },
      'further behind: counted in the newest window, nothing restarts',
    )
    t.same(await redis.hgetall(store.key('k')), { s: '20000', c: '3', p: '4' })
  })

  t.test(
    'does not let requests through two instances with clocks 2 s apart pass the limit at a boundary',
    async (t) => {
      const store = fresh()
      const clock = { ms: 1_009_000 }
      const common = { max_requests: 10, window_seconds: 10, store, namespace: 'api' }
      const ahead = limited(t, { ...common, now: () => clock.ms })
      const behind = limited(t, { ...common, now: () => clock.ms - 2000 })
      const statuses = async (n: number) => {
        const out: number[] = []
        for (let i = 0; i < n; i++) out.push((await (i % 2 ? behind : ahead).inject({ url: '/data' })).statusCode)
        return out
      }
      t.same(await statuses(10), Array(10).fill(200), 'the quota, used in one window by both')
      clock.ms = 1_010_500
      t.same(await statuses(20), Array(20).fill(429), 'the instance behind still in that window, the other past it')
    },
  )

  t.test('throws at creation for a bad prefix', async (t) => {
    t.throws(() => new RedisRateLimitStore({ client: redis, prefix: 'a\nb' }), {
      code: 'FW_ERR_REDIS_BAD_OPTION',
      message: 'RedisRateLimitStore: prefix must be a string without spaces or control characters; got "a\\nb"',
    })
  })
})

t.test('RedisRateLimitStore while Redis is down', async (t) => {
  const store: RateLimitStore & { close(): Promise<void> } = new RedisRateLimitStore({
    client: { host: '127.0.0.1', port: await free_port(), commandTimeout: 200 },
  })
  t.teardown(() => store.close())

  t.test('rejects with FW_ERR_REDIS_UNAVAILABLE, status 503', async (t) => {
    await t.rejects(Promise.resolve(store.hit('k', 0, 1000)), {
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      status: 503,
      message: /^RedisRateLimitStore\.hit: Redis is unavailable \(/,
    })
  })

  t.test(
    'answers 503 rate_limit_unavailable without running the handler when fail_open is false (the default)',
    async (t) => {
      const app = limited(t, { max_requests: 5, window_seconds: 10, store })
      const r = await app.inject({ url: '/data' })
      t.equal(r.statusCode, 503)
      t.same(r.json(), { ok: false, error: 'rate_limit_unavailable', message: 'Rate limit unavailable, retry later' })
      t.equal(r.headers['x-ratelimit-limit'], undefined)
    },
  )

  t.test('lets requests through uncounted, without rate headers, when fail_open is true', async (t) => {
    const app = limited(t, { max_requests: 5, window_seconds: 10, store, fail_open: true })
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true })
    t.equal(r.headers['x-ratelimit-limit'], undefined)
  })

  t.test('refuses a fail_open that is not a boolean', async (t) => {
    t.throws(() => rate_limit({ max_requests: 5, window_seconds: 10, store, fail_open: 'yes' as unknown as boolean }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: fail_open must be a boolean; got "yes"',
    })
  })
})

t.test('RedisRateLimitStore while Redis refuses writes at maxmemory (OOM)', async (t) => {
  const server = await start_redis(t)
  const redis = client(t, server.port)
  const store = new RedisRateLimitStore({ client: redis, prefix: 'oom:' })
  await redis.config('SET', 'maxmemory-policy', 'noeviction')
  await redis.config('SET', 'maxmemory', '1')
  t.teardown(() => redis.config('SET', 'maxmemory', '0'))

  t.test('rejects with FW_ERR_REDIS_UNAVAILABLE, status 503, as a retry once memory frees succeeds', async (t) => {
    await t.rejects(Promise.resolve(store.hit('k', 0, 1000)), {
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      status: 503,
      message: /^RedisRateLimitStore\.hit: Redis is unavailable \(OOM command not allowed /,
    })
  })

  t.test('lets requests through uncounted when fail_open is true', async (t) => {
    const app = limited(t, { max_requests: 5, window_seconds: 10, store, fail_open: true })
    const r = await app.inject({ url: '/data' })
    t.same([r.statusCode, r.json(), r.headers['x-ratelimit-limit']], [200, { ok: true }, undefined])
  })
})
