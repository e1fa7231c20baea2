// The showcase App: the page at / and, through it, the reference authentication API and the session counter side by
// side.
import t, { type Test } from 'tap'
import { build_showcase, SHOWCASE_PREFIXES } from '../../demo/showcase.js'
import { PAGE_HTML } from '../../demo/showcase-page.js'
import { App } from '../../index.js'

async function showcase(t: Test): Promise<App> {
  const app = await build_showcase(new App({ access_log: false }))
  t.teardown(() => app.close())
  return app
}

const json_post = (app: App, url: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) })

t.test('build_showcase', async (t) => {
  t.test('mounts the page, the auth API and the session counter at the root', async (t) => {
    t.same([SHOWCASE_PREFIXES['showcase-page'], SHOWCASE_PREFIXES['auth-api'], SHOWCASE_PREFIXES.session], ['', '', ''])
    const app = await showcase(t)
    const page = await app.inject({ url: '/' })
    t.same([page.statusCode, page.headers['content-type'], page.body], [200, 'text/html; charset=utf-8', PAGE_HTML])
  })

  t.test('runs the page flow: register, log in, /auth/me, /auth/admin, the session counter', async (t) => {
    const app = await showcase(t)
    const ada = { email: 'Ada@Example.com', password: 'correct horse', confirm: 'correct horse' }
    const registered = await json_post(app, '/auth/register', ada)
    t.same(
      [registered.statusCode, registered.json()],
      [201, { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } }],
    )
    t.equal((await json_post(app, '/auth/register', ada)).statusCode, 409)
    const login = await json_post(app, '/auth/login', { email: ada.email, password: ada.password })
    t.equal(login.statusCode, 200)
    const authorization = `Bearer ${login.json().token as string}`
    const me = await app.inject({ url: '/auth/me', headers: { authorization } })
    t.same(me.json(), { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } })
    const admin = await app.inject({ url: '/auth/admin', headers: { authorization } })
    t.same([admin.statusCode, admin.json()], [403, { ok: false, error: 'admin role required' }])

    const first = await app.inject({ url: '/session', headers: { authorization } })
    t.equal(first.body, 'n=1')
    const cookie = String(first.headers['set-cookie']).split(';')[0]!
    t.match(cookie, /^sid=/)
    for (const n of [2, 3])
      t.equal((await app.inject({ url: '/session', headers: { cookie, authorization } })).body, `n=${n}`)
  })

  t.test('keeps the other demos under their prefixes beside the page', async (t) => {
    const app = await showcase(t)
    t.same((await app.inject({ url: '/health' })).json(), { ok: true })
    t.equal((await app.inject({ url: '/key/secure' })).statusCode, 401)
    t.equal((await app.inject({ url: '/jwt/secure' })).statusCode, 401)
    t.equal((await app.inject({ url: '/security/api/ping' })).statusCode, 200)
    t.equal((await app.inject({ url: '/auth/nothing' })).statusCode, 404)
  })
})

t.test('build_showcase openapi', async (t) => {
  t.test(
    'serves a valid OpenAPI 3.1 document with the auth API and http-api operations, and the docs page',
    async (t) => {
      const { validate } = await import('@readme/openapi-parser')
      const app = await showcase(t)
      const doc = (await app.inject({ url: '/openapi.json' })).json()
      const result = await validate(structuredClone(doc))
      t.equal(result.valid, true, JSON.stringify(result.valid ? [] : result.errors))
      for (const [path, method] of [
        ['/auth/register', 'post'],
        ['/auth/login', 'post'],
        ['/auth/me', 'get'],
        ['/auth/admin', 'get'],
        ['/users/{id}', 'get'],
        ['/users', 'post'],
      ]) {
        t.ok(doc.paths[path!]?.[method!], `${method} ${path}`)
      }
      t.same(doc.paths['/auth/register'].post.requestBody.content['application/json'].schema.required, [
        'email',
        'password',
        'confirm',
      ])
      t.notOk(doc.paths['/static/{wildcard}'], 'static files are not operations')
      const docs = await app.inject({ url: '/docs' })
      t.equal(docs.statusCode, 200)
    },
  )
})

t.test('showcase operations', async (t) => {
  t.test('serves /metrics, /ready and /live, and compresses and tags its answers', async (t) => {
    const app = await build_showcase(new App({ access_log: false }))
    t.teardown(() => app.close())
    await app.inject('/health')
    const metrics = await app.inject('/metrics')
    t.equal(metrics.statusCode, 200)
    t.match(metrics.body, /fw_http_requests_total\{method="GET",route="\/health",status="200"\} 1/)
    t.equal((await app.inject('/ready')).statusCode, 200)
    t.equal((await app.inject('/live')).statusCode, 200)
    const page = await app.inject({ url: '/metrics', headers: { 'accept-encoding': 'gzip' } })
    t.equal(page.headers['content-encoding'], 'gzip')
    const health = await app.inject('/health')
    const again = await app.inject({ url: '/health', headers: { 'if-none-match': String(health.headers.etag) } })
    t.equal(again.statusCode, 304)
  })
})

t.test('showcase OpenAPI document: every route that takes a body documents it', async (t) => {
  const app = await build_showcase(new App({ access_log: false }))
  t.teardown(() => app.close())
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  // Actions that take no body: they switch the demo upstream.
  const bodiless = new Set(['post /cache/upstream/fail', 'post /cache/upstream/ok'])
  const missing = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown }>>)
    .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method} ${path}`, method, op })))
    .filter(
      (o) => ['post', 'put', 'patch'].includes(o.method) && !bodiless.has(o.name) && o.op.requestBody === undefined,
    )
    .map((o) => o.name)
  t.strictSame(missing, [])
  const content = (path: string, method: string) => Object.keys(doc.paths[path][method].requestBody.content)
  t.strictSame(content('/files/upload', 'post'), ['multipart/form-data'])
  t.strictSame(content('/security/form', 'post'), ['application/x-www-form-urlencoded'])
  t.strictSame(content('/log/logging', 'put'), ['application/json'])
})
