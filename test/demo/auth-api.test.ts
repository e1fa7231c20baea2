// The reference authentication API in both modes: the same scenarios, the same answers, except for what a token looks
// like.
import t, { type Test } from 'tap'
import { auth_api, type AuthApiOptions, type AuthMode, type AuthService } from '../../demo/auth-api/index.js'
import type { App } from '../../index.js'
import { build, listening } from '../helpers/build.js'

const PASSWORD = 'correct horse'
const ADA = { email: 'ada@example.com', password: PASSWORD, confirm: PASSWORD }
/** A valid address of `n` characters (the local part has at most 64, a domain label at most 63). */
const email_of_length = (n: number): string => 'a'.repeat(64) + '@' + 'b'.repeat(n - 69) + '.com'

interface Api {
  app: App
  auth: AuthService
  post(url: string, payload: unknown, headers?: Record<string, string>): ReturnType<App['inject']>
  get(url: string, token?: string): ReturnType<App['inject']>
}

/** An App with only the API, in `mode`; production uses a lower scrypt cost so the scenarios stay fast. */
function api(t: Test, mode: AuthMode, options: AuthApiOptions = {}): Api {
  let auth!: AuthService
  const app = build(t, (app) => void (auth = auth_api(app, { mode, env: {}, scrypt: { cost: 1024 }, ...options })))
  return {
    app,
    auth,
    post: (url, payload, headers = {}) =>
      app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      }),
    get: (url, token) => app.inject({ url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }),
  }
}

/** Registers and logs in; resolves with the token. */
async function signed_in(t: Test, a: Api, body: Record<string, unknown> = ADA): Promise<string> {
  t.equal((await a.post('/auth/register', body)).statusCode, 201)
  const r = await a.post('/auth/login', { email: body.email, password: body.password })
  return (r.json() as { token: string }).token
}

const invalid = (field: string, code: string, message: string) => ({
  ok: false,
  error: 'validation_failed',
  message,
  errors: [{ field, code, message }],
})

const NOT_AN_OBJECT = invalid('', 'Type', 'Expected JSON object')

