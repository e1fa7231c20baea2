import Fastify from 'fastify'
import t from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App, FwError, HttpError, StoreUnavailable, middleware, type Middleware } from '../../index.js'
import { ERR_AUTH_JWKS_UNAVAILABLE } from '../../lib/middleware/auth/errors.js'
import { ERR_REDIS_UNAVAILABLE } from '../../lib/redis/errors.js'
import { build, listening } from '../helpers/build.js'
import { send } from '../helpers/http.js'
import { capture_log } from '../helpers/log.js'

const INTERNAL = { ok: false, error: 'internal_error', message: 'Internal Server Error' }
const cors = middleware.app.adapt_ctx(middleware.security.cors({ origins: ['https://app.example'] }))
const headers = middleware.app.adapt_ctx(middleware.security.security_headers())

/** A domain error of the app's own, which only its `on_error` knows how to answer. */
class NotFound extends Error {}

const throws_http: Middleware = () => {
  throw new HttpError(401, 'no_tenant', 'Tenant header missing', { headers: { 'www-authenticate': 'Tenant' } })
}

t.test('HttpError in a chain', async (t) => {
  const out = capture_log(t)
  const app = build(t, (app) => {
    app.use(cors)
    app.get('/sync', () => {
      throw new HttpError(404, 'user_not_found', 'User not found')
    })
    app.get('/async', async (_req, res) => {
      res.header('set-cookie', 'a=1').header('etag', '"x"').header('x-kept', 'yes')
      await Promise.resolve()
      throw new HttpError(429, 'quota_exceeded', 'Daily quota exceeded', {
        headers: { 'retry-after': '3600' },
        details: { limit: 100 },
      })
    })
    app.get('/hidden', () => {
      throw new HttpError(503, 'db_down', 'pool exhausted on db-7')
    })
    app.group('/mw', (g) => {
      g.use(throws_http)
      g.get('/x', (_req, res) => res.json('ok', true))
    })
  })
  const origin = { origin: 'https://app.example' }

  t.test('answers its status and body from a handler', async (t) => {
    const r = await app.inject({ url: '/sync', headers: origin })
    t.equal(r.statusCode, 404)
    t.same(r.json(), { ok: false, error: 'user_not_found', message: 'User not found' })
    t.equal(r.headers['access-control-allow-origin'], 'https://app.example')
    t.equal(r.headers['cache-control'], 'no-store')
  })

  t.test('answers with its headers and details; the failed body headers go, the others stay', async (t) => {
    const r = await app.inject({ url: '/async' })
    t.equal(r.statusCode, 429)
    t.equal(r.body, '{"ok":false,"error":"quota_exceeded","message":"Daily quota exceeded","details":{"limit":100}}')
    t.equal(r.headers['retry-after'], '3600')
    t.equal(r.headers['x-kept'], 'yes')
    t.equal(r.headers['set-cookie'], undefined)
    t.equal(r.headers.etag, undefined)
  })

  t.test('answers a middleware throw, with the headers of the middleware before it', async (t) => {
    const r = await app.inject({ url: '/mw/x', headers: origin })
    t.equal(r.statusCode, 401)
    t.same(r.json(), { ok: false, error: 'no_tenant', message: 'Tenant header missing' })
    t.equal(r.headers['www-authenticate'], 'Tenant')
    t.equal(r.headers['access-control-allow-origin'], 'https://app.example')
  })

  t.test('hides a 5xx message from the client and logs it', async (t) => {
    const before = out.text().length
    const r = await app.inject({ url: '/hidden' })
    t.equal(r.statusCode, 503)
    t.same(r.json(), { ok: false, error: 'db_down', message: 'Service Unavailable' })
    t.match(out.text().slice(before), /\[error\] handler failed .*pool exhausted on db-7/)
  })

  t.test('logs no client error', async (t) => {
    const before = out.text().length
    await app.inject({ url: '/sync' })
    t.equal(out.text().slice(before), '')
  })
})

