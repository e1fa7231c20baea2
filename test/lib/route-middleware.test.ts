// A route's own middleware (`use` in its schema): where it runs in the chain, what it refuses before validation, and
// how the route's limits, rate limits, order checks and OpenAPI document take it into account.
import { createSigner } from 'fast-jwt'
import t from 'tap'
import { adapt_ctx, middleware, type Middleware } from '../../index.js'
import { field, schema } from '../../lib/validation/index.js'
import { build } from '../helpers/build.js'
import { capture_log } from '../helpers/log.js'

const SECRET = 'route-middleware-secret-0123456789-0123456789-0123456789'
const token = createSigner({ key: SECRET, algorithm: 'HS256' })({ sub: 'ada' })
const bearer = { authorization: `Bearer ${token}` }
const Order = schema({ qty: field.integer().min(1).required() })

/** Middleware that appends its name to the `x-trace` response header before the rest of the chain. */
function trace(name: string): Middleware {
  return (_req, res, next) => {
    res.header('x-trace', [res.get_header('x-trace'), name].filter(Boolean).join(' '))
    return next()
  }
}

t.test("runs a route's middleware after the prefix middleware, in order, and before validation", async (t) => {
  const app = build(t, (app) => {
    app.post('/orders', { use: [trace('route-a'), trace('route-b')], body: Order }, (_req, res) => {
      res.header('x-trace', `${res.get_header('x-trace')} handler`).json('ok', true)
    })
    // Registered after the route, prefix middleware still runs first: the route's own are the most specific.
    app.use(trace('global'))
    app.group('/admin', (g) => {
      g.use(trace('group'))
      g.get('/stats', { use: trace('stats') }, (_req, res) => res.json('ok', true))
      g.get('/plain', (_req, res) => res.json('ok', true))
    })
  })
  const ok = await app.inject({ method: 'POST', url: '/orders', payload: { qty: 2 } })
  t.same([ok.statusCode, ok.headers['x-trace']], [200, 'global route-a route-b handler'])
  const invalid = await app.inject({ method: 'POST', url: '/orders', payload: { qty: 0 } })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().error, 'validation_failed')
  t.equal(invalid.headers['x-trace'], 'global route-a route-b', 'the route middleware ran, the handler did not')
  const stats = await app.inject({ url: '/admin/stats' })
  t.same([stats.statusCode, stats.headers['x-trace']], [200, 'global group stats'], 'one middleware without a list')
  const plain = await app.inject({ url: '/admin/plain' })
  t.equal(plain.headers['x-trace'], 'global group', "another route of the group does not run the route's own")
})

t.test('refuses a caller without a token with 401 before reading an invalid body', async (t) => {
  const seen: unknown[] = []
  const app = build(t, (app) => {
    app.post('/orders', { use: adapt_ctx(middleware.auth.jwt({ secret: SECRET })), body: Order }, (req, res) => {
      seen.push(req.valid('body'))
      res.status(201).json('ok', true)
    })
    app.get('/orders', (_req, res) => res.json('ok', true, 'public', true))
  })
  const anonymous = await app.inject({ method: 'POST', url: '/orders', payload: { qty: 'many' } })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().error, 'missing_token')
  t.match(anonymous.headers['www-authenticate'], /^Bearer/)
  const forged = await app.inject({
    method: 'POST',
    url: '/orders',
    payload: { qty: 1 },
    headers: {
      authorization: `Bearer ${token.slice(0, -2)}xx`,
    },
  })
  t.equal(forged.statusCode, 401, 'a tampered token is refused before the handler')
  const invalid = await app.inject({ method: 'POST', url: '/orders', payload: { qty: 'many' }, headers: bearer })
  t.same([invalid.statusCode, invalid.json().error], [400, 'validation_failed'], 'a signed-in caller gets the 400')
  const created = await app.inject({ method: 'POST', url: '/orders', payload: { qty: 3 }, headers: bearer })
  t.equal(created.statusCode, 201)
  t.same(seen, [{ qty: 3 }], 'the handler ran once, for the valid request')
  const other = await app.inject({ url: '/orders' })
  t.same([other.statusCode, other.json().public], [200, true], 'GET on the same path is not covered')
})

t.test('covers HEAD through the GET route, and leaves the automatic OPTIONS answer alone', async (t) => {
  const app = build(t, (app) => {
    app.get('/secret', { use: adapt_ctx(middleware.auth.jwt({ secret: SECRET })) }, (_req, res) => {
      res.json('secret', 'yes')
    })
  })
  const head = await app.inject({ method: 'HEAD', url: '/secret' })
  t.equal(head.statusCode, 401, "HEAD does not get past the GET route's middleware")
  const signed = await app.inject({ method: 'HEAD', url: '/secret', headers: bearer })
  t.equal(signed.statusCode, 200)
  const options = await app.inject({ method: 'OPTIONS', url: '/secret' })
  t.same([options.statusCode, options.headers.allow], [204, 'GET, HEAD, OPTIONS'])
})

