// The access line names the caller (`user=<id>`) from the request's Identity, whichever authenticator set it.
import t from 'tap'
import { adapt_ctx, type Middleware } from '../../index.js'
import { set_identity } from '../../lib/identity.js'
import { any_of } from '../../lib/middleware/auth/combine.js'
import { api_key } from '../../lib/middleware/auth/api-key.js'
import { jwt } from '../../lib/middleware/auth/jwt.js'
import { sign_dev_token } from '../../lib/middleware/app/auth-presets.js'
import { build, listening } from '../helpers/build.js'
import { raw } from '../helpers/http.js'
import { capture_log as capture } from '../helpers/log.js'
import { parse_kv } from '../lib/log/capture.js'

const SECRET = 'access-line-test-secret-0123456789'
const pairs_of = (line: string): Record<string, string> => Object.fromEntries(parse_kv(line).pairs)

t.test('access line user', async (t) => {
  t.test('ends with user=<id> of the Identity, and has no user without one', async (t) => {
    const out = capture(t)
    const app = build(
      t,
      (app) => {
        app.use(adapt_ctx(any_of(api_key({ allowed_keys: ['k-1'], label: () => 'svc' }), jwt({ secret: SECRET }))))
        app.get('/x', (_req, res) => void res.send())
      },
      { access_log: 'info' },
    )
    await app.inject({ url: '/x', headers: { authorization: `Bearer ${sign_dev_token(SECRET, { sub: 'ada' })}` } })
    await app.inject({ url: '/x', headers: { 'x-api-key': 'k-1' } })
    await app.inject({ url: '/x' })
    const lines = out.lines().map(pairs_of)
    t.equal(lines.length, 3)
    t.same(
      lines.map((p) => [p.status, p.user]),
      [
        ['200', 'ada'],
        ['200', 'svc'],
        ['401', undefined],
      ],
    )
    t.equal(Object.keys(lines[0]!).at(-1), 'user')
  })

  t.test('does not name an Identity set after the handler answered', async (t) => {
    const out = capture(t)
    const late: Middleware = async (req, res, next) => {
      await next()
      set_identity(req, res, { kind: 'late', id: 'mallory' })
    }
    const app = build(
      t,
      (app) => {
        app.use(late)
        app.get('/x', (_req, res) => void res.send())
      },
      { access_log: 'info' },
    )
    await app.inject({ url: '/x' })
    t.equal(pairs_of(out.lines()[0]!).user, undefined)
  })
})

t.test('access line path', async (t) => {
  t.test('gives an absolute-form target by its path alone: no scheme, host or userinfo', async (t) => {
    const out = capture(t)
    const { port } = await listening(t, (app) => app.get('/users/{id}', (_req, res) => void res.send()), {
      access_log: 'info',
    })
    const targets = {
      'http://user:pass@example.com/users/1?token=t&page=2': '/users/1?token=[redacted]&page=2',
      'HTTPS://example.com:8443/users/2': '/users/2',
      '/users/3?page=1': '/users/3?page=1',
    }
    for (const target of Object.keys(targets)) {
      const r = await raw(port, `GET ${target} HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n`)
      t.equal(r.status, 200, `${target}: routed by its path`)
    }
    for (let i = 0; i < 200 && out.lines().length < 3; i++) await new Promise(setImmediate)
    t.same(
      out.lines().map((l) => pairs_of(l).path),
      Object.values(targets),
    )
    t.notOk(out.lines().join('\n').includes('pass'), 'the userinfo is in no line')
  })
})
