import t, { type Test } from 'tap'
import { App } from '../../../../index.js'
import * as fw from '../../../../index.js'

const { cors_dev, csrf_dev, security_headers_dev, rate_limit_dev, rate_limit, use_on_prefix } = fw.middleware.app

function app_with(t: Test, setup: (app: App) => void): App {
  const app = new App({ access_log: false })
  setup(app)
  app.get('/data', (_req, res) => void res.json('ok', true))
  app.post('/data', (_req, res) => void res.json('ok', true))
  t.teardown(() => app.close())
  return app
}

t.test('cors_dev', async (t) => {
  t.test('allows http://localhost:5173 with credentials and refuses other origins', async (t) => {
    const app = app_with(t, (a) => a.use(cors_dev()))
    const ok = await app.inject({ url: '/data', headers: { origin: 'http://localhost:5173' } })
    t.equal(ok.headers['access-control-allow-origin'], 'http://localhost:5173')
    t.equal(ok.headers['access-control-allow-credentials'], 'true')
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/data',
      headers: { origin: 'http://evil-localhost:5173', 'access-control-request-method': 'POST' },
    })
    t.equal(preflight.statusCode, 403)
    t.equal(preflight.json().error, 'cors_forbidden')
  })

  t.test('takes other origins', async (t) => {
    const app = app_with(t, (a) => a.use(cors_dev(['http://127.0.0.1:3000'])))
    const r = await app.inject({ url: '/data', headers: { origin: 'http://127.0.0.1:3000' } })
    t.equal(r.headers['access-control-allow-origin'], 'http://127.0.0.1:3000')
  })
})

t.test('csrf_dev', async (t) => {
  t.test('issues the csrf_token cookie and refuses a POST without the token', async (t) => {
    const app = app_with(t, (a) => a.use(csrf_dev()))
    const r = await app.inject({ url: '/data' })
    t.match(String(r.headers['set-cookie']), /^csrf_token=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/; SameSite=Lax$/)
    const post = await app.inject({ method: 'POST', url: '/data' })
    t.equal(post.statusCode, 403)
    t.same(post.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
  })
})

t.test('security_headers_dev', async (t) => {
  t.test('sets the default headers without HSTS or a CSP', async (t) => {
    const app = app_with(t, (a) => a.use(security_headers_dev()))
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['content-security-policy'], undefined)
    t.equal(r.headers['x-content-type-options'], 'nosniff')
    t.equal(r.headers['x-frame-options'], 'DENY')
    t.equal(r.headers['strict-transport-security'], undefined)
  })
})

t.test('rate_limit_dev', async (t) => {
  t.test('allows 60 requests per 60 seconds', async (t) => {
    const app = app_with(t, (a) => a.use(rate_limit_dev()))
    const codes: number[] = []
    for (let i = 0; i < 61; i++) codes.push((await app.inject({ url: '/data' })).statusCode)
    t.same(codes, [...Array(60).fill(200), 429])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['x-ratelimit-limit'], '60')
    t.equal(r.json().error, 'rate_limit_exceeded')
  })
})

t.test('rate_limit', async (t) => {
  t.test('is the security rate limit as App middleware', async (t) => {
    const app = app_with(t, (a) => a.use(rate_limit({ max_requests: 1, window_seconds: 60 })))
    t.equal((await app.inject({ url: '/data' })).statusCode, 200)
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 429)
    t.equal(r.headers['x-ratelimit-limit'], '1')
  })
})

t.test('use_on_prefix', async (t) => {
  t.test('applies middleware under the prefix only, in addition to global middleware', async (t) => {
    const app = app_with(t, (a) => {
      a.use(rate_limit({ max_requests: 10, window_seconds: 60 }))
      t.equal(use_on_prefix(a, '/auth', rate_limit({ max_requests: 1, window_seconds: 60 })), a)
      a.post('/auth/login', (_req, res) => void res.json('ok', true))
    })
    const login = async () => (await app.inject({ method: 'POST', url: '/auth/login' })).statusCode
    t.same([await login(), await login()], [200, 429])
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['x-ratelimit-remaining'], '7', 'both logins counted globally')
  })
})