t.test("lowers the route's body limit, and its own override rate limit replaces the App's", async (t) => {
  const app = build(t, (app) => {
    const limit = (max_requests: number, override = false) =>
      adapt_ctx(middleware.security.rate_limit({ max_requests, window_seconds: 60, now: () => 0, override }))
    // The App's limit of 3 counts the two /small requests; /login replaces it with its own 4.
    app.use(limit(3))
    app.post('/small', { use: adapt_ctx(middleware.security.body_limit({ max_bytes: 8 })) }, (req, res) =>
      res.json('length', req.body().length),
    )
    app.post('/login', { use: limit(4, true) }, (_req, res) => res.json('ok', true))
  })
  const small = await app.inject({
    method: 'POST',
    url: '/small',
    payload: 'abcd',
    headers: { 'content-type': 'text/plain' },
  })
  t.same([small.statusCode, small.json().length], [200, 4])
  const big = await app.inject({
    method: 'POST',
    url: '/small',
    payload: 'x'.repeat(9),
    headers: { 'content-type': 'text/plain' },
  })
  t.same([big.statusCode, big.json().error], [413, 'payload_too_large'])
  const statuses: number[] = []
  const limits: unknown[] = []
  for (let i = 0; i < 5; i++) {
    const r = await app.inject({ method: 'POST', url: '/login' })
    statuses.push(r.statusCode)
    limits.push(r.headers['x-ratelimit-limit'])
  }
  t.same(statuses, [200, 200, 200, 200, 429], "the route's limit of 4 applies, the App's does not count")
  t.same(limits, ['4', '4', '4', '4', '4'])
})

t.test('refuses, at registration, a route middleware that is not App middleware', async (t) => {
  const app = build(t)
  t.throws(() => app.post('/x', { use: 'nope' as unknown as Middleware }, (_req, res) => res.json('ok', true)), {
    code: 'FW_ERR_APP_BAD_HANDLER',
    message: /the middleware of POST \/x/,
  })
  t.throws(
    () =>
      app.post('/y', { use: [trace('a'), middleware.auth.jwt({ secret: SECRET }) as never] }, (_req, res) =>
        res.send(),
      ),
    { code: 'FW_ERR_APP_UNADAPTED_MIDDLEWARE', message: /jwt/ },
  )
  const r = await app.inject({ method: 'POST', url: '/x' })
  t.equal(r.statusCode, 404, 'the refused route was not added')
})

t.test("refuses cors in a route's use, where the preflight would never run it", async (t) => {
  const app = build(t)
  const cors = adapt_ctx(middleware.security.cors({ origins: ['https://app.example.com'] }))
  t.throws(() => app.post('/orders', { use: [trace('a'), cors] }, (_req, res) => res.send()), {
    code: 'FW_ERR_APP_ROUTE_CORS',
    message: /^POST \/orders: cors cannot be a route's own middleware/,
  })
  t.throws(() => app.ws('/feed', () => {}, { use: middleware.app.cors_dev() }), { code: 'FW_ERR_APP_ROUTE_CORS' })
  app.use('/orders', cors)
  app.post('/orders', (_req, res) => res.json('ok', true))
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/orders',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
  })
  t.same(
    [preflight.statusCode, preflight.headers['access-control-allow-origin']],
    [204, 'https://app.example.com'],
    'on a prefix, it answers the preflight',
  )
})

t.test('refuses a route chain whose per-user rate limit runs before its authentication', async (t) => {
  const app = build(t, (app) => {
    const per_user = adapt_ctx(middleware.security.rate_limit({ max_requests: 5, window_seconds: 60, key: 'user' }))
    app.get('/p', { use: [per_user, adapt_ctx(middleware.auth.jwt({ secret: SECRET }))] }, (_req, res) => res.send())
  })
  await t.rejects(app.inject({ url: '/p' }), { code: 'FW_ERR_APP_IDENTITY_ORDER' })
})

t.test("redacts, in the access line, the query parameter a route's api_key reads", async (t) => {
  const out = capture_log(t)
  const app = build(
    t,
    (app) => {
      const key = adapt_ctx(middleware.auth.api_key({ allowed_keys: ['k-secret-9'], query_param: 'route_key' }))
      app.get('/keyed', { use: key }, (_req, res) => res.json('ok', true))
    },
    { access_log: 'info' },
  )
  t.equal((await app.inject({ url: '/keyed?route_key=k-secret-9&page=1' })).statusCode, 200)
  t.notMatch(out.text(), /secret/)
  t.match(out.text(), /path="\/keyed\?route_key=\[redacted\]&page=1"/)
})

t.test("describes a route's own authentication in the OpenAPI document", async (t) => {
  const app = build(t, (app) => {
    app.post('/orders', { use: adapt_ctx(middleware.auth.jwt({ secret: SECRET })), body: Order }, (_req, res) =>
      res.json('ok', true),
    )
    app.get('/health', (_req, res) => res.json('ok', true))
    app.openapi({ info: { title: 'Orders', version: '1' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const post = doc.paths['/orders'].post
  t.ok(post.security?.length > 0, 'the route requires its scheme')
  t.ok(post.responses['401'], 'and answers 401')
  t.equal(doc.paths['/health'].get.security, undefined, 'another route says nothing of it')
  t.equal(doc.paths['/health'].get.responses['401'], undefined)
})
