import { createSigner } from 'fast-jwt'
import t, { type Test } from 'tap'
import type { CtxMiddleware } from '../../../../index.js'
import { api_key } from '../../../../lib/middleware/auth/api-key.js'
import { jwt } from '../../../../lib/middleware/auth/jwt.js'
import {
  require_all_perms,
  require_any_perm,
  require_any_role,
  require_perm,
  require_role,
} from '../../../../lib/middleware/auth/rbac-checks.js'
import { rbac_context } from '../../../../lib/middleware/auth/rbac.js'
import { build, error_body, throws_coded } from './build.js'

const SECRET = 'rbac-test-secret-0123456789-0123456789'
const sign = createSigner({ key: SECRET, algorithm: 'HS256' })
const CALLER = { sub: 'ada', roles: ['editor', 'dev'], perms: ['products:read', 'products:write'] }
const FORBIDDEN_ROLE = error_body('forbidden', 'Missing required role')
const FORBIDDEN_PERM = error_body('forbidden', 'Missing required permission')

/** Status and body of GET /p through jwt, rbac_context and `check`, for the caller's token. */
async function ask(t: Test, check: CtxMiddleware, caller: object = CALLER) {
  const { app, calls } = build(t, [jwt({ secret: SECRET }), rbac_context(), check])
  const r = await app.inject({ url: '/p', headers: { authorization: `Bearer ${sign(caller)}` } })
  return { status: r.statusCode, body: r.json() as unknown, calls: calls.n }
}

const PASSED = { status: 200, body: { ok: true }, calls: 1 }

t.test('require_role', async (t) => {
  t.test('lets a caller with the role through', async (t) => {
    t.same(await ask(t, require_role('editor')), PASSED)
  })

  t.test('answers 403 forbidden to a caller without the role', async (t) => {
    t.same(await ask(t, require_role('admin')), { status: 403, body: FORBIDDEN_ROLE, calls: 0 })
  })

  t.test('answers 401 missing_authz without Authz', async (t) => {
    const { app, calls } = build(t, [jwt({ secret: SECRET }), require_role('editor')])
    const r = await app.inject({ url: '/p', headers: { authorization: `Bearer ${sign(CALLER)}` } })
    t.equal(r.statusCode, 401)
    t.same(r.json(), error_body('missing_authz', 'Authorization context missing'))
    t.equal(r.headers['www-authenticate'], undefined, 'no authenticator left a challenge')
    t.equal(calls.n, 0)
  })

  t.test(
    'answers 401 missing_authz with the challenge an authenticator that let the caller through left',
    async (t) => {
      const optional_key = api_key({ allowed_keys: ['k-0123456789'], required: false })
      const { app, calls } = build(t, [optional_key, rbac_context({ require_auth: false }), require_perm('a:b')])
      const r = await app.inject({ url: '/p' })
      t.equal(r.statusCode, 401)
      t.same(r.json(), error_body('missing_authz', 'Authorization context missing'))
      t.equal(r.headers['www-authenticate'], 'ApiKey header="x-api-key"')
      t.equal(calls.n, 0)
    },
  )

  t.test('refuses an empty role name at creation', async (t) => {
    throws_coded(
      t,
      () => require_role(''),
      'FW_ERR_AUTH_BAD_OPTION',
      /^require_role: name must be a non-empty string; got ""$/,
    )
  })
})

t.test('require_any_role', async (t) => {
  t.test('lets a caller with one of the roles through', async (t) => {
    t.same(await ask(t, require_any_role(['admin', 'dev'])), PASSED)
  })

  t.test('answers 403 forbidden to a caller with none of them', async (t) => {
    t.same(await ask(t, require_any_role(['admin', 'auditor'])), { status: 403, body: FORBIDDEN_ROLE, calls: 0 })
  })

  t.test('refuses an empty list at creation', async (t) => {
    throws_coded(
      t,
      () => require_any_role([]),
      'FW_ERR_AUTH_BAD_OPTION',
      /^require_any_role: list must be a non-empty list of non-empty strings; got \[\]$/,
    )
  })
})

t.test('require_perm', async (t) => {
  t.test('lets a caller with the permission through', async (t) => {
    t.same(await ask(t, require_perm('products:write')), PASSED)
  })

  t.test('answers 403 forbidden to a caller without the permission', async (t) => {
    t.same(await ask(t, require_perm('orders:write')), { status: 403, body: FORBIDDEN_PERM, calls: 0 })
  })

  t.test('answers 403 to a caller whose token has no perms claim', async (t) => {
    t.same(await ask(t, require_perm('products:read'), { sub: 'x', roles: ['admin'] }), {
      status: 403,
      body: FORBIDDEN_PERM,
      calls: 0,
    })
  })

  t.test('refuses a name that is not a string at creation', async (t) => {
    throws_coded(
      t,
      () => require_perm(['a:b'] as unknown as string),
      'FW_ERR_AUTH_BAD_OPTION',
      /^require_perm: name must be a non-empty string; got \["a:b"\]$/,
    )
  })
})

t.test('require_any_perm', async (t) => {
  t.test('lets a caller with one of the permissions through', async (t) => {
    t.same(await ask(t, require_any_perm(['orders:read', 'products:read'])), PASSED)
  })

  t.test('answers 403 forbidden to a caller with none of them', async (t) => {
    t.same(await ask(t, require_any_perm(['orders:read', 'orders:write'])), {
      status: 403,
      body: FORBIDDEN_PERM,
      calls: 0,
    })
  })

  t.test('refuses a list with an empty name at creation', async (t) => {
    throws_coded(
      t,
      () => require_any_perm(['a:b', '']),
      'FW_ERR_AUTH_BAD_OPTION',
      /^require_any_perm: list must be a non-empty list/,
    )
  })
})

t.test('require_all_perms', async (t) => {
  t.test('lets a caller with every permission through', async (t) => {
    t.same(await ask(t, require_all_perms(['products:read', 'products:write'])), PASSED)
  })

  t.test('answers 403 forbidden to a caller missing one of them', async (t) => {
    t.same(await ask(t, require_all_perms(['products:read', 'orders:read'])), {
      status: 403,
      body: FORBIDDEN_PERM,
      calls: 0,
    })
  })

  t.test('refuses an empty list at creation, which would let everyone through', async (t) => {
    throws_coded(
      t,
      () => require_all_perms([]),
      'FW_ERR_AUTH_BAD_OPTION',
      /^require_all_perms: list must be a non-empty list/,
    )
  })
})
