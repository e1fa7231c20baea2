import t, { type Test } from 'tap'
import { adapt_ctx, type Middleware } from '../../../../index.js'
import {
  rate_limit,
  retry_after_ms,
  sliding_count,
  type RateLimitOptions,
} from '../../../../lib/middleware/security/rate-limit.js'
import { ApiKey, Authz, JwtClaims } from '../../../../lib/middleware/auth/state.js'
import { set_identity } from '../../../../lib/identity.js'
import { MemoryRateLimitStore, type RateLimitStore } from '../../../../lib/middleware/security/rate-limit-store.js'
import { build } from './build.js'
import { StoreUnavailable } from '../../../../lib/errors.js'
import { Later, foreign, foreign_reject } from '../../../helpers/thenable.js'
import { api_key } from '../../../../lib/middleware/auth/api-key.js'
import { jwt } from '../../../../lib/middleware/auth/jwt.js'
import { session } from '../../../../lib/middleware/auth/session.js'
import { sign_dev_token } from '../../../../lib/middleware/app/auth-presets.js'

const JWT_SECRET = 'rate-limit-test-jwt-secret-0123456789'

/** A fake clock the tests move by hand. */
function clock(start = 0) {
  const c = { ms: start, now: () => c.ms }
  return c
}

function limited(t: Test, options: RateLimitOptions, before: Middleware[] = []) {
  return build(t, [...before, adapt_ctx(rate_limit(options))])
}

type App = ReturnType<typeof limited>['app']

/** Sends `n` GET /data one after the other and lists the statuses. */
async function statuses(
  app: App,
  n: number,
  headers: Record<string, string> = {},
  remoteAddress = '127.0.0.1',
): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push((await app.inject({ url: '/data', headers, remoteAddress })).statusCode)
  return out
}

const as_user: Middleware = (req, res, next) => {
  const user = req.header('x-user')
  if (user !== '') set_identity(req, res, { kind: 'test', id: user })
  return next()
}

