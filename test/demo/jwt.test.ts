import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { DEV_JWT_SECRET, setup_jwt } from '../../demo/jwt.js'
import { demos } from '../../demo/registry.js'
import type { App } from '../../index.js'
import { jwt_dev, sign_dev_token } from '../../lib/middleware/app/index.js'
import { mounted } from '../helpers/build.js'

const SECRET = 'demo-jwt-secret-0123456789-0123456789'

/** The demo on an App (under `prefix` when given, next to an unprotected route), closed on teardown. */
const demo_app = (t: Test, prefix = ''): App => mounted(t, (r) => setup_jwt(r, { secret: SECRET }), prefix)

const bearer = (claims: Record<string, unknown>, secret = SECRET) => ({
  authorization: `Bearer ${sign_dev_token(secret, claims)}`,
})

t.test('jwt demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos.jwt?.name, 'jwt')
  })

  t.test('has a development secret long enough for HS256, so jwt_dev gives no warning', async (t) => {
    t.ok(Buffer.byteLength(DEV_JWT_SECRET) >= 32)
    const seen: Error[] = []
    const listener = (w: Error): void => void seen.push(w)
    process.on('warning', listener)
    t.teardown(() => void process.off('warning', listener))
    jwt_dev(DEV_JWT_SECRET)
    await new Promise((resolve) => setImmediate(resolve))
    t.same(seen, [])
  })

  t.test('answers GET /secure with the subject and the number of roles', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({ url: '/secure', headers: bearer({ sub: 'ada', roles: ['admin', 'dev'] }) })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, sub: 'ada', roles_count: 2 })
    const one = await app.inject({ url: '/secure', headers: bearer({ sub: 'bob', roles: 'user' }) })
    t.same(one.json(), { ok: true, sub: 'bob', roles_count: 1 })
  })

  t.test('accepts an expired demonstration token (the preset does not check expiry)', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({ url: '/secure', headers: bearer({ sub: 'ada', exp: 1 }) })
    t.same(r.json(), { ok: true, sub: 'ada', roles_count: 0 })
  })

  t.test('answers 401 missing_token and invalid_token', async (t) => {
    const app = demo_app(t)
    const none = await app.inject({ url: '/secure' })
    t.equal(none.statusCode, 401)
    t.same(none.json(), { ok: false, error: 'missing_token', message: 'Missing bearer token' })
    t.equal(none.headers['www-authenticate'], 'Bearer')
    const wrong = await app.inject({
      url: '/secure',
      headers: bearer({ sub: 'ada' }, 'another-secret-0123456789-0123456789'),
    })
    t.equal(wrong.statusCode, 401)
    t.same(wrong.json(), { ok: false, error: 'invalid_token', message: 'Invalid token' })
  })

  t.test('protects only its own route, under whatever prefix it is mounted', async (t) => {
    const app = demo_app(t, '/jwt')
    t.equal((await app.inject({ url: '/open' })).statusCode, 200)
    t.equal((await app.inject({ url: '/jwt/secure' })).statusCode, 401)
    t.same((await app.inject({ url: '/jwt/secure', headers: bearer({ sub: 'ada' }) })).json(), {
      ok: true,
      sub: 'ada',
      roles_count: 0,
    })
  })
})

t.test('the token command of README.md and docs/auth.md signs with the development secret of the demos', async (t) => {
  // `TOKEN=$(npx tsx -e "... sign_dev_token('<secret>', ...)")`, for the jwt and rbac demos run with FW_JWT_SECRET unset.
  const commands = ['README.md', 'docs/auth.md'].flatMap((page) => {
    const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8')
    return [...text.matchAll(/TOKEN=\$\(npx tsx -e "[^"]*?sign_dev_token\('([^']*)'/g)].map((m) => [page, m[1]!])
  })
  t.same(
    commands.map(([page]) => page),
    ['README.md', 'docs/auth.md'],
  )
  const app = mounted(t, (r) => setup_jwt(r, { secret: DEV_JWT_SECRET }), '')
  for (const [page, secret] of commands) {
    const headers = bearer({ sub: 'ada', roles: ['admin'], perms: ['products:write'] }, secret)
    const r = await app.inject({ url: '/secure', headers })
    t.same([r.statusCode, r.json()], [200, { ok: true, sub: 'ada', roles_count: 1 }], page!)
  }
})
