import t, { type Test } from 'tap'
import { demos } from '../../demo/registry.js'
import { setup_session } from '../../demo/session.js'
import { App } from '../../index.js'

const SECRET = 'demo-session-secret-0123456789abcdef'

function demo_app(t: Test): App {
  const app = new App({ access_log: false })
  setup_session(app, { secret: SECRET })
  app.get('/open', (_req, res) => void res.json('ok', true))
  t.teardown(() => app.close())
  return app
}

const cookie_of = (r: { headers: Record<string, unknown> }): string => String(r.headers['set-cookie']).split(';')[0]!

t.test('session demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos.session?.name, 'session')
  })

  t.test('counts n=1, n=2, n=3 with the same cookie', async (t) => {
    const app = demo_app(t)
    const first = await app.inject({ url: '/session' })
    t.equal(first.statusCode, 200)
    t.equal(first.headers['content-type'], 'text/plain; charset=utf-8')
    t.equal(first.body, 'n=1')
    const cookie = cookie_of(first)
    t.match(cookie, /^sid=[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/)
    t.equal((await app.inject({ url: '/session', headers: { cookie } })).body, 'n=2')
    t.equal((await app.inject({ url: '/session', headers: { cookie } })).body, 'n=3')
  })

  t.test('starts again at n=1 without the cookie or with a forged one', async (t) => {
    const app = demo_app(t)
    const cookie = cookie_of(await app.inject({ url: '/session' }))
    t.equal((await app.inject({ url: '/session' })).body, 'n=1')
    t.equal((await app.inject({ url: '/session', headers: { cookie: cookie.slice(0, -3) + 'AAA' } })).body, 'n=1')
  })

  t.test('ends at N after N concurrent requests with the same cookie', async (t) => {
    const app = demo_app(t)
    const cookie = cookie_of(await app.inject({ url: '/session' }))
    const N = 30
    const rs = await Promise.all(Array.from({ length: N }, () => app.inject({ url: '/session', headers: { cookie } })))
    t.same(rs.map((r) => r.body).sort(), Array.from({ length: N }, (_, i) => `n=${i + 2}`).sort())
    t.equal((await app.inject({ url: '/session', headers: { cookie } })).body, `n=${N + 2}`)
  })

  t.test("leaves the app's other routes without a session cookie", async (t) => {
    const app = demo_app(t)
    const r = await app.inject({ url: '/open' })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['set-cookie'], undefined)
  })
})