t.test('App.on_error', async (t) => {
  const out = capture_log(t)
  const seen: unknown[] = []
  const app = build(t, (app) => {
    app.use(headers).use(cors)
    app.on_error((err, req, res) => {
      seen.push(err)
      if (err instanceof NotFound) res.error(404, 'thing_not_found', `${req.path()}: ${err.message}`)
      if (err instanceof Error && err.message === 'async')
        return Promise.resolve().then(() => res.status(418).text('teapot'))
      if (err instanceof Error && err.message === 'map fails') throw new Error('mapper broke')
      return undefined
    })
    app.get('/missing', () => {
      throw new NotFound('no such thing')
    })
    app.get('/async', () => Promise.reject(new Error('async')))
    app.get('/plain', () => {
      throw new Error('database exploded')
    })
    app.get('/http', () => {
      throw new HttpError(409, 'conflict_here', 'Already there')
    })
    app.get('/map-fails', (_req, res) => {
      res.json('partial', true)
      throw new Error('map fails')
    })
    app.group('/api', (api) => {
      api.on_error((err, _req, res) => void res.status(400).json('group', 'api', 'what', String(err)))
      api.get('/x', () => {
        throw new Error('in api')
      })
      api.group('/v1/{tenant}', (v1) => {
        v1.on_error((_err, req, res) => void res.status(422).json('group', 'v1', 'tenant', req.param('tenant', '')))
        v1.get('/y', () => {
          throw new Error('in v1')
        })
      })
      api.get('/v2/z', () => {
        throw new Error('in v2')
      })
    })
  })
  const origin = { origin: 'https://app.example' }

  t.test('maps an error of its own, once, with CORS and security headers on the answer', async (t) => {
    seen.length = 0
    const r = await app.inject({ url: '/missing', headers: origin })
    t.equal(r.statusCode, 404)
    t.same(r.json(), { ok: false, error: 'thing_not_found', message: '/missing: no such thing' })
    t.equal(r.headers['access-control-allow-origin'], 'https://app.example')
    t.equal(r.headers['x-content-type-options'], 'nosniff')
    t.equal(r.headers['x-frame-options'], 'DENY')
    t.equal(seen.length, 1)
    t.ok(seen[0] instanceof NotFound)
  })

  t.test('may answer asynchronously', async (t) => {
    const r = await app.inject({ url: '/async' })
    t.equal(r.statusCode, 418)
    t.equal(r.body, 'teapot')
  })

  t.test('answering nothing leaves the default: 500 without stack, logged', async (t) => {
    const before = out.text().length
    const r = await app.inject({ url: '/plain' })
    t.equal(r.statusCode, 500)
    t.same(r.json(), INTERNAL)
    t.notMatch(r.body, /exploded/)
    t.match(out.text().slice(before), /\[error\] handler failed .*database exploded/)
  })

  t.test('answering nothing leaves an HttpError its own answer', async (t) => {
    seen.length = 0
    const r = await app.inject({ url: '/http' })
    t.equal(r.statusCode, 409)
    t.same(r.json(), { ok: false, error: 'conflict_here', message: 'Already there' })
    t.ok(seen[0] instanceof HttpError)
  })

  t.test('throwing answers 500 and logs both errors', async (t) => {
    const before = out.text().length
    const r = await app.inject({ url: '/map-fails' })
    t.equal(r.statusCode, 500)
    t.same(r.json(), INTERNAL)
    const lines = out.text().slice(before)
    t.match(lines, /\[error\] handler failed .*map fails/)
    t.match(lines, /\[error\] on_error failed .*mapper broke/)
  })

  t.test("the nearest group's on_error wins", async (t) => {
    const api = await app.inject({ url: '/api/x' })
    t.equal(api.statusCode, 400)
    t.same(api.json(), { group: 'api', what: 'Error: in api' })
    const v1 = await app.inject({ url: '/api/v1/acme/y' })
    t.equal(v1.statusCode, 422)
    t.same(v1.json(), { group: 'v1', tenant: 'acme' })
    const v2 = await app.inject({ url: '/api/v2/z' })
    t.equal(v2.statusCode, 400)
    t.same(v2.json(), { group: 'api', what: 'Error: in v2' })
  })
})

