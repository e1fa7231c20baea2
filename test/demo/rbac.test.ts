import t, { type Test } from 'tap'
import { setup_rbac } from '../../demo/rbac.js'
import { demos } from '../../demo/registry.js'
import type { App } from '../../index.js'
import { sign_dev_token } from '../../lib/middleware/app/index.js'
import { mounted } from '../helpers/build.js'

const SECRET = 'demo-jwt-secret-0123456789-0123456789'

/** The demo on an App (under `prefix` when given, next to an unprotected route), closed on teardown. */
const demo_app = (t: Test, prefix = ''): App => mounted(t, (r) => setup_rbac(r, { secret: SECRET }), prefix)

const bearer = (claims: Record<string, unknown>) => ({ authorization: `Bearer ${sign_dev_token(SECRET, claims)}` })

t.test('rbac demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos.rbac?.name, 'rbac')
  })

  t.test('answers GET /admin for role admin with permission products:write', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({
      url: '/admin',
      headers: bearer({ sub: 'ada', roles: ['admin'], perms: ['products:write'] }),
    })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, sub: 'ada', has_admin: true, has_products_write: true })
  })

  t.test('answers 403 forbidden without the role or without the permission', async (t) => {
    const app = demo_app(t)
    const no_role = await app.inject({
      url: '/admin',
      headers: bearer({ sub: 'bob', roles: ['user'], perms: ['products:write'] }),
    })
    t.equal(no_role.statusCode, 403)
    t.same(no_role.json(), { ok: false, error: 'forbidden', message: 'Missing required role' })
    const no_perm = await app.inject({
      url: '/admin',
      headers: bearer({ sub: 'eve', roles: 'admin', perms: ['products:read'] }),
    })
    t.equal(no_perm.statusCode, 403)
    t.same(no_perm.json(), { ok: false, error: 'forbidden', message: 'Missing required permission' })
  })

  t.test('answers 401 missing_token without a token', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({ url: '/admin' })
    t.equal(r.statusCode, 401)
    t.equal(r.json().error, 'missing_token')
  })

  t.test('protects only its own route, under whatever prefix it is mounted', async (t) => {
    const app = demo_app(t, '/rbac')
    t.equal((await app.inject({ url: '/open' })).statusCode, 200)
    t.equal((await app.inject({ url: '/rbac/admin' })).statusCode, 401)
    const ok = await app.inject({
      url: '/rbac/admin',
      headers: bearer({ sub: 'ada', roles: ['admin'], perms: ['products:write'] }),
    })
    t.equal(ok.statusCode, 200)
  })
})
