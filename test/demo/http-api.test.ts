import t from 'tap'
import { demo } from '../../demo/http-api.js'
import type { App } from '../../index.js'
import { build, listening } from '../helpers/build.js'
import { send } from '../helpers/http.js'

const setup = (app: App): void => void demo.setup(app, app)
const app = build(t, setup)
const INVALID_BODY = { ok: false, error: 'invalid_body', message: 'Expected JSON object' }
const NAME_REQUIRED = { ok: false, error: 'validation_failed', message: 'name is required' }
const USER_NOT_FOUND = { ok: false, error: 'user_not_found', message: 'User not found' }

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: string): Promise<[number, unknown]> {
  const headers = { 'content-type': 'application/json' }
  const r = await app.inject({ method, url, ...(payload === undefined ? {} : { payload, headers }) })
  return [r.statusCode, r.json()]
}

t.test('http-api GET /health', async (t) => {
  t.test('answers ok', async (t) => {
    t.same(await call('GET', '/health'), [200, { ok: true }])
  })
})

t.test('http-api GET /users', async (t) => {
  const data = [
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Linus' },
  ]

  t.test('falls back to page 1 and limit 20', async (t) => {
    t.same(await call('GET', '/users'), [200, { ok: true, page: '1', limit: '20', data }])
  })

  t.test('reads page and limit from the query as strings', async (t) => {
    t.same(await call('GET', '/users?page=3&limit=5'), [200, { ok: true, page: '3', limit: '5', data }])
  })
})

t.test('http-api GET /users/{id}', async (t) => {
  t.test('answers the user with its id', async (t) => {
    t.same(await call('GET', '/users/42'), [200, { ok: true, data: { id: '42' } }])
  })

  t.test('answers 404 user_not_found for id 0', async (t) => {
    t.same(await call('GET', '/users/0'), [404, USER_NOT_FOUND])
  })
})

t.test('http-api POST /users', async (t) => {
  t.test('creates a user from a JSON object with a name', async (t) => {
    t.same(await call('POST', '/users', '{"name":"Grace"}'), [
      201,
      { ok: true, message: 'User created', name: 'Grace' },
    ])
  })

  t.test('answers 400 invalid_body for malformed and non-object JSON', async (t) => {
    for (const payload of ['{"name":', 'not json', '[{"name":"x"}]', 'null', '"Grace"', '42', 'true', '']) {
      t.same(await call('POST', '/users', payload), [400, INVALID_BODY], JSON.stringify(payload))
    }
  })

  t.test('answers 400 validation_failed for an empty, blank, missing or non-string name', async (t) => {
    for (const payload of ['{"name":""}', '{"name":"   "}', '{}', '{"name":7}', '{"name":null}', '{"name":["x"]}']) {
      t.same(await call('POST', '/users', payload), [400, NAME_REQUIRED], payload)
    }
  })

  t.test('does not let __proto__ or constructor.prototype bodies pollute or supply fields', async (t) => {
    for (const payload of [
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"__proto__":{"name":"ghost"}}',
    ]) {
      t.same(await call('POST', '/users', payload), [400, NAME_REQUIRED], payload)
      t.equal(({} as { x?: unknown }).x, undefined)
      t.equal(({} as { name?: unknown }).name, undefined)
    }
    t.same(await call('POST', '/users', '{"__proto__":{"x":1},"name":"Real"}'), [
      201,
      { ok: true, message: 'User created', name: 'Real' },
    ])
  })
})

t.test('http-api DELETE /users/{id}', async (t) => {
  t.test('deletes a user', async (t) => {
    t.same(await call('DELETE', '/users/5'), [200, { ok: true, message: 'User deleted', id: '5' }])
  })

  t.test('answers 404 user_not_found for id 0', async (t) => {
    t.same(await call('DELETE', '/users/0'), [404, USER_NOT_FOUND])
  })
})

t.test('http-api /api group', async (t) => {
  t.test('answers ok on each group route', async (t) => {
    t.same(await call('GET', '/api/health'), [200, { ok: true }])
    t.same(await call('GET', '/api/users'), [200, { ok: true, data: [] }])
    t.same(await call('GET', '/api/admin/stats'), [200, { ok: true, users: 2 }])
  })
})

t.test('http-api GET /static/*', async (t) => {
  const { port } = await listening(t, setup)

  t.test('serves a file of the public folder with its Cache-Control', async (t) => {
    const r = await send(port, { path: '/static/hello.txt' })
    t.same(
      [r.status, r.body, r.headers['cache-control'], r.headers['content-type']],
      [200, 'hello from the static folder\n', 'public, max-age=300', 'text/plain; charset=utf-8'],
    )
  })

  t.test('never serves anything outside the folder', async (t) => {
    const paths = [
      '/static/../../package.json',
      '/static/%2e%2e/%2e%2e/package.json',
      '/static/%2E%2E/%2E%2E/package.json',
      '/static/..%2f..%2fpackage.json',
      '/static/..%5c..%5cpackage.json',
      '/static/%2e%2e%2f%2e%2e%2fpackage.json',
      '/static//etc/passwd',
      '/static/%2fetc%2fpasswd',
      '/static/..\\..\\package.json',
      '/static/./../demo.ts',
      '/static/%00',
    ]
    for (const path of paths) {
      const r = await send(port, { path })
      t.ok(r.status === 400 || r.status === 404, `${path} answers ${r.status}`)
      t.notMatch(r.body, /"name": "fw"|root:|Demo/, path)
    }
  })

  t.test('answers 400 bad_path for a .. segment and 404 not_found for a missing file', async (t) => {
    const bad = await send(port, { path: '/static/%2e%2e/demo.ts' })
    t.same(
      [bad.status, JSON.parse(bad.body), bad.headers['cache-control']],
      [400, { ok: false, error: 'bad_path', message: 'Invalid file path' }, undefined],
    )
    const missing = await send(port, { path: '/static/missing.txt' })
    t.same(
      [missing.status, JSON.parse(missing.body), missing.headers['cache-control']],
      [404, { ok: false, error: 'not_found', message: 'File not found' }, undefined],
    )
  })
})