t.test(
  "a group's on_error covers the requests a parameter route took under its prefix, dot segments too",
  async (t) => {
    // The router takes `..` as a segment: `/api/..` reaches `/{section}/{page}` with section `api`, while its canonical
    // path is `/`. Prefix middleware runs for it (app.test.ts); the group's error mapping must agree with it.
    const { port } = await listening(t, (app) => {
      app.on_error((_err, _req, res) => void res.status(500).json('group', 'root'))
      app.group('/api', (api) => void api.on_error((_err, _req, res) => void res.status(400).json('group', 'api')))
      app.get('/{section}/{page}', (req) => {
        throw new Error(`in ${req.param('section')}`)
      })
    })
    for (const path of ['/api/x', '/api/..', '/api/%2e%2e', '/API/.%2E']) {
      const r = await send(port, { path })
      t.same([r.status, JSON.parse(r.body)], [400, { group: 'api' }], path)
    }
    const other = await send(port, { path: '/other/..' })
    t.same([other.status, JSON.parse(other.body)], [500, { group: 'root' }])
  },
)

t.test('App.on_error refusals', async (t) => {
  t.test('refuses a non-function at startup', async (t) => {
    const app = build(t)
    for (const bad of [undefined, null, 'log', {}]) {
      t.throws(() => app.on_error(bad as never), {
        code: 'FW_ERR_APP_BAD_HANDLER',
        message: `on_error must be a function; got ${bad === null ? 'null' : typeof bad}`,
      })
    }
    t.throws(() => app.group('/g', (g) => g.on_error(42 as never)), { code: 'FW_ERR_APP_BAD_HANDLER' })
  })

  t.test('refuses a second on_error on the same prefix', async (t) => {
    const app = build(t, (app) => app.on_error(() => {}))
    t.throws(() => app.on_error(() => {}), {
      code: 'FW_ERR_APP_DUPLICATE_ON_ERROR',
      message: 'on_error is set twice for "/"; set it once per App or group prefix',
    })
    app.group('/a', (a) => a.on_error(() => {}))
    t.throws(() => app.group('/a', (a) => a.on_error(() => {})), { code: 'FW_ERR_APP_DUPLICATE_ON_ERROR' })
  })

  t.test('refuses on_error once the app has started', async (t) => {
    const app = build(t, (app) => app.get('/', (_req, res) => res.text('x')))
    await app.ready()
    t.throws(() => app.on_error(() => {}), { code: 'FW_ERR_APP_LOCKED' })
  })
})

t.test('on_error on unknown routes and WebSocket upgrades', async (t) => {
  const app = build(t, (app) => {
    app.use('/api', (req, _res, next) => {
      if (req.header('x-deny') !== undefined) throw new HttpError(403, 'denied_here', 'Denied')
      return next()
    })
    app.use((req) => {
      if (req.header('x-boom') !== undefined) throw new Error('boom')
      return Promise.reject(new Error('global'))
    })
    app.on_error((err, _req, res) => {
      if (!(err instanceof HttpError)) res.status(502).json('mapped', String(err))
    })
    app.ws('/api/ws', () => {})
  })

  t.test('a global middleware failure on an unknown route goes through on_error', async (t) => {
    const r = await app.inject({ url: '/nowhere', headers: { 'x-boom': '1' } })
    t.equal(r.statusCode, 502)
    t.same(r.json(), { mapped: 'Error: boom' })
  })

  t.test('an HttpError refusing a WebSocket upgrade answers its status', async (t) => {
    const r = await app.inject({ url: '/api/ws', headers: { 'x-deny': '1' } })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'denied_here', message: 'Denied' })
  })
})