for (const mode of ['demo', 'production'] as const) {
  const token_of = (id: number, token: string): string => (mode === 'demo' ? `dev-token-${id}` : token)

  t.test(`auth_api in ${mode} mode`, async (t) => {
    t.test('registers a user with role user and answers 201 without the password', async (t) => {
      const a = api(t, mode)
      const r = await a.post('/auth/register', ADA)
      t.equal(r.statusCode, 201)
      t.same(r.json(), { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } })
      t.notMatch(r.body, PASSWORD)
      const second = await a.post('/auth/register', { ...ADA, email: 'grace@example.com' })
      t.same(second.json(), { ok: true, user: { id: 2, email: 'grace@example.com', role: 'user' } })
    })

    t.test('trims and lowercases the email, so duplicates are case-insensitive (409 email_taken)', async (t) => {
      const a = api(t, mode)
      const r = await a.post('/auth/register', { ...ADA, email: '  Ada@Example.COM\t' })
      t.same(r.json(), { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } })
      for (const email of ['ada@example.com', 'ADA@EXAMPLE.COM', ' ada@example.com ']) {
        const dup = await a.post('/auth/register', { ...ADA, email })
        t.equal(dup.statusCode, 409, email)
        t.same(dup.json(), { ok: false, error: 'email_taken', message: 'email already registered' })
      }
      t.equal((await a.auth.users.list()).length, 1)
    })

    t.test('trims Unicode whitespace around the email and refuses non-ASCII addresses', async (t) => {
      const a = api(t, mode)
      const r = await a.post('/auth/register', { ...ADA, email: '\u00a0\u2003Ada@Example.com\u3000\n' })
      t.same(r.json(), { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } })
      for (const email of ['adá@example.com', 'ada@exämple.com', '\u200bada@example.com', 'ada@example.com\u200b']) {
        const bad = await a.post('/auth/register', { ...ADA, email })
        t.equal(bad.statusCode, 400, JSON.stringify(email))
        t.same(bad.json(), invalid('email', 'Email', 'invalid email format'))
      }
    })

    t.test('answers every RegisterBody rule with the spec message', async (t) => {
      const a = api(t, mode)
      const cases: Array<[Record<string, unknown>, ReturnType<typeof invalid>]> = [
        [{ ...ADA, email: '' }, invalid('email', 'Required', 'email is required')],
        [{ ...ADA, email: '   ' }, invalid('email', 'Required', 'email is required')],
        [{ ...ADA, email: 'ada.example.com' }, invalid('email', 'Email', 'invalid email format')],
        [
          { ...ADA, email: email_of_length(121) },
          invalid('email', 'MaxLength', 'email must be at most 120 characters'),
        ],
        [
          { ...ADA, password: 'a'.repeat(7), confirm: 'a'.repeat(7) },
          invalid('password', 'MinLength', 'password must be 8 to 64 characters'),
        ],
        [
          { ...ADA, password: 'a'.repeat(65), confirm: 'a'.repeat(65) },
          invalid('password', 'MaxLength', 'password must be 8 to 64 characters'),
        ],
        [{ email: ADA.email, password: PASSWORD }, invalid('confirm', 'Required', 'confirm is required')],
        [{ ...ADA, confirm: 'correct hose' }, invalid('confirm', 'Custom', 'passwords do not match')],
      ]
      for (const [body, expected] of cases) {
        const r = await a.post('/auth/register', body)
        t.equal(r.statusCode, 400, JSON.stringify(body))
        t.same(r.json(), expected, JSON.stringify(body))
      }
      t.equal((await a.auth.users.list()).length, 0)
    })

    t.test(
      'accepts an email of 120 characters and passwords of 8 and 64 characters, counted in code points',
      async (t) => {
        const a = api(t, mode)
        const email = email_of_length(120)
        t.equal(email.length, 120)
        t.equal(email_of_length(121).length, 121)
        t.equal((await a.post('/auth/register', { ...ADA, email })).statusCode, 201)
        for (const [i, password] of ['a'.repeat(8), 'a'.repeat(64), '😀'.repeat(8), '密'.repeat(64)].entries()) {
          const r = await a.post('/auth/register', { email: `u${i}@example.com`, password, confirm: password })
          t.equal(r.statusCode, 201, password)
        }
        const emoji = await a.post('/auth/register', {
          email: 'e@example.com',
          password: '😀'.repeat(65),
          confirm: '😀'.repeat(65),
        })
        t.same(emoji.json(), invalid('password', 'MaxLength', 'password must be 8 to 64 characters'))
      },
    )

    t.test('reports every failing field at once, in schema order', async (t) => {
      const a = api(t, mode)
      const r = await a.post('/auth/register', {})
      t.same(r.json(), {
        ok: false,
        error: 'validation_failed',
        message: 'email is required',
        errors: [
          { field: 'email', code: 'Required', message: 'email is required' },
          { field: 'password', code: 'Required', message: 'password is required' },
          { field: 'confirm', code: 'Required', message: 'confirm is required' },
        ],
      })
    })

    t.test('answers 400 Expected JSON object for a missing, non-JSON or non-object body', async (t) => {
      const a = api(t, mode)
      const bodies: Array<[string, Record<string, string>]> = [
        ['', {}],
        ['hello', { 'content-type': 'text/plain' }],
        ['{"email":', {}],
        ['[]', {}],
        [JSON.stringify([ADA]), {}],
        ['null', {}],
        ['"ada@example.com"', {}],
        ['42', {}],
        ['true', {}],
      ]
      for (const url of ['/auth/register', '/auth/login']) {
        for (const [payload, headers] of bodies) {
          const r = await a.post(url, payload, headers)
          t.equal(r.statusCode, 400, `${url} ${payload}`)
          t.same(r.json(), NOT_AN_OBJECT, `${url} ${payload}`)
        }
      }
      const none = await a.app.inject({ method: 'POST', url: '/auth/register' })
      t.same([none.statusCode, none.json()], [400, NOT_AN_OBJECT], 'no body and no content type')
    })

    t.test('answers Type errors for fields of the wrong type', async (t) => {
      const a = api(t, mode)
      const r = await a.post('/auth/register', { email: 42, password: ['correct horse'], confirm: { a: 1 } })
      t.same(r.json().errors, [
        { field: 'email', code: 'Type', message: 'email must be a string' },
        { field: 'password', code: 'Type', message: 'password must be a string' },
        { field: 'confirm', code: 'Type', message: 'confirm must be a string' },
      ])
      const login = await a.post('/auth/login', { email: true, password: 12345678 })
      t.same(login.json().errors, [
        { field: 'email', code: 'Type', message: 'email must be a string' },
        { field: 'password', code: 'Type', message: 'password must be a string' },
      ])
    })

    t.test('stores and returns SQL- and HTML-looking input verbatim', async (t) => {
      const a = api(t, mode)
      const email = "x'or'1'='1--{{7*7}}@example.com"
      const password = "' OR 1=1; --<script>alert(1)</script>"
      const token = await signed_in(t, a, { email, password, confirm: password })
      const me = await a.get('/auth/me', token)
      t.same(me.json(), { ok: true, user: { id: 1, email, role: 'user' } })
      t.equal(me.headers['content-type'], 'application/json; charset=utf-8')
    })

    t.test('ignores a role in the body, also under __proto__', async (t) => {
      const a = api(t, mode)
      const r = await a.post(
        '/auth/register',
        `{"email":"ada@example.com","password":"${PASSWORD}","confirm":"${PASSWORD}",` +
          '"role":"admin","id":99,"__proto__":{"role":"admin"}}',
      )
      t.same(r.json(), { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } })
    })

    t.test('validates before the duplicate check', async (t) => {
      const a = api(t, mode)
      await a.post('/auth/register', ADA)
      const r = await a.post('/auth/register', { ...ADA, confirm: 'something else' })
      t.same([r.statusCode, r.json()], [400, invalid('confirm', 'Custom', 'passwords do not match')])
    })

    t.test('registers exactly one of 1000 concurrent registrations of one email', async (t) => {
      // From one address: production's registration limit (10 an hour by default) would refuse all but 10 of them.
      const a = api(t, mode, { register_limit_per_ip: { max_requests: 2000, window_seconds: 60 } })
      const answers = await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          a.post('/auth/register', { ...ADA, email: i % 2 === 0 ? 'ada@example.com' : 'ADA@example.com' }),
        ),
      )
      const codes = answers.map((r) => r.statusCode)
      t.equal(codes.filter((c) => c === 201).length, 1)
      t.equal(codes.filter((c) => c === 409).length, 999)
      t.same(
        (await a.auth.users.list()).map((u) => [u.id, u.email]),
        [[1, 'ada@example.com']],
      )
      t.equal(
        (await a.post('/auth/register', { ...ADA, email: 'next@example.com' })).json().user.id,
        2,
        'ids stay dense',
      )
    })

    t.test('logs in with the token of its mode, whatever the case and spaces of the email', async (t) => {
      const a = api(t, mode)
      await a.post('/auth/register', ADA)
      const r = await a.post('/auth/login', { email: ' ADA@example.com ', password: PASSWORD })
      t.equal(r.statusCode, 200)
      const body = r.json() as { ok: boolean; token: string; expires_in?: number }
      t.same(
        body,
        mode === 'demo' ? { ok: true, token: 'dev-token-1' } : { ok: true, token: body.token, expires_in: 3600 },
      )
      t.equal(body.token, token_of(1, body.token))
      if (mode === 'production') t.match(body.token, /^[A-Za-z0-9_-]{43}$/)
      t.notMatch(r.body, PASSWORD)
    })

    t.test(
      'over HTTP, refuses valid credentials sent as text/plain or without a Content-Type (login CSRF)',
      async (t) => {
        // What a cross-site page can send without a CORS preflight: a string body (text/plain;charset=UTF-8) or a Blob
        // of empty type (no Content-Type at all), with the visitor's cookies.
        const { port } = await listening(t, (app) => {
          auth_api(app, { mode, env: {}, scrypt: { cost: 1024 } })
          app.post('/type', (req, res) => void res.json('type', req.header('content-type', 'none')))
        })
        const url = `http://127.0.0.1:${port}/auth`
        const type_of = async (init: RequestInit): Promise<unknown> =>
          (await (await fetch(`http://127.0.0.1:${port}/type`, { method: 'POST', ...init })).json()) as unknown
        t.same(
          await type_of({ body: 'x' }),
          { type: 'text/plain;charset=UTF-8' },
          'a string body is sent as text/plain',
        )
        t.same(
          await type_of({ body: new Blob(['x']) }),
          { type: 'none' },
          'a Blob of empty type is sent without a type',
        )
        const json = { 'content-type': 'application/json' }
        t.equal(
          (await fetch(`${url}/register`, { method: 'POST', headers: json, body: JSON.stringify(ADA) })).status,
          201,
        )
        const credentials = JSON.stringify({ email: ADA.email, password: PASSWORD })
        const simple: Array<[string, RequestInit]> = [
          ['text/plain', { body: credentials }],
          ['no Content-Type', { body: new Blob([credentials]) }],
          ['text/plain, cookie', { body: credentials, headers: { cookie: 'session=victim' } }],
        ]
        for (const [name, init] of simple) {
          const r = await fetch(`${url}/login`, { method: 'POST', ...init })
          const text = await r.text()
          t.equal(r.status, 400, name)
          t.same(JSON.parse(text), NOT_AN_OBJECT, name)
          t.equal(r.headers.get('set-cookie'), null, `${name}: no cookie set`)
          t.notMatch(text, /token/, `${name}: no token`)
        }
        const ok = await fetch(`${url}/login`, { method: 'POST', headers: json, body: credentials })
        const body = (await ok.json()) as { token: string }
        t.equal(ok.status, 200, 'the same credentials as application/json log in')
        t.equal(body.token, token_of(1, body.token))
      },
    )

    t.test('answers 401 invalid_credentials alike for a wrong password and an unknown email', async (t) => {
      const a = api(t, mode)
      await a.post('/auth/register', ADA)
      const expected = { ok: false, error: 'invalid_credentials', message: 'invalid email or password' }
      for (const body of [
        { email: ADA.email, password: 'correct horsE' },
        { email: 'nobody@example.com', password: PASSWORD },
        { email: ADA.email, password: PASSWORD + ' ' },
      ]) {
        const r = await a.post('/auth/login', body)
        t.same([r.statusCode, r.json()], [401, expected], JSON.stringify(body))
      }
    })

    t.test('answers every LoginBody rule with the spec message, before checking credentials', async (t) => {
      const a = api(t, mode)
      const cases: Array<[Record<string, unknown>, ReturnType<typeof invalid>]> = [
        [{ password: PASSWORD }, invalid('email', 'Required', 'email is required')],
        [{ email: 'nobody', password: PASSWORD }, invalid('email', 'Email', 'invalid email format')],
        [{ email: ADA.email }, invalid('password', 'Required', 'password is required')],
        [
          { email: ADA.email, password: 'short77' },
          invalid('password', 'MinLength', 'password must be at least 8 characters'),
        ],
      ]
      for (const [body, expected] of cases) {
        const r = await a.post('/auth/login', body)
        t.same([r.statusCode, r.json()], [400, expected], JSON.stringify(body))
      }
    })

    t.test('GET /auth/me answers the user behind the token', async (t) => {
      const a = api(t, mode)
      const token = await signed_in(t, a)
      const r = await a.get('/auth/me', token)
      t.same([r.statusCode, r.json()], [200, { ok: true, user: { id: 1, email: 'ada@example.com', role: 'user' } }])
    })

    t.test('GET /auth/me answers 401 unauthorized without the exact Bearer prefix and a known token', async (t) => {
      const a = api(t, mode)
      const token = await signed_in(t, a)
      const headers = [
        undefined,
        `bearer ${token}`,
        `BEARER ${token}`,
        `Bearer  ${token}`,
        'Bearer ',
        'Bearer',
        token,
        `Basic ${token}`,
        `Bearer ${token}x`,
        `Bearer ${token.slice(0, -1)}`,
        'Bearer dev-token-2',
        'Bearer dev-token-0',
      ]
      for (const authorization of headers) {
        const r = await a.app.inject({ url: '/auth/me', headers: authorization === undefined ? {} : { authorization } })
        t.same([r.statusCode, r.json()], [401, { ok: false, error: 'unauthorized' }], String(authorization))
        t.equal(r.headers['www-authenticate'], 'Bearer')
      }
    })

    t.test('marks the token and user answers Cache-Control: no-store (RFC 6749 5.1)', async (t) => {
      const a = api(t, mode, { admins: ['ada@example.com'] })
      const created = await a.post('/auth/register', ADA)
      t.equal(created.headers['cache-control'], 'no-store', 'register')
      const login = await a.post('/auth/login', { email: ADA.email, password: PASSWORD })
      t.equal(login.statusCode, 200)
      t.equal(login.headers['cache-control'], 'no-store', 'login')
      const token = (login.json() as { token: string }).token
      for (const url of ['/auth/me', '/auth/admin']) {
        const r = await a.get(url, token)
        t.equal(r.statusCode, 200, url)
        t.equal(r.headers['cache-control'], 'no-store', url)
      }
    })

    t.test('refuses a password that differs only in unpaired surrogates', async (t) => {
      // Encoded as UTF-8, every unpaired surrogate becomes U+FFFD, so these would all be one password.
      const a = api(t, mode)
      const lone = '\ud800'.repeat(8)
      t.equal((await a.post('/auth/register', { ...ADA, password: lone, confirm: lone })).statusCode, 201)
      for (const other of ['\udbff'.repeat(8), '\ufffd'.repeat(8), '\udc00'.repeat(8)]) {
        const r = await a.post('/auth/login', { email: ADA.email, password: other })
        t.same([r.statusCode, r.json().error], [401, 'invalid_credentials'], JSON.stringify(other))
      }
      t.equal((await a.post('/auth/login', { email: ADA.email, password: lone })).statusCode, 200)
    })

    t.test('refuses a password that differs only in trailing NUL characters', async (t) => {
      const a = api(t, mode)
      t.equal((await a.post('/auth/register', ADA)).statusCode, 201)
      for (const other of [PASSWORD + '\u0000', PASSWORD + '\u0000'.repeat(40)]) {
        const r = await a.post('/auth/login', { email: ADA.email, password: other })
        t.same([r.statusCode, r.json().error], [401, 'invalid_credentials'], JSON.stringify(other))
      }
      t.equal((await a.post('/auth/login', { email: ADA.email, password: PASSWORD })).statusCode, 200)
    })

    t.test('GET /auth/admin answers 401 without a user, 403 for a user and 200 for an admin', async (t) => {
      const a = api(t, mode, { admins: [' Root@Example.com'] })
      t.same((await a.get('/auth/admin')).json(), { ok: false, error: 'unauthorized' })
      const user = await signed_in(t, a)
      const forbidden = await a.get('/auth/admin', user)
      t.same([forbidden.statusCode, forbidden.json()], [403, { ok: false, error: 'admin role required' }])
      const root = { email: 'ROOT@example.com', password: 'root password', confirm: 'root password' }
      const admin = await signed_in(t, a, root)
      const ok = await a.get('/auth/admin', admin)
      t.same([ok.statusCode, ok.json()], [200, { ok: true, user: { id: 2, email: 'root@example.com', role: 'admin' } }])
      t.same((await a.get('/auth/me', admin)).json().user.role, 'admin')
    })

    t.test('keeps the password out of every answer of a whole session', async (t) => {
      const a = api(t, mode)
      const secret = 'Secr3t-Passw0rd-Xyz'
      const bodies = [
        (await a.post('/auth/register', { email: 'ada@example.com', password: secret, confirm: secret })).body,
        (await a.post('/auth/register', { email: 'ada@example.com', password: secret, confirm: secret })).body,
        (await a.post('/auth/register', { email: 'bob@example.com', password: secret, confirm: secret + '!' })).body,
        (await a.post('/auth/login', { email: 'ada@example.com', password: secret + '!' })).body,
      ]
      const login = await a.post('/auth/login', { email: 'ada@example.com', password: secret })
      bodies.push(
        login.body,
        (await a.get('/auth/me', login.json().token)).body,
        (await a.get('/auth/admin', login.json().token)).body,
      )
      t.equal(bodies.length, 7)
      for (const body of bodies) t.notMatch(body, secret)
    })
  })
}

