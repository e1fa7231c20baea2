import { createVerifier } from 'fast-jwt'
import t, { type Test } from 'tap'
import { App, type Handler } from '../../../../index.js'
import { api_key_dev, jwt_dev, session_dev, sign_dev_token } from '../../../../lib/middleware/app/auth-presets.js'
import { ApiKey, JwtClaims } from '../../../../lib/middleware/auth/state.js'
import { Session } from '../../../../lib/middleware/auth/session-state.js'

const KEY = 'dev-key-0123456789'
const SECRET = 'dev-jwt-secret-0123456789-0123456789'

function app_with(t: Test, setup: (app: App) => void): App {
  const app = new App({ access_log: false })
  setup(app)
  t.teardown(() => app.close())
  return app
}

/** The warnings the process emits while the test runs (they arrive on a later turn of the loop). */
function warnings(t: Test): Array<Error & { code?: string }> {
  const seen: Error[] = []
  const listener = (w: Error): void => void seen.push(w)
  process.on('warning', listener)
  t.teardown(() => void process.off('warning', listener))
  return seen
}

/** Checks that one `FW_ERR_AUTH_WEAK_SECRET` warning was emitted, saying `message`, without quoting the secret. */
async function one_weak_secret_warning(
  t: Test,
  seen: Array<Error & { code?: string }>,
  secret: string,
  message: string,
) {
  await new Promise((resolve) => setImmediate(resolve))
  t.same(
    seen.map((w) => [w.code, w.message]),
    [['FW_ERR_AUTH_WEAK_SECRET', message]],
  )
  t.notOk(seen[0]!.message.includes(secret), 'the warning does not quote the secret')
}

t.test('api_key_dev', async (t) => {
  t.test('accepts the key from x-api-key or the api_key query parameter', async (t) => {
    const app = app_with(t, (app) => {
      app.use(api_key_dev(KEY))
      app.get('/k', (req, res) => void res.json({ key: req.state(ApiKey)?.value }))
    })
    t.same((await app.inject({ url: '/k', headers: { 'x-api-key': KEY } })).json(), { key: KEY })
    t.same((await app.inject({ url: `/k?api_key=${KEY}` })).json(), { key: KEY })
    const wrong = await app.inject({ url: '/k?api_key=nope' })
    t.equal(wrong.statusCode, 403)
    t.equal(wrong.json().error, 'invalid_api_key')
    const none = await app.inject({ url: '/k' })
    t.equal(none.statusCode, 401)
    t.equal(none.json().error, 'missing_api_key')
  })

  t.test('refuses an empty key at creation', async (t) => {
    t.throws(() => api_key_dev(''), {
      code: 'FW_ERR_AUTH_BAD_OPTION',
      message: /allowed_keys must be a list of non-empty strings/,
    })
  })
})

t.test('jwt_dev', async (t) => {
  t.test('verifies HS256 tokens without checking expiry', async (t) => {
    const app = app_with(t, (app) => {
      app.use(jwt_dev(SECRET))
      app.get('/j', (req, res) => void res.json({ sub: req.state(JwtClaims)?.subject }))
    })
    const expired = sign_dev_token(SECRET, { sub: 'ada', exp: Math.floor(Date.now() / 1000) - 3600 })
    t.same((await app.inject({ url: '/j', headers: { authorization: `Bearer ${expired}` } })).json(), { sub: 'ada' })
    const foreign = sign_dev_token('another-secret-0123456789-0123456789', { sub: 'ada' })
    const r = await app.inject({ url: '/j', headers: { authorization: `Bearer ${foreign}` } })
    t.equal(r.statusCode, 401)
    t.equal(r.json().error, 'invalid_token')
  })
  t.test('accepts a secret shorter than HS256 needs, with one warning at startup', async (t) => {
    const seen = warnings(t)
    const short = 'dev-short-secret'
    const app = app_with(t, (app) => {
      app.use(jwt_dev(short))
      app.get('/j', (req, res) => void res.json({ sub: req.state(JwtClaims)?.subject }))
    })
    const token = sign_dev_token(short, { sub: 'ada' })
    t.same((await app.inject({ url: '/j', headers: { authorization: `Bearer ${token}` } })).json(), { sub: 'ada' })
    await one_weak_secret_warning(
      t,
      seen,
      short,
      'jwt_dev: the secret has 16 bytes, fewer than the 32 that HS256 needs (RFC 7518 section 3.2); accepted for development only',
    )
    jwt_dev(SECRET)
    await new Promise((resolve) => setImmediate(resolve))
    t.equal(seen.length, 1, 'a long enough secret gives no warning')
  })
})

t.test('session_dev', async (t) => {
  t.test('accepts a secret shorter than session needs, with one warning at startup', async (t) => {
    const seen = warnings(t)
    const short = 'dev-session-secret-0123'
    session_dev(short)
    await one_weak_secret_warning(
      t,
      seen,
      short,
      'session_dev: the secret has 23 bytes, fewer than the 32 that HMAC-SHA256 needs (RFC 7518 section 3.2); accepted for development only',
    )
    session_dev('dev-session-secret-0123456789abcdef')
    session_dev()
    await new Promise((resolve) => setImmediate(resolve))
    t.equal(seen.length, 1, 'a long enough secret, or the random default, gives no warning')
  })

  t.test('keeps a session across requests with the default cookie', async (t) => {
    const app = app_with(t, (app) => {
      app.use(session_dev('dev-session-secret-0123456789abcdef'))
      app.get('/s', (req, res) => {
        const s = req.state(Session)!
        const n = Number(s.get('n') ?? '0') + 1
        s.set('n', String(n))
        res.text(`n=${n}`)
      })
    })
    const first = await app.inject({ url: '/s' })
    const set = String(first.headers['set-cookie'])
    t.match(set, /^sid=[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
    const cookie = set.split(';')[0]!
    t.equal((await app.inject({ url: '/s', headers: { cookie } })).body, 'n=2')
  })

  t.test('makes a random secret when none is given, so two presets do not accept each other', async (t) => {
    const handler: Handler = (req, res) => {
      const s = req.state(Session)!
      s.set('seen', String(Number(s.get('seen') ?? '0') + 1))
      res.text(s.get('seen')!)
    }
    const a = app_with(t, (app) => app.use(session_dev()).get('/s', handler))
    const b = app_with(t, (app) => app.use(session_dev()).get('/s', handler))
    const cookie = String((await a.inject({ url: '/s' })).headers['set-cookie']).split(';')[0]!
    t.equal((await a.inject({ url: '/s', headers: { cookie } })).body, '2')
    t.equal((await b.inject({ url: '/s', headers: { cookie } })).body, '1')
  })
})

t.test('sign_dev_token', async (t) => {
  t.test('signs the claims with HS256 and adds iat', async (t) => {
    const token = sign_dev_token(SECRET, { sub: 'ada', roles: ['admin'] })
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as unknown
    t.same(header, { alg: 'HS256', typ: 'JWT' })
    const payload = createVerifier({ key: SECRET, algorithms: ['HS256'] })(token) as Record<string, unknown>
    t.same(Object.keys(payload).sort(), ['iat', 'roles', 'sub'])
    t.equal(payload.sub, 'ada')
    t.same(payload.roles, ['admin'])
  })

  t.test('refuses an empty secret', async (t) => {
    t.throws(() => sign_dev_token('', { sub: 'a' }), {
      code: 'FW_ERR_AUTH_BAD_OPTION',
      message: /^sign_dev_token: secret must be/,
    })
  })
})
