import t, { type Test } from 'tap'
import { setup_api_key } from '../../demo/api-key.js'
import { demos } from '../../demo/registry.js'
import type { App } from '../../index.js'
import { mounted } from '../helpers/build.js'

const KEY = 'demo-key-0123456789'

/** The demo on an App (under `prefix` when given, next to an unprotected route), closed on teardown. */
const demo_app = (t: Test, prefix = ''): App => mounted(t, (r) => setup_api_key(r, { key: KEY }), prefix)

t.test('api-key demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos['api-key']?.name, 'api-key')
  })

  t.test('answers GET /secure with the key size for a key in x-api-key or query api_key', async (t) => {
    const app = demo_app(t)
    const header = await app.inject({ url: '/secure', headers: { 'x-api-key': KEY } })
    t.equal(header.statusCode, 200)
    t.same(header.json(), { ok: true, key_size: KEY.length })
    const query = await app.inject({ url: `/secure?api_key=${KEY}` })
    t.same(query.json(), { ok: true, key_size: KEY.length })
  })

  t.test('answers GET /api/admin/status with admin true behind the key', async (t) => {
    const app = demo_app(t)
    const r = await app.inject({ url: '/api/admin/status', headers: { 'x-api-key': KEY } })
    t.same(r.json(), { ok: true, admin: true, key_size: KEY.length })
  })

  t.test('answers 401 missing_api_key and 403 invalid_api_key on both routes', async (t) => {
    const app = demo_app(t)
    for (const url of ['/secure', '/api/admin/status']) {
      const none = await app.inject({ url })
      t.equal(none.statusCode, 401)
      t.same(none.json(), { ok: false, error: 'missing_api_key', message: 'API key required' })
      const wrong = await app.inject({ url, headers: { 'x-api-key': 'wrong' } })
      t.equal(wrong.statusCode, 403)
      t.same(wrong.json(), { ok: false, error: 'invalid_api_key', message: 'Invalid API key' })
    }
  })

  t.test('protects only its own routes, under whatever prefix it is mounted', async (t) => {
    const app = demo_app(t, '/key')
    t.equal((await app.inject({ url: '/open' })).statusCode, 200)
    t.equal((await app.inject({ url: '/key/secure' })).statusCode, 401)
    t.same((await app.inject({ url: '/key/secure', headers: { 'x-api-key': KEY } })).json(), {
      ok: true,
      key_size: KEY.length,
    })
  })
})