t.test("an unknown route's 404 reaches the on_error over its path", async (t) => {
  const seen: string[] = []
  const app = build(t, (app) => {
    app.get('/plain', (_req, res) => res.text('x'))
    app.group('/api', (api) => {
      api.on_error((err, req, res) => {
        seen.push(`${req.path()} ${err instanceof HttpError ? `${err.status} ${err.code}` : String(err)}`)
        if (err instanceof HttpError && err.code === 'not_found')
          res.status(404).json({ errors: { body: ['not found'] } })
      })
      api.get('/tags', (_req, res) => res.json('tags', []))
    })
    app.group('/quiet', (quiet) => quiet.on_error(() => {}))
  })

  t.test("mapped in the API's own shape under the group", async (t) => {
    for (const [method, url] of [
      ['GET', '/api/nothing'],
      ['DELETE', '/api/tags'],
    ] as const) {
      const r = await app.inject({ method, url })
      t.same([r.statusCode, r.json()], [404, { errors: { body: ['not found'] } }], `${method} ${url}`)
    }
    t.same(seen, ['/api/nothing 404 not_found', '/api/tags 404 not_found'])
  })

  t.test('answered as before when the on_error answers nothing, or none covers the path', async (t) => {
    for (const url of ['/quiet/nothing', '/nothing']) {
      const r = await app.inject({ url })
      t.same([r.statusCode, r.json()], [404, { ok: false, error: 'not_found', message: 'Route not found' }], url)
    }
    t.equal(seen.length, 2, 'the /api mapper saw neither')
  })
})

t.test('StoreUnavailable', async (t) => {
  const down = (): never => {
    throw new StoreUnavailable('SqlStore.load: database unreachable')
  }
  const app = build(t, (app) => {
    app.get('/redis', () => Promise.reject(ERR_REDIS_UNAVAILABLE('RedisCacheStore', 'get', 'ECONNREFUSED')))
    app.get('/custom', down)
    const sessions = middleware.app.adapt_ctx(
      middleware.auth.session({ secret: 's'.repeat(32), store: { load: down, save: down, destroy: down } }),
    )
    app.get('/session', (_req, res) => res.text('x'))
    app.use('/session', sessions)
    const limited = middleware.app.rate_limit({ max_requests: 5, window_seconds: 60, store: { hit: down } })
    app.use('/limited', limited)
    app.get('/limited', (_req, res) => res.text('x'))
  })

  t.test('is an FwError of status 503 with its code', async (t) => {
    const err = new StoreUnavailable('x', { cause: 1 })
    t.ok(err instanceof FwError)
    t.equal(err.status, 503)
    t.equal(err.code, 'FW_ERR_STORE_UNAVAILABLE')
    t.equal(err.cause, 1)
    const redis = ERR_REDIS_UNAVAILABLE('RedisSessionStore', 'load', 'timeout')
    t.ok(redis instanceof StoreUnavailable)
    t.equal(redis.code, 'FW_ERR_REDIS_UNAVAILABLE')
    t.ok(ERR_AUTH_JWKS_UNAVAILABLE('timeout') instanceof StoreUnavailable)
  })

  t.test('reaching the App from a handler, answers 503 store_unavailable, not 500', async (t) => {
    for (const url of ['/redis', '/custom']) {
      const r = await app.inject({ url })
      t.equal(r.statusCode, 503, url)
      t.same(r.json(), { ok: false, error: 'store_unavailable', message: 'Service unavailable, retry later' }, url)
    }
  })

  t.test("thrown by a custom store, answers 503 with the middleware's code", async (t) => {
    const s = await app.inject({ url: '/session' })
    t.equal(s.statusCode, 503)
    t.same(s.json(), {
      ok: false,
      error: 'session_store_unavailable',
      message: 'Session store unavailable, retry later',
    })
    const r = await app.inject({ url: '/limited' })
    t.equal(r.statusCode, 503)
    t.same(r.json(), { ok: false, error: 'rate_limit_unavailable', message: 'Rate limit unavailable, retry later' })
  })
})

t.test('on_error of an App mounted under a prefix of a host Fastify app', async (t) => {
  const app = new App({ access_log: false })
  app.on_error((_err, _req, res) => void res.status(500).json('by', 'app'))
  app.group('/api', (api) => {
    api.on_error((_err, _req, res) => void res.status(500).json('by', 'api'))
    api.get('/x', () => {
      throw new Error('x')
    })
  })
  app.get('/y', () => {
    throw new Error('y')
  })
  const host = Fastify()
  await host.register(fw_plugin, { app, prefix: '/v1' })
  t.teardown(() => host.close())
  t.same((await host.inject('/v1/api/x')).json(), { by: 'api' })
  t.same((await host.inject('/v1/y')).json(), { by: 'app' })
})
