import t, { type Test } from 'tap'
import { demos } from '../../demo/registry.js'
import { PAGE_CSP, setup_security } from '../../demo/security.js'
import { App } from '../../index.js'

const SECRET = 'test-session-secret-0123456789abcdef'

function demo_app(t: Test, prefix = '', api_origins?: string[]): App {
  const app = new App({ access_log: false })
  const options = api_origins === undefined ? { session_secret: SECRET } : { session_secret: SECRET, api_origins }
  if (prefix === '') setup_security(app, options)
  else app.group(prefix, (g) => setup_security(g, options))
  t.teardown(() => app.close())
  return app
}

/** The cookies a response sets, as one `Cookie` header value. */
function cookies_of(set_cookie: string | string[] | undefined): string {
  return ([] as string[])
    .concat(set_cookie ?? [])
    .map((c) => c.split(';')[0])
    .join('; ')
}

t.test('security demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos.security?.name, 'security')
  })

  t.test('answers GET /api/ping with {ok:true} behind security headers, CORS and the rate limit', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({ url: '/api/ping', headers: { origin: 'http://localhost:5173' } })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true })
    t.equal(r.headers['x-content-type-options'], 'nosniff')
    t.equal(r.headers['access-control-allow-origin'], 'http://localhost:5173')
    t.equal(r.headers['access-control-allow-credentials'], 'true')
    t.equal(r.headers['x-ratelimit-limit'], '60')
    t.equal(r.headers['x-ratelimit-remaining'], '59')
  })

  t.test('refuses a preflight to /api from another origin with 403 cors_forbidden', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({
      method: 'OPTIONS',
      url: '/api/ping',
      headers: { origin: 'http://evil-localhost:5173', 'access-control-request-method': 'GET' },
    })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'cors_forbidden', message: 'CORS origin not allowed' })
  })

  t.test('limits /api to 60 requests a minute', async (t) => {
    const app = demo_app(t)
    const codes: number[] = []
    for (let i = 0; i < 61; i++) codes.push((await app.inject({ url: '/api/ping' })).statusCode)
    t.same(codes, [...Array(60).fill(200), 429])
    t.equal((await app.inject({ url: '/' })).statusCode, 200, 'the page is not under the /api limit')
  })

  t.test('serves the page with its CSP, the CSRF token in the form and a session visit counter', async (t) => {
    const app = demo_app(t)
    const first = await app.inject({ url: '/' })
    t.equal(first.statusCode, 200)
    t.equal(first.headers['content-type'], 'text/html; charset=utf-8')
    t.equal(first.headers['content-security-policy'], PAGE_CSP)
    t.equal(first.headers['x-frame-options'], 'DENY')
    const cookie = cookies_of(first.headers['set-cookie'])
    const token = /csrf_token=([^;]+)/.exec(cookie)![1]!
    t.match(first.body, `<input type="hidden" name="_csrf" value="${token}">`)
    t.match(first.body, '<strong id="visits">1</strong>')
    t.match(first.body, '<form id="form" method="post" action="/form">')
    const second = await app.inject({ url: '/', headers: { cookie } })
    t.match(second.body, '<strong id="visits">2</strong>')
    const other = await app.inject({ url: '/' })
    t.match(other.body, '<strong id="visits">1</strong>', 'a new visitor has a session of its own')
  })

  t.test('accepts POST /form with the token and refuses it without', async (t) => {
    const app = demo_app(t)
    const first = await app.inject({ url: '/' })
    const cookie = cookies_of(first.headers['set-cookie'])
    const token = /csrf_token=([^;]+)/.exec(cookie)![1]!
    const headers = { cookie, 'content-type': 'application/x-www-form-urlencoded' }
    const ok = await app.inject({ method: 'POST', url: '/form', headers, payload: `_csrf=${token}&message=hi%20there` })
    t.equal(ok.statusCode, 200)
    t.same(ok.json(), { ok: true, message: 'hi there', visits: 1 })
    const refused = await app.inject({ method: 'POST', url: '/form', headers, payload: 'message=hi' })
    t.equal(refused.statusCode, 403)
    t.same(refused.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
  })

  t.test(
    "binds the form's token to the session: an attacker's own token replayed in the victim's session fails",
    async (t) => {
      const app = demo_app(t)
      const visit = async () => {
        const cookie = cookies_of((await app.inject({ url: '/' })).headers['set-cookie'])
        return { sid: /security_sid=[^;]+/.exec(cookie)![0], token: /csrf_token=([^;]+)/.exec(cookie)![1]! }
      }
      const victim = await visit()
      const attacker = await visit()
      const post = (sid: string, token: string) =>
        app.inject({
          method: 'POST',
          url: '/form',
          headers: { cookie: `${sid}; csrf_token=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
          payload: `_csrf=${token}&message=transfer`,
        })
      const replayed = await post(victim.sid, attacker.token)
      t.equal(replayed.statusCode, 403)
      t.same(replayed.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
      t.equal((await post(victim.sid, victim.token)).statusCode, 200)
    },
  )

  t.test('serves the page script and stylesheet, and nothing else of its folder', async (t) => {
    const app = demo_app(t)
    const js = await app.inject({ url: '/security-page/app.js' })
    t.equal(js.statusCode, 200)
    t.match(js.headers['content-type'], /javascript/)
    t.equal(js.headers['content-security-policy'], PAGE_CSP)
    t.equal((await app.inject({ url: '/security-page/style.css' })).statusCode, 200)
    const html = await app.inject({ url: '/security-page/index.html' })
    t.equal(html.statusCode, 404)
    t.same(html.json(), { ok: false, error: 'not_found', message: 'File not found' })
  })

  t.test('works under a prefix, as in the showcase', async (t) => {
    const app = demo_app(t, '/security')
    const page = await app.inject({ url: '/security' })
    t.equal(page.statusCode, 200)
    t.match(page.body, '<form id="form" method="post" action="/security/form">')
    t.match(page.body, '<script src="/security/security-page/app.js" defer></script>')
    t.match(page.body, '<body data-base="/security">')
    t.equal((await app.inject({ url: '/security//' })).statusCode, 200)
    t.match(
      (await app.inject({ url: '/security//' })).body,
      '<body data-base="/security">',
      'doubled slashes never make a protocol-relative URL',
    )
    t.same((await app.inject({ url: '/security/api/ping' })).json(), { ok: true })
  })

  t.test('takes the /api allow-list from its options', async (t) => {
    const app = demo_app(t, '', ['http://127.0.0.1:4000'])
    const r = await app.inject({ url: '/api/ping', headers: { origin: 'http://127.0.0.1:4000' } })
    t.equal(r.headers['access-control-allow-origin'], 'http://127.0.0.1:4000')
    const dev = await app.inject({ url: '/api/ping', headers: { origin: 'http://localhost:5173' } })
    t.equal(dev.headers['access-control-allow-origin'], undefined)
  })
})
