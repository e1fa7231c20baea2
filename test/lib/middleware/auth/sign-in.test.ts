import t, { type Test } from 'tap'
import { App, adapt_ctx } from '../../../../index.js'
import { Identity } from '../../../../lib/identity.js'
import { rbac_context } from '../../../../lib/middleware/auth/rbac.js'
import { require_role } from '../../../../lib/middleware/auth/rbac-checks.js'
import { session } from '../../../../lib/middleware/auth/session.js'
import { sign_in, sign_out } from '../../../../lib/middleware/auth/sign-in.js'
import { Session } from '../../../../lib/middleware/auth/session-state.js'
import { csrf } from '../../../../lib/middleware/security/csrf.js'
import { CsrfToken } from '../../../../lib/middleware/security/csrf.js'
import { throws_coded } from './build.js'

const SECRET = 'sign-in-test-secret-0123456789abcdef'

/** An app with a session, sign-in and sign-out routes, and an admin page behind rbac. */
function app_with_login(t: Test) {
  const app = new App({ access_log: false })
  t.teardown(() => app.close())
  app.use(adapt_ctx(session({ secret: SECRET })))
  app.post('/login', (req, res) => {
    const id = req.query_value('user', '')
    const identity = sign_in(req, res, { id, roles: id === 'ada' ? ['admin'] : [] })
    res.json('ok', true, 'kind', req.state(Identity)?.kind ?? null, 'id', identity.id)
  })
  app.post('/logout', (req, res) => {
    sign_out(req)
    res.json('ok', true)
  })
  app.get('/me', (req, res) => res.json('id', req.state(Identity)?.id ?? null))
  app.use('/admin', adapt_ctx(rbac_context()))
  app.use('/admin', adapt_ctx(require_role('admin')))
  app.get('/admin', (_req, res) => res.json('ok', true))
  return app
}

const sid_of = (headers: Record<string, unknown>) =>
  ([] as string[])
    .concat(headers['set-cookie'] as string[])
    .find((c) => c.startsWith('sid='))!
    .split(';')[0]!

