// The reference auth API's database stores on SQLite: users unique by email in the database, tokens kept as digests with
// their expiry, migrations idempotent, and a URL it cannot open refused with FW_ERR_AUTHAPI_BAD_OPTION.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { App } from '../../index.js'
import { auth_api, auth_storage_url, open_auth_storage, type AuthStorage } from '../../demo/auth-api/index.js'
import { digest } from '../../demo/auth-api/token-store.js'

async function storage(t: Test): Promise<{ url: string; s: AuthStorage }> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-auth-api-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const url = `sqlite:${join(dir, 'auth.sqlite')}`
  const s = await open_auth_storage(url)
  t.teardown(() => s.close())
  return { url, s }
}

t.test('SqlUsers: one user per email, kept across openings', async (t) => {
  const { url, s } = await storage(t)
  t.equal(await s.users.reserve('ada@example.com'), true)
  t.equal(await s.users.reserve('ada@example.com'), false, 'claimed in this process')
  t.same(await s.users.create('ada@example.com', 'pw', 'admin'), {
    id: 1,
    email: 'ada@example.com',
    password: 'pw',
    role: 'admin',
  })
  t.equal(await s.users.reserve('ada@example.com'), false, 'taken in the database')
  t.equal(await s.users.create('ada@example.com', 'other', 'user'), undefined, 'the unique constraint refuses a second')
  await s.close()
  const again = await open_auth_storage(url)
  t.teardown(() => again.close())
  t.same(await again.users.list(), [{ id: 1, email: 'ada@example.com', password: 'pw', role: 'admin' }])
  t.same(await again.users.by_id(1), { id: 1, email: 'ada@example.com', password: 'pw', role: 'admin' })
  t.equal(await again.users.by_email('bob@example.com'), undefined)
})

t.test('SqlTokens: digests only, expiring after ttl seconds', async (t) => {
  const { s } = await storage(t)
  await s.users.create('ada@example.com', 'pw', 'user')
  const tokens = s.tokens(10)
  const issued = await tokens.issue(1, 1000)
  t.match(issued, { token: /^[A-Za-z0-9_-]{43}$/, expires_in: 10 })
  const rows = await s.db.kysely.selectFrom('auth_tokens').selectAll().execute()
  t.same(
    rows.map((r) => [r.digest, Number(r.user_id), Number(r.expires_at_ms)]),
    [[digest(issued.token), 1, 11_000]],
    'the table holds the token digest, never the token',
  )
  t.equal(await tokens.user_id(issued.token, 10_999), 1)
  t.equal(await tokens.user_id(issued.token.toUpperCase(), 0), undefined)
  t.equal(await tokens.user_id(issued.token, 11_000), undefined, 'expired')
  t.equal((await s.db.kysely.selectFrom('auth_tokens').selectAll().execute()).length, 0, 'and its row deleted')
})

t.test(
  'a production API over the stores: register and log in on one opening, the token valid on the next',
  async (t) => {
    const { url, s } = await storage(t)
    const make = (st: AuthStorage): App => {
      const app = new App()
      auth_api(app, { env: {}, mode: 'production', scrypt: { cost: 1024 }, users: st.users, tokens: st.tokens(60) })
      t.teardown(() => app.close())
      return app
    }
    const body = { email: 'ada@example.com', password: 'correct horse', confirm: 'correct horse' }
    const first = make(s)
    t.equal((await first.inject({ method: 'POST', url: '/auth/register', payload: body })).statusCode, 201)
    const login = await first.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: body.email, password: body.password },
    })
    t.equal(login.statusCode, 200)
    await first.close()
    await s.close()
    const reopened = await open_auth_storage(url)
    t.teardown(() => reopened.close())
    const second = make(reopened)
    const me = await second.inject({ url: '/auth/me', headers: { authorization: `Bearer ${login.json().token}` } })
    t.same([me.statusCode, me.json()], [200, { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } }])
    t.equal((await second.inject({ method: 'POST', url: '/auth/register', payload: body })).statusCode, 409)
  },
)

t.test('storage URL and refusals', async (t) => {
  t.equal(auth_storage_url(true, [], {}), 'sqlite:./.fw/auth-api.sqlite', 'the default file')
  t.equal(auth_storage_url(false, [], {}), undefined, 'or none: the in-memory stores')
  t.equal(auth_storage_url(false, [], { DATABASE_URL: 'postgres://h/db' }), 'postgres://h/db')
  t.equal(
    auth_storage_url(true, ['--database', 'sqlite:/tmp/a.sqlite'], { DATABASE_URL: 'postgres://h/db' }),
    'sqlite:/tmp/a.sqlite',
  )
  await t.rejects(open_auth_storage('mysql://root:hunter2@h/db'), {
    code: 'FW_ERR_AUTHAPI_BAD_OPTION',
    message: 'auth_api: database must be sqlite:<path> or postgres://...; got "mysql://***@h/db"',
  })
})

t.test('SqlUsers: a failed duplicate check does not keep the email claimed', async (t) => {
  const { s } = await storage(t)
  const app = new App()
  auth_api(app, { env: {}, mode: 'production', scrypt: { cost: 1024 }, users: s.users, tokens: s.tokens(60) })
  t.teardown(() => app.close())
  const body = { email: 'ada@example.com', password: 'correct horse', confirm: 'correct horse' }
  // One transient database failure during the duplicate check (a dropped connection, a timeout).
  const by_email = s.users.by_email.bind(s.users)
  s.users.by_email = () => Promise.reject(new Error('connection reset'))
  const failed = await app.inject({ method: 'POST', url: '/auth/register', payload: body })
  t.equal(failed.statusCode, 500)
  s.users.by_email = by_email
  const retried = await app.inject({ method: 'POST', url: '/auth/register', payload: body })
  t.same(
    [retried.statusCode, retried.json()],
    [201, { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } }],
  )
  t.same(
    (await s.users.list()).map((u) => u.email),
    ['ada@example.com'],
  )
})

t.test('demo mode over a database of production users does not take a stored hash as the password', async (t) => {
  const { s } = await storage(t)
  // The demo's choice when DATABASE_URL is set and FW_AUTH_MODE is not: demonstration mode over the same users.
  const make = (mode: 'demo' | 'production'): App => {
    const app = new App()
    auth_api(app, { env: {}, mode, scrypt: { cost: 1024 }, users: s.users, tokens: s.tokens(60) })
    t.teardown(() => app.close())
    return app
  }
  const body = { email: 'root@example.com', password: 'correct horse', confirm: 'correct horse' }
  t.equal((await make('production').inject({ method: 'POST', url: '/auth/register', payload: body })).statusCode, 201)
  const hash = (await s.users.list())[0]!.password
  const login = await make('demo').inject({
    method: 'POST',
    url: '/auth/login',
    payload: { email: body.email, password: hash },
  })
  t.same(
    [login.statusCode, login.json()],
    [401, { ok: false, error: 'invalid_credentials', message: 'invalid email or password' }],
  )
})
