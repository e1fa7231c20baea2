import t from 'tap'
import { App, adapt_ctx, middleware, type CtxMiddleware, type Request } from '../../index.js'
import { csrf, CsrfToken } from '../../lib/middleware/security/csrf.js'
import { Identity, set_identity } from '../../lib/identity.js'
import { api_key } from '../../lib/middleware/auth/api-key.js'
import { jwt } from '../../lib/middleware/auth/jwt.js'
import { rbac_context } from '../../lib/middleware/auth/rbac.js'
import { rate_limit } from '../../lib/middleware/security/rate-limit.js'
import { sign_dev_token } from '../../lib/middleware/app/auth-presets.js'
import { build, throws_coded } from './middleware/auth/build.js'

const SECRET = 'identity-test-secret-0123456789abcdef'
const seen = (req: Request) => {
  const i = req.state(Identity)
  return { identity: i === undefined ? null : { ...i } }
}

t.test('Identity', async (t) => {
  t.test('is exported as auth.Identity, with set_identity', async (t) => {
    t.equal(middleware.auth.Identity, Identity)
    t.equal(middleware.auth.set_identity, set_identity)
  })

  t.test('keeps kind, id, roles, perms and claims, with defaults for the lists', async (t) => {
    const i = new Identity({ kind: 'mtls', id: 'svc-a' })
    t.same({ ...i }, { kind: 'mtls', id: 'svc-a', roles: [], perms: [], claims: undefined })
    t.ok(Object.isFrozen(i.roles))
    t.ok(Object.isFrozen(i.perms))
    // Lists are copies: the caller's arrays, empty or not, can change afterwards without changing the identity.
    const roles: string[] = []
    const perms = ['orders:read']
    const j = new Identity({ kind: 'mtls', id: 'svc-b', roles, perms })
    roles.push('admin')
    perms.push('orders:write')
    t.same([j.roles, j.perms], [[], ['orders:read']])
    t.ok(Object.isFrozen(j.roles) && Object.isFrozen(j.perms))
  })

  t.test('refuses an empty id, an empty kind, and roles or perms that are not lists of names', async (t) => {
    const code = 'FW_ERR_AUTH_BAD_IDENTITY'
    throws_coded(
      t,
      () => new Identity({ kind: 'x', id: '' }),
      code,
      /^Identity: id must be a non-empty string; got ""$/,
    )
    throws_coded(t, () => new Identity({ kind: '', id: 'a' }), code, /^Identity: kind must be a non-empty string/)
    const roles = { kind: 'x', id: 'a', roles: 'admin' as unknown as string[] }
    throws_coded(
      t,
      () => new Identity(roles),
      code,
      /^Identity: roles must be a list of non-empty strings; got "admin"$/,
    )
    throws_coded(t, () => new Identity({ kind: 'x', id: 'a', perms: [''] }), code, /^Identity: perms must be a list/)
  })

  t.test('api_key sets it with the key label, or a digest of the key, never the key', async (t) => {
    const labelled = build(t, [api_key({ allowed_keys: ['k-secret-1'], label: (k) => `svc-${k.length}` })], seen)
    const r1 = await labelled.app.inject({ url: '/p', headers: { 'x-api-key': 'k-secret-1' } })
    t.same(r1.json().identity, { kind: 'api_key', id: 'svc-10', roles: [], perms: [] })
    const plain = build(t, [api_key({ allowed_keys: ['k-secret-1'] })], seen)
    const r2 = await plain.app.inject({ url: '/p', headers: { 'x-api-key': 'k-secret-1' } })
    t.equal(r2.json().identity.id, 'key:13CHjzDdq_-7XiiiIuA7s8')
    t.notMatch(r2.body, /k-secret-1/)
  })

  t.test(
    'jwt sets it from sub, the roles and perms claims, and the payload; a token without sub sets none',
    async (t) => {
      const { app } = build(t, [jwt({ secret: SECRET, roles_key: 'groups' })], seen)
      const payload = { sub: 'ada', groups: ['ops'], perms: 'a:b' }
      const r = await app.inject({ url: '/p', headers: { authorization: `Bearer ${sign_dev_token(SECRET, payload)}` } })
      const { iat: _iat, ...claims } = r.json().identity.claims as Record<string, unknown>
      t.same(
        { ...r.json().identity, claims },
        { kind: 'jwt', id: 'ada', roles: ['ops'], perms: ['a:b'], claims: payload },
      )
      const anon = await app.inject({ url: '/p', headers: { authorization: `Bearer ${sign_dev_token(SECRET, {})}` } })
      t.same([anon.statusCode, anon.json().identity], [200, null])
    },
  )

  t.test('a custom authenticator feeds rbac_context with its roles and perms', async (t) => {
    const custom: CtxMiddleware = (ctx, next) => {
      set_identity(ctx.req, ctx.res, { kind: 'mtls', id: 'svc', roles: ['ops'], perms: ['x:y'] })
      return next()
    }
    const { app } = build(t, [custom, rbac_context()], (req) => {
      const a = req.state(middleware.auth.Authz)!
      return { sub: a.subject, roles: [...a.roles], perms: [...a.perms] }
    })
    t.same((await app.inject({ url: '/p' })).json(), { ok: true, sub: 'svc', roles: ['ops'], perms: ['x:y'] })
  })

  t.test('set after the handler answered, it changes nothing', async (t) => {
    const late: CtxMiddleware = async (ctx, next) => {
      await next()
      const set = set_identity(ctx.req, ctx.res, { kind: 'late', id: 'mallory' })
      ctx.res.header('x-identity', `${set} ${ctx.req.state(Identity)?.id ?? 'none'}`)
    }
    const { app, calls } = build(t, [late])
    const r = await app.inject({ url: '/p' })
    t.same([r.statusCode, r.headers['x-identity'], calls.n], [200, 'false none', 1])
  })

  t.test('set before the answer, a custom authenticator is what rate limit key user counts', async (t) => {
    const custom: CtxMiddleware = (ctx, next) => {
      set_identity(ctx.req, ctx.res, { kind: 'header', id: ctx.req.header('x-user') || 'anon' })
      return next()
    }
    const { app } = build(t, [custom, rate_limit({ max_requests: 1, window_seconds: 60, key: 'user' })])
    t.equal((await app.inject({ url: '/p', headers: { 'x-user': 'a' } })).statusCode, 200)
    t.equal((await app.inject({ url: '/p', headers: { 'x-user': 'b' } })).statusCode, 200)
    t.equal((await app.inject({ url: '/p', headers: { 'x-user': 'a' } })).statusCode, 429)
  })

  t.test('binds a CSRF token to the caller: a token minted for one user fails for another', async (t) => {
    const by_header: CtxMiddleware = (ctx, next) => {
      set_identity(ctx.req, ctx.res, { kind: 'header', id: ctx.req.header('x-user') })
      return next()
    }
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    app.use(adapt_ctx(by_header))
    app.use(adapt_ctx(csrf({ secret: SECRET })))
    app.get('/token', (req, res) => res.json('token', req.state(CsrfToken)?.value ?? null))
    app.post('/data', (_req, res) => res.json('ok', true))
    const minted = await app.inject({ url: '/token', headers: { 'x-user': 'mallory' } })
    const cookie = String(minted.headers['set-cookie']).split(';')[0]!
    const token = minted.json().token as string
    const post = (user: string) =>
      app.inject({ method: 'POST', url: '/data', headers: { 'x-user': user, cookie, 'x-csrf-token': token } })
    t.equal((await post('mallory')).statusCode, 200)
    const other = await post('alice')
    t.same([other.statusCode, other.json().message], [403, 'CSRF token missing'])
  })
})