t.test('auth.sign_in', async (t) => {
  t.test('sets an Identity of kind session now and on every later request of the session', async (t) => {
    const app = app_with_login(t)
    const first = await app.inject({ url: '/me' })
    t.same(first.json(), { id: null })
    const before = sid_of(first.headers)
    const login = await app.inject({ method: 'POST', url: '/login?user=ada', headers: { cookie: before } })
    t.same(login.json(), { ok: true, kind: 'session', id: 'ada' })
    const after = sid_of(login.headers)
    t.not(after, before, 'the session id changes at sign-in')
    t.same((await app.inject({ url: '/me', headers: { cookie: after } })).json(), { id: 'ada' })
    t.equal((await app.inject({ url: '/admin', headers: { cookie: after } })).statusCode, 200)
    t.equal((await app.inject({ url: '/me', headers: { cookie: before } })).json().id, null, 'the old id is gone')
  })

  t.test('gives rbac the roles it was given', async (t) => {
    const app = app_with_login(t)
    const bob = sid_of((await app.inject({ method: 'POST', url: '/login?user=bob' })).headers)
    const r = await app.inject({ url: '/admin', headers: { cookie: bob } })
    t.same([r.statusCode, r.json().error], [403, 'forbidden'])
    t.same((await app.inject({ url: '/admin' })).json().error, 'missing_auth')
  })

  t.test(
    'signing in another user drops the values of the user signed in before; the same user keeps them',
    async (t) => {
      const app = app_with_login(t)
      app.post('/note', (req, res) => {
        req.state(Session)!.set('note', req.query_value('text', ''))
        res.json('ok', true)
      })
      app.get('/note', (req, res) => res.json('note', req.state(Session)!.get('note') ?? null))
      // An anonymous visitor's values (a cart) go with them into their login.
      const visit = sid_of((await app.inject({ method: 'POST', url: '/note?text=cart' })).headers)
      const ada = sid_of(
        (await app.inject({ method: 'POST', url: '/login?user=ada', headers: { cookie: visit } })).headers,
      )
      t.same((await app.inject({ url: '/note', headers: { cookie: ada } })).json(), { note: 'cart' })
      await app.inject({ method: 'POST', url: '/note?text=ada-private', headers: { cookie: ada } })
      // Ada signs in again: her values stay.
      const again = sid_of(
        (await app.inject({ method: 'POST', url: '/login?user=ada', headers: { cookie: ada } })).headers,
      )
      t.same((await app.inject({ url: '/note', headers: { cookie: again } })).json(), { note: 'ada-private' })
      // Bob signs in on the same browser without Ada signing out (a shared computer): Ada's values are not his.
      const bob = sid_of(
        (await app.inject({ method: 'POST', url: '/login?user=bob', headers: { cookie: again } })).headers,
      )
      t.same((await app.inject({ url: '/me', headers: { cookie: bob } })).json(), { id: 'bob' })
      t.same((await app.inject({ url: '/note', headers: { cookie: bob } })).json(), { note: null })
    },
  )

  t.test('sign_out ends the session and its Identity', async (t) => {
    const app = app_with_login(t)
    const sid = sid_of((await app.inject({ method: 'POST', url: '/login?user=ada' })).headers)
    await app.inject({ method: 'POST', url: '/logout', headers: { cookie: sid } })
    t.same((await app.inject({ url: '/me', headers: { cookie: sid } })).json(), { id: null })
  })

  t.test('takes only id, roles and perms of a user record, as the session keeps them', async (t) => {
    // A database row passed as it is: its other fields must not make this request's caller differ from the next ones'.
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    app.use(adapt_ctx(session({ secret: SECRET })))
    app.post('/login', (req, res) => {
      const row = { id: 'ada', roles: ['admin'], email: 'ada@example.com', claims: { roles: [] } }
      const identity = sign_in(req, res, row)
      res.json('claims', identity.claims === undefined, 'same', req.state(Identity) === identity)
    })
    app.use('/admin', adapt_ctx(rbac_context()))
    app.use('/admin', adapt_ctx(require_role('admin')))
    app.get('/admin', (req, res) => res.json('claims', req.state(Identity)!.claims === undefined))
    const login = await app.inject({ method: 'POST', url: '/login' })
    t.same(login.json(), { claims: true, same: true })
    const later = await app.inject({ url: '/admin', headers: { cookie: sid_of(login.headers) } })
    t.same([later.statusCode, later.json()], [200, { claims: true }])
  })

  t.test('refuses an empty id (500, the handler threw) and a route without session', async (t) => {
    const app = app_with_login(t)
    const r = await app.inject({ method: 'POST', url: '/login?user=' })
    t.equal(r.statusCode, 500)
    t.equal(sid_of((await app.inject({ url: '/me' })).headers).startsWith('sid='), true)
    const bare = new App({ access_log: false })
    t.teardown(() => bare.close())
    let thrown: unknown
    bare.post('/login', (req, res) => {
      try {
        sign_in(req, res, { id: 'ada' })
      } catch (err) {
        thrown = err
      }
      res.send()
    })
    await bare.inject({ method: 'POST', url: '/login' })
    t.match(thrown, { code: 'FW_ERR_AUTH_NO_SESSION' })
    throws_coded(
      t,
      () => sign_in({} as never, {} as never, { id: '' }),
      'FW_ERR_AUTH_BAD_IDENTITY',
      /^Identity: id must be a non-empty string; got ""$/,
    )
  })

  t.test('binds the CSRF token to the signed-in user, so it changes at sign-in', async (t) => {
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    app.use(adapt_ctx(session({ secret: SECRET })))
    app.use(adapt_ctx(csrf({ secret: SECRET })))
    app.get('/token', (req, res) => res.json('token', req.state(CsrfToken)?.value ?? null))
    app.post('/login', (req, res) => {
      sign_in(req, res, { id: 'ada' })
      res.json('ok', true)
    })
    const visit = await app.inject({ url: '/token' })
    const cookies = ([] as string[]).concat(visit.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]!)
    const token = visit.json().token as string
    const login = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { cookie: cookies.join('; '), 'x-csrf-token': token },
    })
    t.equal(login.statusCode, 200)
    const signed = `${sid_of(login.headers)}; ${cookies.find((c) => c.startsWith('csrf_token='))}`
    const replay = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { cookie: signed, 'x-csrf-token': token },
    })
    t.same([replay.statusCode, replay.json().message], [403, 'CSRF token missing'], 'the pre-login token is dead')
  })
})
