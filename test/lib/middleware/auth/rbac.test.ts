import { createSigner } from 'fast-jwt'
import t, { type Test } from 'tap'
import type { CtxMiddleware } from '../../../../index.js'
import { api_key } from '../../../../lib/middleware/auth/api-key.js'
import { jwt } from '../../../../lib/middleware/auth/jwt.js'
import { PermissionResolver } from '../../../../lib/middleware/auth/permission-resolver.js'
import { rbac_context, type RbacOptions } from '../../../../lib/middleware/auth/rbac.js'
import { AuthChallenge, Authz } from '../../../../lib/middleware/auth/state.js'
import { build, error_body, throws_coded } from './build.js'

const SECRET = 'rbac-test-secret-0123456789-0123456789'
const sign = createSigner({ key: SECRET, algorithm: 'HS256' })
const bearer = (payload: object) => ({ authorization: `Bearer ${sign(payload)}` })

function with_rbac(t: Test, options: RbacOptions = {}, before: CtxMiddleware[] = [jwt({ secret: SECRET })]) {
  return build(t, [...before, rbac_context(options)], (req) => {
    const a = req.state(Authz)
    return a === undefined
      ? { authz: null }
      : { sub: a.subject, roles: [...a.roles].sort(), perms: [...a.perms].sort() }
  })
}