t.test('auth_api OpenAPI document', async (t) => {
  const app = build(t, (app) => {
    auth_api(app, { env: {} })
    app.openapi({ info: { title: 'auth-api', version: '1.0.0' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()

  t.test('declares bearer auth as a security scheme on /auth/me and /auth/admin', async (t) => {
    t.strictSame(doc.components.securitySchemes, {
      bearer: { type: 'http', scheme: 'bearer', description: 'The token from POST /auth/login' },
    })
    t.strictSame(doc.paths['/auth/me'].get.security, [{ bearer: [] }])
    t.strictSame(doc.paths['/auth/admin'].get.security, [{ bearer: [] }])
  })

  t.test('documents no Authorization header parameter, and register and login as public', async (t) => {
    t.notOk(doc.paths['/auth/me'].get.parameters)
    t.notOk(doc.paths['/auth/admin'].get.parameters)
    t.strictSame(doc.paths['/auth/register'].post.security, [])
    t.strictSame(doc.paths['/auth/login'].post.security, [])
  })

  t.test("names the 403 answer by the spec's text, admin role required", async (t) => {
    t.equal(doc.paths['/auth/admin'].get.responses['403'].description, 'admin role required')
  })

  t.test('lists 429 rate_limit_exceeded on login and register, in both modes', async (t) => {
    const production = build(t, (app) => {
      auth_api(app, { env: {}, mode: 'production', scrypt: { cost: 1024 } })
      app.openapi({ info: { title: 'auth-api', version: '1.0.0' } })
    })
    const docs = [doc, (await production.inject({ url: '/openapi.json' })).json()]
    for (const [i, d] of docs.entries()) {
      for (const path of ['/auth/login', '/auth/register'])
        t.match(d.paths[path].post.responses['429'], { description: /rate_limit_exceeded/ }, `${path} ${i}`)
      t.notOk(d.paths['/auth/me'].get.responses['429'])
    }
    // Production's limits document themselves too: the store failing answers 503 rate_limit_unavailable.
    for (const path of ['/auth/login', '/auth/register']) {
      t.notOk(doc.paths[path].post.responses['503'], `demo ${path}`)
      t.match(docs[1].paths[path].post.responses['503'], { description: /rate_limit_unavailable/ }, path)
    }
  })
})
