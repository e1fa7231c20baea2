// The access line names the caller (`user=<id>`) from the request's Identity, whichever authenticator set it.
import t from 'tap'
import { adapt_ctx, type Middleware } from '../../index.js'
import { set_identity } from '../../lib/identity.js'
import { any_of } from '../../lib/middleware/auth/combine.js'
import { api_key } from '../../lib/middleware/auth/api-key.js'
import { jwt } from '../../lib/middleware/auth/jwt.js'
import { sign_dev_token } from '../../lib/middleware/app/auth-presets.js'
import { build } from '../helpers/build.js'
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