t.test('rbac_context', async (t) => {
  t.test('builds Authz from the roles and perms claims', async (t) => {
    const { app, calls } = with_rbac(t)
    const r = await app.inject({
      url: '/p',
      headers: bearer({ sub: 'ada', roles: ['admin', 'dev'], perms: ['products:write', 'a:b'] }),
    })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, sub: 'ada', roles: ['admin', 'dev'], perms: ['a:b', 'products:write'] })
    t.equal(calls.n, 1)
  })

  t.test('reads a string claim as one name and a missing claim as none', async (t) => {
    const { app } = with_rbac(t)
    const r1 = await app.inject({ url: '/p', headers: bearer({ sub: 'a', roles: 'admin', perms: 'products:read' }) })
    t.same(r1.json(), { ok: true, sub: 'a', roles: ['admin'], perms: ['products:read'] })
    const r2 = await app.inject({ url: '/p', headers: bearer({ sub: 'a' }) })
    t.same(r2.json(), { ok: true, sub: 'a', roles: [], perms: [] })
  })

  t.test('reads roles_key and perms_key', async (t) => {
    const { app } = with_rbac(t, { roles_key: 'groups', perms_key: 'scope' })
    const r = await app.inject({
      url: '/p',
      headers: bearer({ sub: 'a', roles: ['x'], groups: ['ops'], scope: ['s:r'] }),
    })
    t.same(r.json(), { ok: true, sub: 'a', roles: ['ops'], perms: ['s:r'] })
  })

  t.test('reads the roles jwt read by its own roles_key when it is given none', async (t) => {
    const { app } = with_rbac(t, {}, [jwt({ secret: SECRET, roles_key: 'groups' })])
    const r = await app.inject({
      url: '/p',
      headers: bearer({ sub: 'a', groups: ['ops'], roles: ['x'], perms: 'p:r' }),
    })
    t.same(r.json(), { ok: true, sub: 'a', roles: ['ops'], perms: ['p:r'] })
    // Its own key, given, still wins.
    const own = with_rbac(t, { roles_key: 'roles' }, [jwt({ secret: SECRET, roles_key: 'groups' })])
    const r2 = await own.app.inject({ url: '/p', headers: bearer({ sub: 'a', groups: ['ops'], roles: ['x'] }) })
    t.same(r2.json(), { ok: true, sub: 'a', roles: ['x'], perms: [] })
  })

  t.test('answers 401 missing_auth without JwtClaims', async (t) => {
    const { app, calls } = with_rbac(t, {}, [])
    const r = await app.inject({ url: '/p', headers: bearer({ sub: 'a' }) })
    t.equal(r.statusCode, 401)
    t.same(r.json(), error_body('missing_auth', 'Authentication required'))
    t.equal(r.headers['www-authenticate'], undefined, 'no authenticator left a challenge')
    t.equal(calls.n, 0)
  })

  t.test('answers 401 missing_auth with the challenge an authenticator that let the caller through left', async (t) => {
    const optional_key = api_key({ allowed_keys: ['k-0123456789'], required: false, query_param: 'key' })
    const keyed = with_rbac(t, {}, [optional_key])
    const r1 = await keyed.app.inject({ url: '/p' })
    t.equal(r1.statusCode, 401)
    t.same(r1.json(), error_body('missing_auth', 'Authentication required'))
    t.equal(r1.headers['www-authenticate'], 'ApiKey header="x-api-key", query="key"')
    t.equal(keyed.calls.n, 0)
    // A verified token without `sub` names no one.
    const r2 = await with_rbac(t).app.inject({ url: '/p', headers: bearer({ roles: ['admin'] }) })
    t.equal(r2.statusCode, 401)
    t.same(r2.json(), error_body('missing_auth', 'Authentication required'))
    t.equal(
      r2.headers['www-authenticate'],
      'Bearer error="invalid_token", error_description="the token names no subject"',
    )
    // A custom authenticator may leave its own.
    const custom: CtxMiddleware = ({ req }, next) => {
      req.set_state(AuthChallenge, new AuthChallenge('Basic realm="ops"'))
      return next()
    }
    const r3 = await with_rbac(t, {}, [custom]).app.inject({ url: '/p' })
    t.equal(r3.statusCode, 401)
    t.equal(r3.headers['www-authenticate'], 'Basic realm="ops"')
  })

  t.test('lets the request go on without Authz when require_auth is false', async (t) => {
    const { app, calls } = with_rbac(t, { require_auth: false }, [])
    const r = await app.inject({ url: '/p' })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, authz: null })
    t.equal(calls.n, 1)
  })

  t.test('lets a PermissionResolver add roles and perms, sync or async', async (t) => {
    const { app } = with_rbac(t)
    const seen: unknown[] = []
    app.services.set(PermissionResolver, {
      async resolve(subject, roles, perms) {
        seen.push([subject, [...roles], [...perms]])
        if (roles.has('admin')) perms.add('products:write')
        roles.add('member')
      },
    })
    const r = await app.inject({ url: '/p', headers: bearer({ sub: 'ada', roles: 'admin', perms: ['products:read'] }) })
    t.same(r.json(), { ok: true, sub: 'ada', roles: ['admin', 'member'], perms: ['products:read', 'products:write'] })
    t.same(seen, [['ada', ['admin'], ['products:read']]])
  })

  t.test('does not call the resolver when use_resolver is false', async (t) => {
    const { app } = with_rbac(t, { use_resolver: false })
    let called = 0
    app.services.set(PermissionResolver, { resolve: () => void called++ })
    const r = await app.inject({ url: '/p', headers: bearer({ sub: 'a', perms: ['x:y'] }) })
    t.same(r.json(), { ok: true, sub: 'a', roles: [], perms: ['x:y'] })
    t.equal(called, 0)
  })

  t.test('answers 500 authz_resolver_failed when the resolver throws or rejects', async (t) => {
    for (const resolve of [
      () => {
        throw new Error('db down')
      },
      () => Promise.reject(new Error('db down')),
    ]) {
      const { app, calls } = with_rbac(t)
      app.services.set(PermissionResolver, { resolve })
      const r = await app.inject({ url: '/p', headers: bearer({ sub: 'a' }) })
      t.equal(r.statusCode, 500)
      t.same(r.json(), error_body('authz_resolver_failed', 'Permission resolver failed'))
      t.equal(calls.n, 0)
      const again = await app.inject({ url: '/p', headers: bearer({ sub: 'a' }) })
      t.equal(again.statusCode, 500, 'the app keeps serving')
    }
  })

  t.test('leaves a handler error to the app, not the resolver', async (t) => {
    const { app } = with_rbac(t)
    app.services.set(PermissionResolver, { resolve: () => undefined })
    app.get('/p/boom', () => {
      throw new Error('handler bug')
    })
    const r = await app.inject({ url: '/p/boom', headers: bearer({ sub: 'a' }) })
    t.equal(r.statusCode, 500)
    t.equal(r.json().error, 'internal_error')
  })

  t.test('refuses bad options at creation', async (t) => {
    const bad = (options: unknown, message: RegExp) =>
      throws_coded(t, () => rbac_context(options as RbacOptions), 'FW_ERR_AUTH_BAD_OPTION', message)
    bad({ roles_key: '' }, /^rbac_context: roles_key must be a non-empty string; got ""$/)
    bad({ perms_key: 7 }, /^rbac_context: perms_key must be a non-empty string; got 7$/)
    bad({ require_auth: 1 }, /^rbac_context: require_auth must be a boolean; got 1$/)
    bad({ use_resolver: 'no' }, /^rbac_context: use_resolver must be a boolean; got "no"$/)
  })
})