t.test('rate_limit', async (t) => {
  t.test('sets the X-RateLimit headers on every response and answers 429 over the limit', async (t) => {
    const c = clock(1_000)
    const { app, calls } = limited(t, { max_requests: 3, window_seconds: 10, now: c.now })
    const remaining: unknown[] = []
    for (let i = 0; i < 3; i++) {
      const r = await app.inject({ url: '/data' })
      t.equal(r.statusCode, 200)
      t.equal(r.headers['x-ratelimit-limit'], '3')
      t.equal(r.headers['retry-after'], undefined)
      remaining.push(r.headers['x-ratelimit-remaining'])
    }
    t.same(remaining, ['2', '1', '0'])
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 429)
    t.same(r.json(), { ok: false, error: 'rate_limit_exceeded', message: 'Too many requests, retry later' })
    t.equal(r.headers['x-ratelimit-limit'], '3')
    t.equal(r.headers['x-ratelimit-remaining'], '0')
    t.equal(r.headers['retry-after'], '14', 'these 4 hits weigh 2 at 15 s, when one more fits under 3')
    t.equal(r.headers['x-ratelimit-reset'], '14', 'Reset and Retry-After name the same moment')
    t.equal(calls.n, 3)
  })

  t.test('says in X-RateLimit-Reset when a request passes again, so a client trusting it is not refused', async (t) => {
    const c = clock(0)
    const { app } = limited(t, { max_requests: 3, window_seconds: 10, now: c.now })
    const first = await app.inject({ url: '/data' })
    t.equal(first.headers['x-ratelimit-reset'], '20', 'with quota left: when every counted hit has stopped weighing')
    t.same(await statuses(app, 2), [200, 200])
    c.ms = 9_000
    const last = await app.inject({ url: '/data' })
    t.equal(last.statusCode, 429)
    t.equal(last.headers['x-ratelimit-remaining'], '0')
    const reset = Number(last.headers['x-ratelimit-reset'])
    t.equal(String(reset), last.headers['retry-after'])
    c.ms = 9_000 + reset * 1000
    t.equal((await app.inject({ url: '/data' })).statusCode, 200, 'the client that waited Reset seconds passes')
  })

  t.test('X-RateLimit-Reset on the last allowed request is the wait before the next one passes', async (t) => {
    const c = clock(0)
    const { app } = limited(t, { max_requests: 3, window_seconds: 10, now: c.now })
    await statuses(app, 2)
    c.ms = 9_000
    const last = await app.inject({ url: '/data' })
    t.equal(last.statusCode, 200)
    t.equal(last.headers['x-ratelimit-remaining'], '0')
    const reset = Number(last.headers['x-ratelimit-reset'])
    t.ok(reset > 1, `not the end of the fixed window (got ${reset})`)
    c.ms = 9_000 + reset * 1000
    t.equal((await app.inject({ url: '/data' })).statusCode, 200, 'the client that waited Reset seconds passes')
  })

  t.test('lets through the client that waits Retry-After when the wait lands exactly on the boundary', async (t) => {
    // 15 hits in a 3 s window weigh 15 * (1 - 2/3) + 1 = 6 at 5 s, exactly the limit: in floating point
    // 15 * (1 - 2000 / 3000) is 5.000000000000001, which refused the request Retry-After had promised to pass.
    const c = clock(0)
    const { app } = limited(t, { max_requests: 6, window_seconds: 3, now: c.now })
    t.same(await statuses(app, 14), [...Array<number>(6).fill(200), ...Array<number>(8).fill(429)])
    const refused = await app.inject({ url: '/data' })
    t.equal(refused.statusCode, 429, 'the 15th hit')
    t.equal(refused.headers['retry-after'], '5')
    t.equal(refused.headers['x-ratelimit-reset'], '5')
    c.ms = 5_000
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 200, 'the client that waited Retry-After passes')
    t.equal(r.headers['x-ratelimit-remaining'], '0')
  })

  t.test(
    'sends the IETF RateLimit and RateLimit-Policy fields (draft 8) when asked, consistent with X-RateLimit',
    async (t) => {
      const c = clock(0)
      const { app } = limited(t, { max_requests: 2, window_seconds: 10, now: c.now, ietf_headers: true, policy: 'api' })
      const r = await app.inject({ url: '/data' })
      t.equal(r.headers['ratelimit-policy'], '"api";q=2;w=10')
      t.equal(r.headers['ratelimit'], `"api";r=1;t=${r.headers['x-ratelimit-reset']}`)
      await app.inject({ url: '/data' })
      const refused = await app.inject({ url: '/data' })
      t.equal(refused.statusCode, 429)
      t.equal(refused.headers['ratelimit'], `"api";r=0;t=${refused.headers['retry-after']}`)
      const plain = limited(t, { max_requests: 2, window_seconds: 10 })
      t.equal((await plain.app.inject({ url: '/data' })).headers['ratelimit'], undefined, 'off by default')
    },
  )

  t.test('neither counts nor limits requests the allow function lets through', async (t) => {
    const { app } = limited(t, {
      max_requests: 1,
      window_seconds: 60,
      now: () => 0,
      allow: ({ req }) => req.header('x-probe') === 'health',
    })
    t.same(await statuses(app, 3, { 'x-probe': 'health' }), [200, 200, 200])
    const probe = await app.inject({ url: '/data', headers: { 'x-probe': 'health' } })
    t.equal(probe.headers['x-ratelimit-limit'], undefined)
    t.same(await statuses(app, 2), [200, 429], 'the allowed requests did not use the quota')
  })

  t.test('sets the headers on 404s and on errors of later middleware too', async (t) => {
    const deny: Middleware = (_req, res) => void res.error(401, 'missing_api_key', 'API key required')
    const { app } = build(t, [adapt_ctx(rate_limit({ max_requests: 5, window_seconds: 60, now: () => 0 })), deny])
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 401)
    t.equal(r.headers['x-ratelimit-remaining'], '4')
    const missing = await app.inject({ url: '/nowhere' })
    t.equal(missing.statusCode, 401, 'global middleware runs before the 404')
    t.equal(missing.headers['x-ratelimit-remaining'], '3')
  })

  t.test('has no double burst at a window boundary', async (t) => {
    const c = clock(9_900)
    const { app } = limited(t, { max_requests: 10, window_seconds: 10, now: c.now })
    t.same(await statuses(app, 10), Array(10).fill(200), 'a full burst just before the window ends')
    c.ms = 10_000
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 429, 'the next window starts with the previous one still weighing fully')
    t.equal(r.headers['retry-after'], '2')
    c.ms = 12_000
    t.same(await statuses(app, 2), [200, 429], 'at 12 s the previous window weighs 8 hits, plus 2 counted here')
  })

  t.test('lets the previous window decay linearly', async (t) => {
    const c = clock(0)
    const { app } = limited(t, { max_requests: 10, window_seconds: 10, now: c.now })
    await statuses(app, 10)
    c.ms = 15_000
    t.same(await statuses(app, 6), [200, 200, 200, 200, 200, 429], 'half of 10 still counts, so 5 more pass')
    c.ms = 30_000
    t.same(await statuses(app, 10), Array(10).fill(200), 'two windows later everything is forgotten')
  })

  t.test('lets exactly max_requests of many parallel requests pass', async (t) => {
    const { app, calls } = limited(t, { max_requests: 20, window_seconds: 60, now: () => 0 })
    await app.ready()
    const rs = await Promise.all(Array.from({ length: 50 }, () => app.inject({ url: '/data' })))
    t.equal(rs.filter((r) => r.statusCode === 200).length, 20)
    t.equal(rs.filter((r) => r.statusCode === 429).length, 30)
    t.equal(calls.n, 20)
  })

  t.test('is exact with an asynchronous store', async (t) => {
    const memory = new MemoryRateLimitStore()
    const store: RateLimitStore = {
      hit: (key, now_ms, window_ms) =>
        new Promise((resolve) => setImmediate(() => resolve(memory.hit(key, now_ms, window_ms)))),
    }
    const { app, calls } = limited(t, { max_requests: 7, window_seconds: 60, now: () => 0, store })
    const rs = await Promise.all(Array.from({ length: 30 }, () => app.inject({ url: '/data' })))
    t.equal(rs.filter((r) => r.statusCode === 200).length, 7)
    t.equal(calls.n, 7)
    const retries = rs.filter((r) => r.statusCode === 429).map((r) => Number(r.headers['retry-after']))
    t.ok(
      retries.every((s) => Number.isInteger(s) && s > 60),
      'refused hits wait into the next window',
    )
  })

  t.test('counts per client address, grouping IPv6 by /64 and IPv4-mapped as IPv4', async (t) => {
    const { app } = limited(t, { max_requests: 2, window_seconds: 60, now: () => 0 })
    t.same(await statuses(app, 3, {}, '10.0.0.1'), [200, 200, 429])
    t.same(await statuses(app, 1, {}, '::ffff:10.0.0.1'), [429], 'the mapped form is the same client')
    t.same(await statuses(app, 2, {}, '10.0.0.2'), [200, 200])
    t.same(await statuses(app, 2, {}, '2001:db8:1:2::1'), [200, 200])
    t.same(await statuses(app, 1, {}, '2001:db8:1:2:ffff:ffff:ffff:ffff'), [429], 'same /64')
    t.same(await statuses(app, 1, {}, '2001:db8:1:3::1'), [200], 'another /64')
  })

  t.test('ignores a spoofed X-Forwarded-For from a peer that is not a trusted proxy', async (t) => {
    const { app } = limited(t, { max_requests: 2, window_seconds: 60, now: () => 0 })
    const rs = []
    for (let i = 0; i < 3; i++)
      rs.push((await app.inject({ url: '/data', headers: { 'x-forwarded-for': `1.1.1.${i}` } })).statusCode)
    t.same(rs, [200, 200, 429])
  })

  t.test('counts a forwarded client per address when the trusted proxy adds its source port', async (t) => {
    const { app } = build(t, [adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, now: () => 0 }))], {
      trust_proxy: ['127.0.0.1'],
    })
    // Some load balancers (Azure Application Gateway) write `address:port`; a new connection is a new source port.
    const clients: Array<[string, string[]]> = [
      ['one IPv4 client, whatever its port', ['203.0.113.7:50001', '203.0.113.7:50002', '203.0.113.7:50003']],
      ['one IPv6 /64, whatever its port', ['[2001:db8:1:2::1]:50001', '[2001:db8:1:2::2]:50002', '2001:db8:1:2::3']],
    ]
    for (const [what, forwarded] of clients) {
      const answers: number[] = []
      for (const xff of forwarded) answers.push(...(await statuses(app, 1, { 'x-forwarded-for': xff })))
      t.same(answers, [200, 200, 429], what)
    }
  })

  t.test('counts per authenticated user under key user, and per address for anonymous requests', async (t) => {
    const { app } = limited(t, { max_requests: 2, window_seconds: 60, key: 'user', now: () => 0 }, [as_user])
    t.same(await statuses(app, 3, { 'x-user': 'alice' }), [200, 200, 429])
    t.same(await statuses(app, 2, { 'x-user': 'bob' }), [200, 200], 'another user from the same address')
    t.same(await statuses(app, 3), [200, 200, 429], 'anonymous requests share the address count')
    t.same(await statuses(app, 1, {}, '10.0.0.9'), [200], 'another anonymous address')
    t.same(await statuses(app, 1, { 'x-user': '127.0.0.1' }), [200], 'a user named like an address has its own count')
  })

  t.test(
    'refuses at startup key user registered before jwt, which would count every user of an address together',
    async (t) => {
      const limit = adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, key: 'user', now: () => 0 }))
      const { app } = build(t, [limit, adapt_ctx(jwt({ secret: JWT_SECRET }))])
      await t.rejects(app.inject({ url: '/data' }), {
        code: 'FW_ERR_APP_IDENTITY_ORDER',
        message:
          "GET /data: rate_limit({ key: 'user' }) runs before jwt, so it cannot see who the caller is; register it after jwt (app.use order)",
      })
    },
  )

  t.test('refuses at startup key user registered before api_key or session, which set the Identity too', async (t) => {
    for (const [name, auth] of [
      ['api_key', api_key({ allowed_keys: ['k-alice', 'k-bob'] })],
      ['session', session({ secret: JWT_SECRET })],
    ] as const) {
      const limit = adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, key: 'user', now: () => 0 }))
      const { app } = build(t, [limit, adapt_ctx(auth)])
      await t.rejects(
        app.inject({ url: '/data' }),
        {
          code: 'FW_ERR_APP_IDENTITY_ORDER',
          message: `GET /data: rate_limit({ key: 'user' }) runs before ${name}, so it cannot see who the caller is; register it after ${name} (app.use order)`,
        },
        name,
      )
    }
  })

  t.test('counts per API key user when registered after api_key, users behind one address apart', async (t) => {
    const limit = adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, key: 'user', now: () => 0 }))
    const { app } = build(t, [adapt_ctx(api_key({ allowed_keys: ['k-alice', 'k-bob'] })), limit])
    t.same(await statuses(app, 3, { 'x-api-key': 'k-alice' }), [200, 200, 429])
    t.same(await statuses(app, 2, { 'x-api-key': 'k-bob' }), [200, 200], 'another key holder from the same address')
  })

  t.test('counts per user when registered after jwt, users behind one address apart', async (t) => {
    const limit = adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, key: 'user', now: () => 0 }))
    const { app } = build(t, [adapt_ctx(jwt({ secret: JWT_SECRET })), limit])
    const bearer = (sub: string) => ({ authorization: `Bearer ${sign_dev_token(JWT_SECRET, { sub })}` })
    t.same(await statuses(app, 3, bearer('alice')), [200, 200, 429])
    t.same(await statuses(app, 2, bearer('bob')), [200, 200], 'another user from the same address')
  })

  t.test('leaves the order free for keys that need no identity', async (t) => {
    const limit = adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, key_fn: () => 'all', now: () => 0 }))
    const { app } = build(t, [limit, adapt_ctx(jwt({ secret: JWT_SECRET }))])
    t.equal((await app.inject({ url: '/data' })).statusCode, 401)
  })

  t.test('takes the user from Identity, whichever authenticator set it, and nothing else', async (t) => {
    const auth: Middleware = (req, res, next) => {
      const [kind, name] = req.header('x-auth').split(':') as [string, string]
      // Spec states alone name no one: only the Identity counts.
      if (kind === 'claims') req.set_state(JwtClaims, new JwtClaims(name, [], { sub: name }))
      if (kind === 'authz') req.set_state(Authz, new Authz(name, new Set(), new Set()))
      if (kind === 'custom' || kind === 'session') set_identity(req, res, { kind, id: name })
      return next()
    }
    const { app } = limited(t, { max_requests: 1, window_seconds: 60, key: 'user', now: () => 0 }, [auth])
    t.same(await statuses(app, 1, { 'x-auth': 'custom:alice' }), [200])
    t.same(await statuses(app, 1, { 'x-auth': 'session:alice' }), [429], 'another kind names the same user')
    t.same(await statuses(app, 1, { 'x-auth': 'custom:bob' }), [200])
    t.same(await statuses(app, 1, { 'x-auth': 'claims:carol' }), [200], 'without an Identity the address counts')
    t.same(await statuses(app, 1, { 'x-auth': 'authz:dave' }), [429], 'the same address, counted once more')
  })

  t.test('counts the accepted ApiKey when the api_key middleware ran first', async (t) => {
    const accepted: Middleware = (req, _res, next) => {
      req.set_state(ApiKey, new ApiKey('k-accepted'))
      return next()
    }
    const { app } = limited(t, { max_requests: 1, window_seconds: 60, key: 'api_key', now: () => 0 }, [accepted])
    t.same(await statuses(app, 2, { 'x-api-key': 'other' }), [200, 429], 'the stored key counts, not the header')
    t.same(await statuses(app, 1), [429])
  })

  t.test('counts per API key under key api_key, and per address without one', async (t) => {
    const { app } = limited(t, { max_requests: 1, window_seconds: 60, key: 'api_key', now: () => 0 })
    t.same(await statuses(app, 2, { 'x-api-key': 'k1' }), [200, 429])
    t.same(await statuses(app, 1, { 'x-api-key': 'k2' }), [200])
    t.same(await statuses(app, 2), [200, 429])
    const custom = limited(t, {
      max_requests: 1,
      window_seconds: 60,
      key: 'api_key',
      api_key_header: 'x-key',
      now: () => 0,
    }).app
    t.same(await statuses(custom, 2, { 'x-key': 'k1' }), [200, 429])
    t.same(await statuses(custom, 1, { 'x-api-key': 'k1' }), [200], 'without x-key the address counts')
  })

  t.test('counts per key_fn, falling back to the address when it gives none', async (t) => {
    const { app } = limited(t, {
      max_requests: 1,
      window_seconds: 60,
      now: () => 0,
      key_fn: ({ req }) => req.query_value('tenant', '') || undefined,
    })
    const get = async (url: string) => (await app.inject({ url })).statusCode
    t.same([await get('/data?tenant=a'), await get('/data?tenant=a'), await get('/data?tenant=b')], [200, 429, 200])
    t.same([await get('/data'), await get('/data')], [200, 429])
  })

  t.test('applies a stricter prefix limit in addition to the global one', async (t) => {
    const { app } = build(t, [adapt_ctx(rate_limit({ max_requests: 4, window_seconds: 60, now: () => 0 }))])
    app.use('/auth', adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, now: () => 0 })))
    app.post('/auth/login', (_req, res) => void res.json('ok', true))
    const login = async () => await app.inject({ method: 'POST', url: '/auth/login' })
    const r1 = await login()
    t.equal(r1.headers['x-ratelimit-limit'], '2', 'the inner limit has fewer requests left: its headers')
    t.same([r1.statusCode, (await login()).statusCode, (await login()).statusCode], [200, 200, 429])
    t.same(await statuses(app, 2), [200, 429], 'the three logins counted against the global limit too')
  })

  t.test('a key_fn answering an empty string falls back to the address, not to one bucket for everyone', async (t) => {
    // req.header gives '' for a missing header: without the fallback, every client without it shared the key `fn:`.
    const { app } = limited(t, {
      max_requests: 1,
      window_seconds: 60,
      now: () => 0,
      key_fn: ({ req }) => req.header('x-tenant'),
    })
    t.same(await statuses(app, 2, {}, '10.0.0.1'), [200, 429])
    t.same(await statuses(app, 1, {}, '10.0.0.2'), [200], 'another address without the header has its own count')
    t.same(await statuses(app, 2, { 'x-tenant': 'a' }, '10.0.0.1'), [200, 429])
  })

  t.test(
    'keys a long key_fn value by its digest, so a client-chosen header cannot make its key any size',
    async (t) => {
      const inner = new MemoryRateLimitStore()
      const keys: string[] = []
      const store: RateLimitStore = { hit: (key, now, window) => (keys.push(key), inner.hit(key, now, window)) }
      const { app } = limited(t, {
        max_requests: 1,
        window_seconds: 60,
        now: () => 0,
        store,
        key_fn: ({ req }) => req.header('x-tenant'),
      })
      const long = 'a'.repeat(8000)
      t.same(await statuses(app, 2, { 'x-tenant': long }), [200, 429], 'one client, one count')
      t.same(await statuses(app, 1, { 'x-tenant': long + 'b' }), [200], 'another value, another count')
      t.same(await statuses(app, 1, { 'x-tenant': 'short' }), [200])
      t.ok(
        keys.every((k) => k.length <= 64),
        `key lengths ${keys.map((k) => k.length).join(', ')}`,
      )
      t.match(keys.at(-1), /fn:short$/, 'a short value is kept as it is')
    },
  )

  t.test('with two limits on a request, the headers describe the one with fewer requests left', async (t) => {
    const { app } = build(t, [
      adapt_ctx(rate_limit({ max_requests: 3, window_seconds: 60, now: () => 0, ietf_headers: true })),
    ])
    app.use('/auth', adapt_ctx(rate_limit({ max_requests: 5, window_seconds: 10, now: () => 0 })))
    app.post('/auth/login', (_req, res) => void res.json('ok', true))
    const login = async () => await app.inject({ method: 'POST', url: '/auth/login' })
    t.same(await statuses(app, 1), [200])
    const r1 = await login()
    t.equal(r1.statusCode, 200)
    t.same(
      [r1.headers['x-ratelimit-limit'], r1.headers['x-ratelimit-remaining'], r1.headers['x-ratelimit-reset']],
      ['3', '1', '120'],
      'the global limit has 1 left, the /auth one 4: a client trusting Remaining 4 would be refused',
    )
    t.equal(r1.headers['ratelimit'], '"default";r=1;t=120', 'its IETF fields stay with it')
    const r2 = await login()
    t.same([r2.statusCode, r2.headers['x-ratelimit-limit'], r2.headers['x-ratelimit-remaining']], [200, '3', '0'])
    const r3 = await login()
    t.same([r3.statusCode, r3.headers['x-ratelimit-limit']], [429, '3'], 'the global limit refuses')
    t.equal(r3.headers['retry-after'], r3.headers['x-ratelimit-reset'])
  })

  t.test('with two limits, the stricter inner one still writes its headers and refuses', async (t) => {
    const { app } = build(t, [
      adapt_ctx(rate_limit({ max_requests: 100, window_seconds: 60, now: () => 0, ietf_headers: true })),
    ])
    app.use('/auth', adapt_ctx(rate_limit({ max_requests: 1, window_seconds: 60, now: () => 0 })))
    app.post('/auth/login', (_req, res) => void res.json('ok', true))
    const r1 = await app.inject({ method: 'POST', url: '/auth/login' })
    t.same([r1.statusCode, r1.headers['x-ratelimit-limit'], r1.headers['x-ratelimit-remaining']], [200, '1', '0'])
    t.equal(r1.headers['ratelimit'], undefined, "the global limit's IETF fields would contradict the X- ones")
    const r2 = await app.inject({ method: 'POST', url: '/auth/login' })
    t.same([r2.statusCode, r2.headers['x-ratelimit-limit'], r2.headers['retry-after']], [429, '1', '120'])
  })

  t.test(
    "a route's own limit with override replaces the global one there; other routes keep the global one",
    async (t) => {
      const { app } = build(t, [adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, now: () => 0 }))])
      app.use('/search', adapt_ctx(rate_limit({ max_requests: 5, window_seconds: 60, now: () => 0, override: true })))
      app.get('/search', (_req, res) => void res.json('ok', true))
      app.group('/api', (g) => {
        g.use(adapt_ctx(rate_limit({ max_requests: 3, window_seconds: 60, now: () => 0, override: true })))
        g.get('/items', (_req, res) => void res.json('ok', true))
      })
      const get = async (url: string) => {
        const r = await app.inject({ url })
        return `${r.statusCode} ${String(r.headers['x-ratelimit-limit'])}`
      }
      const search: string[] = []
      for (let i = 0; i < 6; i++) search.push(await get('/search'))
      t.same(search, [...Array<string>(5).fill('200 5'), '429 5'], 'the route limit alone, not the global 2')
      t.same(
        [await get('/api/items'), await get('/api/items'), await get('/api/items'), await get('/api/items')],
        ['200 3', '200 3', '200 3', '429 3'],
        'a group limit counts on its own too',
      )
      t.same(
        [await get('/data'), await get('/data'), await get('/data')],
        ['200 2', '200 2', '429 2'],
        'the global limit saw none of those requests',
      )
    },
  )

  t.test('an override placed under a path parameter cannot be known at startup: it counts in addition', async (t) => {
    const { app } = build(t, [adapt_ctx(rate_limit({ max_requests: 2, window_seconds: 60, now: () => 0 }))])
    app.use('/users/me', adapt_ctx(rate_limit({ max_requests: 5, window_seconds: 60, now: () => 0, override: true })))
    app.get('/users/{id}', (_req, res) => void res.json('ok', true))
    const me = async () => (await app.inject({ url: '/users/me' })).statusCode
    t.same([await me(), await me(), await me()], [200, 200, 429])
  })

  t.test('throws at creation for a bad override', async (t) => {
    t.throws(() => rate_limit({ max_requests: 1, window_seconds: 1, override: 'yes' as unknown as boolean }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: override must be a boolean; got "yes"',
    })
  })

  t.test('keeps separate counts for two instances on one store, unless they share a namespace', async (t) => {
    const store = new MemoryRateLimitStore()
    const { app } = build(t, [])
    app.use('/a', adapt_ctx(rate_limit({ max_requests: 1, window_seconds: 60, store, now: () => 0 })))
    app.use('/b', adapt_ctx(rate_limit({ max_requests: 1, window_seconds: 60, store, now: () => 0 })))
    app.use(
      '/c',
      adapt_ctx(rate_limit({ max_requests: 1, window_seconds: 60, store, now: () => 0, namespace: 'shared' })),
    )
    app.use(
      '/d',
      adapt_ctx(rate_limit({ max_requests: 1, window_seconds: 60, store, now: () => 0, namespace: 'shared' })),
    )
    for (const p of ['/a', '/b', '/c', '/d']) app.get(p, (_req, res) => void res.json('ok', true))
    const get = async (url: string) => (await app.inject({ url })).statusCode
    t.same([await get('/a'), await get('/b'), await get('/a'), await get('/b')], [200, 200, 429, 429])
    t.same([await get('/c'), await get('/d')], [200, 429])
    t.equal(store.size, 3)
  })

  t.test('answers 500 when the store fails', async (t) => {
    const store: RateLimitStore = { hit: () => Promise.reject(new Error('store down')) }
    const { app, calls } = limited(t, { max_requests: 1, window_seconds: 60, store })
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 500)
    t.same(r.json(), { ok: false, error: 'internal_error', message: 'Internal Server Error' })
    t.equal(calls.n, 0)
  })

  t.test('counts through a store answering thenables that are not native promises', async (t) => {
    // A store written against RateLimitStore over a promise library (Bluebird), or one whose promises come from another
    // realm (a vm context, a worker's bridge): its answers are thenables, not `instanceof Promise` here.
    const wraps = { 'Bluebird-like': <T>(v: T) => new Later(v), 'another realm': foreign }
    for (const [name, wrap] of Object.entries(wraps)) {
      const inner = new MemoryRateLimitStore()
      const store = { hit: (k: string, n: number, w: number) => wrap(inner.hit(k, n, w)) }
      const { app, calls } = limited(t, {
        max_requests: 2,
        window_seconds: 60,
        store: store as RateLimitStore,
        now: () => 0,
      })
      app.get('/later', async (_req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 5))
        res.json('later', true)
      })
      const first = await app.inject({ url: '/data' })
      t.equal(first.statusCode, 200, `${name}: the first request passes`)
      t.same(first.json(), { ok: true }, `${name}: with the route's answer`)
      t.equal(first.headers['x-ratelimit-remaining'], '1', `${name}: the count read from the store's answer`)
      const second = await app.inject({ url: '/later' })
      t.equal(second.statusCode, 200, `${name}: the second passes`)
      t.same(second.json(), { later: true }, `${name}: after the async handler it waited for`)
      t.equal(second.headers['x-ratelimit-remaining'], '0')
      const third = await app.inject({ url: '/data' })
      t.equal(third.statusCode, 429, `${name}: the third is refused`)
      // As the same limit over the memory store itself answers its third request.
      const plain = limited(t, { max_requests: 2, window_seconds: 60, now: () => 0 }).app
      for (let i = 0; i < 2; i++) await plain.inject({ url: '/data' })
      const refused = await plain.inject({ url: '/data' })
      for (const h of ['retry-after', 'x-ratelimit-reset', 'x-ratelimit-remaining'])
        t.equal(third.headers[h], refused.headers[h], `${name}: ${h} as over the memory store`)
      t.equal(calls.n, 1, `${name}: the route ran for the allowed request only`)
    }
  })

  t.test('answers 503 on a StoreUnavailable rejection of a thenable that is not a native promise', async (t) => {
    for (const rejected of [Later.reject, foreign_reject]) {
      const store = { hit: () => rejected(new StoreUnavailable('test store: down')) }
      const { app, calls } = limited(t, { max_requests: 1, window_seconds: 60, store: store as RateLimitStore })
      const r = await app.inject({ url: '/data' })
      t.equal(r.statusCode, 503)
      t.same(r.json(), { ok: false, error: 'rate_limit_unavailable', message: 'Rate limit unavailable, retry later' })
      t.equal(calls.n, 0)
    }
  })

  t.test('follows fail_open when a synchronous store throws a StoreUnavailable, and only then', async (t) => {
    const down: RateLimitStore = {
      hit: () => {
        throw new StoreUnavailable('test store: down')
      },
    }
    const closed = limited(t, { max_requests: 1, window_seconds: 60, store: down })
    const r = await closed.app.inject({ url: '/data' })
    t.equal(r.statusCode, 503)
    t.same(r.json(), { ok: false, error: 'rate_limit_unavailable', message: 'Rate limit unavailable, retry later' })
    t.equal(closed.calls.n, 0)
    const open = limited(t, { max_requests: 1, window_seconds: 60, store: down, fail_open: true })
    const o = await open.app.inject({ url: '/data' })
    t.equal(o.statusCode, 200)
    t.equal(o.headers['x-ratelimit-limit'], undefined, 'uncounted, without rate headers')
    // Only the StoreUnavailable kind says "down for now": another error with status 503 is a bug of the store.
    const other: RateLimitStore = { hit: () => Promise.reject(Object.assign(new Error('boom'), { status: 503 })) }
    const broken = limited(t, { max_requests: 1, window_seconds: 60, store: other, fail_open: true })
    t.equal((await broken.app.inject({ url: '/data' })).statusCode, 500)
  })

  t.test(
    'a 503 rate_limit_unavailable says Retry-After: 1, however the store failed and whatever the window',
    async (t) => {
      const down = (): never => {
        throw new StoreUnavailable('test store: down')
      }
      const stores: Record<string, RateLimitStore> = {
        'a synchronous throw': { hit: down },
        'a native rejection': { hit: () => Promise.reject(new StoreUnavailable('test store: down')) },
        'a foreign thenable rejection': { hit: () => foreign_reject(new StoreUnavailable('test store: down')) },
      }
      for (const [name, store] of Object.entries(stores)) {
        for (const window_seconds of [1, 60, 86_400]) {
          const { app, calls } = limited(t, { max_requests: 1, window_seconds, store })
          const r = await app.inject({ url: '/data' })
          t.equal(r.statusCode, 503, `${name}, ${window_seconds} s window: 503`)
          t.equal(r.headers['retry-after'], '1', `${name}, ${window_seconds} s window: Retry-After 1`)
          t.same(
            r.json(),
            { ok: false, error: 'rate_limit_unavailable', message: 'Rate limit unavailable, retry later' },
            `${name}: the body unchanged`,
          )
          t.equal(r.headers['x-ratelimit-limit'], undefined, `${name}: no counts to show`)
          t.equal(calls.n, 0, `${name}: the route did not run`)
        }
      }
      // fail_open lets the request through: no 503, so no Retry-After.
      const open = limited(t, { max_requests: 1, window_seconds: 60, store: { hit: down }, fail_open: true })
      const o = await open.app.inject({ url: '/data' })
      t.equal(o.statusCode, 200)
      t.equal(o.headers['retry-after'], undefined)
    },
  )

  t.test('throws at creation for bad IETF and allow options', async (t) => {
    t.throws(() => rate_limit({ max_requests: 1, window_seconds: 1, policy: 'a"b' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: policy must be printable ASCII without " or \\; got "a\\"b"',
    })
    t.throws(() => rate_limit({ max_requests: 1, window_seconds: 1, ietf_headers: 'yes' as unknown as boolean }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
    })
    t.throws(() => rate_limit({ max_requests: 1, window_seconds: 1, allow: true as unknown as () => boolean }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
    })
  })

  t.test('throws at creation for bad options', async (t) => {
    t.throws(() => rate_limit({ max_requests: 0, window_seconds: 60 }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: max_requests must be an integer >= 1; got 0',
    })
    t.throws(() => rate_limit({ max_requests: 10, window_seconds: 1.5 }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: window_seconds must be an integer >= 1; got 1.5',
    })
    t.throws(() => rate_limit({ max_requests: 10, window_seconds: 60, key: 'email' as 'ip' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: key must be one of ip, user, api_key; got "email"',
    })
    t.throws(() => rate_limit({ max_requests: 10, window_seconds: 60, store: {} as RateLimitStore }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: store.hit must be a function; got undefined',
    })
    t.throws(() => rate_limit({ max_requests: 10, window_seconds: 60, namespace: 'a b' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
    })
    t.throws(() => rate_limit({ max_requests: 10, window_seconds: 60, key_fn: 'ip' as unknown as () => string }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'rate_limit: key_fn must be a function; got "ip"',
    })
  })
})

t.test('sliding_count', async (t) => {
  t.test('weighs the previous window by how much of it still overlaps', async (t) => {
    t.equal(sliding_count({ current: 3, previous: 10, window_start_ms: 10_000 }, 10_000, 10_000), 13)
    t.equal(sliding_count({ current: 3, previous: 10, window_start_ms: 10_000 }, 12_500, 10_000), 10.5)
    t.equal(sliding_count({ current: 3, previous: 10, window_start_ms: 10_000 }, 20_000, 10_000), 3)
  })
})

t.test('retry_after_ms', async (t) => {
  t.test('waits inside the window while the previous window decays', async (t) => {
    t.equal(retry_after_ms({ current: 1, previous: 10, window_start_ms: 10_000 }, 10_000, 10_000, 10), 2_000)
  })

  t.test('waits into the next window when this one is full', async (t) => {
    t.equal(
      retry_after_ms({ current: 11, previous: 0, window_start_ms: 0 }, 1_000, 10_000, 10),
      9_000 + 10_000 * (1 - 9 / 11),
    )
    t.equal(retry_after_ms({ current: 10, previous: 0, window_start_ms: 0 }, 4_000, 10_000, 10), 6_000 + 1_000)
  })

  t.test('waits a whole further window with a limit of one', async (t) => {
    t.equal(retry_after_ms({ current: 2, previous: 0, window_start_ms: 0 }, 0, 10_000, 1), 20_000)
  })
})
