import t, { type Test } from 'tap'
import { adapt_ctx, App, compose } from '../../../../index.js'
import { csrf_dev } from '../../../../lib/middleware/app/index.js'
import { csrf, CsrfToken, type CsrfOptions } from '../../../../lib/middleware/security/csrf.js'
import { build } from './build.js'
import { session } from '../../../../lib/middleware/auth/session.js'

const SECRET = 'csrf-test-secret-0123456789abcdef'

const COOKIE = /^csrf_token=([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}); Path=\/; SameSite=Lax$/

function with_csrf(t: Test, options: CsrfOptions = {}) {
  const built = build(t, [adapt_ctx(csrf(options))])
  built.app.get('/token', (req, res) => void res.json('token', req.state(CsrfToken)?.value ?? null))
  built.app.post('/token', (req, res) => void res.json('token', req.state(CsrfToken)?.value ?? null))
  return built
}

/** A fresh token as a browser would get it: the cookie of a first GET. */
async function token_of(app: ReturnType<typeof with_csrf>['app']): Promise<string> {
  const r = await app.inject({ url: '/token' })
  return COOKIE.exec(String(r.headers['set-cookie']))![1]!
}

t.test('csrf', async (t) => {
  t.test('issues a random, script-readable, SameSite=Lax cookie on a safe request without one', async (t) => {
    const { app } = with_csrf(t)
    const r = await app.inject({ url: '/token' })
    t.equal(r.statusCode, 200)
    const m = COOKIE.exec(String(r.headers['set-cookie']))
    t.ok(m, String(r.headers['set-cookie']))
    t.notMatch(String(r.headers['set-cookie']), /HttpOnly/i)
    t.same(r.json(), { token: m![1] })
    t.not(await token_of(app), m![1], 'each new cookie has its own token')
  })

  t.test('keeps a valid cookie and exposes its token to the handler', async (t) => {
    const { app } = with_csrf(t)
    const token = await token_of(app)
    const r = await app.inject({ url: '/token', headers: { cookie: `csrf_token=${token}` } })
    t.equal(r.headers['set-cookie'], undefined)
    t.same(r.json(), { token })
  })

  t.test('reads a cookie sent in double quotes (a quoted cookie-value, RFC 6265 4.1.1)', async (t) => {
    const { app } = with_csrf(t)
    const token = await token_of(app)
    const r = await app.inject({ url: '/token', headers: { cookie: `csrf_token="${token}"` } })
    t.equal(r.headers['set-cookie'], undefined)
    t.same(r.json(), { token })
  })

  t.test('replaces a malformed cookie on a safe request', async (t) => {
    const { app } = with_csrf(t)
    const r = await app.inject({ url: '/token', headers: { cookie: 'csrf_token=short' } })
    const m = COOKIE.exec(String(r.headers['set-cookie']))
    t.ok(m)
    t.same(r.json(), { token: m![1] })
  })

  t.test('leaves safe methods untouched: GET, HEAD and OPTIONS pass without a token', async (t) => {
    const { app, calls } = with_csrf(t)
    for (const method of ['GET', 'HEAD', 'OPTIONS'] as const) {
      const r = await app.inject({ method, url: '/data' })
      t.ok(r.statusCode === 200 || r.statusCode === 204, method)
    }
    t.equal(calls.n, 2, 'GET and HEAD ran the handler; OPTIONS answered 204')
  })

  t.test('accepts POST, PUT, PATCH and DELETE with the cookie and the same token in x-csrf-token', async (t) => {
    const { app, calls } = with_csrf(t)
    const token = await token_of(app)
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const r = await app.inject({
        method,
        url: '/data',
        headers: { cookie: `csrf_token=${token}`, 'x-csrf-token': token },
      })
      t.equal(r.statusCode, 200, method)
    }
    t.equal(calls.n, 4)
    const r = await app.inject({
      method: 'POST',
      url: '/token',
      headers: { cookie: `csrf_token=${token}`, 'x-csrf-token': token },
    })
    t.same(r.json(), { token })
  })

  t.test('accepts the token in the _csrf field of a urlencoded form', async (t) => {
    const { app } = with_csrf(t)
    const token = await token_of(app)
    const r = await app.inject({
      method: 'POST',
      url: '/data',
      payload: `name=x&_csrf=${token}`,
      headers: { cookie: `csrf_token=${token}`, 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    })
    t.equal(r.statusCode, 200)
  })

  t.test('does not read _csrf from a body that is not a urlencoded form', async (t) => {
    const { app, calls } = with_csrf(t)
    const token = await token_of(app)
    const r = await app.inject({
      method: 'POST',
      url: '/data',
      payload: JSON.stringify({ _csrf: token }),
      headers: { cookie: `csrf_token=${token}`, 'content-type': 'application/json' },
    })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
    t.equal(calls.n, 0)
  })

  t.test('refuses a missing cookie with 403 csrf_failed', async (t) => {
    const { app, calls } = with_csrf(t)
    const token = await token_of(app)
    const r = await app.inject({ method: 'POST', url: '/data', headers: { 'x-csrf-token': token } })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
    t.equal(calls.n, 0)
  })

  t.test('refuses a missing header with 403 csrf_failed', async (t) => {
    const { app, calls } = with_csrf(t)
    const token = await token_of(app)
    const r = await app.inject({ method: 'POST', url: '/data', headers: { cookie: `csrf_token=${token}` } })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
    t.equal(calls.n, 0)
  })

  t.test('refuses a token that differs from the cookie', async (t) => {
    const { app, calls } = with_csrf(t)
    const token = await token_of(app)
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')
    for (const sent of [wrong, token + 'x', token.slice(1), 'x']) {
      const r = await app.inject({
        method: 'POST',
        url: '/data',
        headers: { cookie: `csrf_token=${token}`, 'x-csrf-token': sent },
      })
      t.equal(r.statusCode, 403)
      t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token mismatch' })
    }
    t.equal(calls.n, 0)
  })

  t.test('refuses the token of another session', async (t) => {
    const { app, calls } = with_csrf(t)
    const mine = await token_of(app)
    const theirs = await token_of(app)
    const r = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { cookie: `csrf_token=${mine}`, 'x-csrf-token': theirs },
    })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token mismatch' })
    t.equal(calls.n, 0)
  })

  t.test('refuses a malformed cookie even when the header repeats it', async (t) => {
    const { app } = with_csrf(t)
    const r = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { cookie: 'csrf_token=abc', 'x-csrf-token': 'abc' },
    })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
  })

  t.test('refuses Sec-Fetch-Site cross-site even with a matching token', async (t) => {
    const { app, calls } = with_csrf(t)
    const token = await token_of(app)
    const headers = { cookie: `csrf_token=${token}`, 'x-csrf-token': token }
    const r = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { ...headers, 'sec-fetch-site': 'cross-site' },
    })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'Cross-site request refused' })
    const foreign = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { ...headers, 'sec-fetch-site': 'cross-site', origin: 'http://localhost:80' },
    })
    t.equal(foreign.json().message, 'Cross-site request refused', 'Sec-Fetch-Site wins over a matching Origin')
    for (const site of ['same-origin', 'none']) {
      const ok = await app.inject({ method: 'POST', url: '/data', headers: { ...headers, 'sec-fetch-site': site } })
      t.equal(ok.statusCode, 200, site)
    }
    t.equal(calls.n, 2)
  })

  t.test(
    'accepts Origin null on a same-origin request, as browsers send it under Referrer-Policy no-referrer',
    async (t) => {
      const { app } = with_csrf(t)
      const token = await token_of(app)
      const r = await app.inject({
        method: 'POST',
        url: '/data',
        headers: {
          cookie: `csrf_token=${token}`,
          'x-csrf-token': token,
          origin: 'null',
          'sec-fetch-site': 'same-origin',
        },
      })
      t.equal(r.statusCode, 200)
      const without_token = await app.inject({
        method: 'POST',
        url: '/data',
        headers: { origin: 'null', 'sec-fetch-site': 'same-origin' },
      })
      t.equal(without_token.statusCode, 403)
      t.equal(without_token.json().message, 'CSRF token missing')
    },
  )

  t.test('refuses an Origin that does not match the Host when Sec-Fetch-Site is absent', async (t) => {
    const { app } = with_csrf(t)
    const token = await token_of(app)
    const headers = { cookie: `csrf_token=${token}`, 'x-csrf-token': token, host: 'app.example:8080' }
    for (const origin of ['https://evil.example', 'http://app.example:8081', 'null', 'not a url']) {
      const r = await app.inject({ method: 'POST', url: '/data', headers: { ...headers, origin } })
      t.equal(r.statusCode, 403, origin)
      t.same(r.json(), { ok: false, error: 'csrf_failed', message: 'Origin does not match host' }, origin)
    }
    const same = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { ...headers, origin: 'http://app.example:8080' },
    })
    t.equal(same.statusCode, 200)
    const default_port = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { ...headers, host: 'app.example:443', origin: 'https://app.example' },
    })
    t.equal(default_port.statusCode, 200)
  })

  t.test('accepts a trusted origin other than the host', async (t) => {
    const { app } = with_csrf(t, { trusted_origins: ['https://admin.example'] })
    const token = await token_of(app)
    const r = await app.inject({
      method: 'POST',
      url: '/data',
      headers: { cookie: `csrf_token=${token}`, 'x-csrf-token': token, origin: 'https://admin.example' },
    })
    t.equal(r.statusCode, 200)
  })

  t.test('refuses at creation a trusted origin no Origin header could ever equal', async (t) => {
    for (const o of [
      'example.com',
      'https://admin.example/',
      'https://admin.example/path',
      'https://Admin.example',
      'https://admin.example:443',
      'https://*.example.com',
      '*',
      '',
    ]) {
      t.throws(() => csrf({ trusted_origins: [o] }), {
        code: 'FW_ERR_SECURITY_BAD_OPTION',
        message: `csrf: trusted_origins must be a list of exact origins (scheme://host[:port], lowercase, no path nor default port); got ${JSON.stringify(o)}`,
      })
    }
    t.throws(() => csrf({ trusted_origins: ['https://admin.example', 'null'] }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: `csrf: trusted_origins must be real origins: 'null' is the origin of any sandboxed page; got "null"`,
    })
    t.doesNotThrow(() => csrf({ trusted_origins: ['https://admin.example', 'http://localhost:5173'] }))
  })

  t.test('sets the cookie attributes from the options', async (t) => {
    const { app } = with_csrf(t, { cookie_name: '__Host-csrf', secure: true, same_site: 'Strict' })
    const r = await app.inject({ url: '/token' })
    t.match(String(r.headers['set-cookie']), /^__Host-csrf=[A-Za-z0-9_.-]{87}; Path=\/; Secure; SameSite=Strict$/)
  })

  t.test('names the cookie __Host-csrf by default when secure', async (t) => {
    const { app } = with_csrf(t, { secure: true })
    t.match(
      String((await app.inject({ url: '/token' })).headers['set-cookie']),
      /^__Host-csrf=[A-Za-z0-9_.-]{87}; Path=\/; Secure; SameSite=Lax$/,
    )
    const other = with_csrf(t, { secure: true, cookie_path: '/app' })
    t.match(
      String((await other.app.inject({ url: '/token' })).headers['set-cookie']),
      /^csrf_token=/,
      'not with another path',
    )
  })

  t.test('refuses a cookie planted from a sibling subdomain, even with the matching field', async (t) => {
    const { app, calls } = with_csrf(t, { secret: SECRET })
    const planted = [
      'A'.repeat(43),
      `${'A'.repeat(43)}.${'B'.repeat(43)}`,
      await token_of(with_csrf(t, { secret: 'another-servers-secret-0123456789abcdef' }).app),
    ]
    for (const token of planted) {
      const form = { 'content-type': 'application/x-www-form-urlencoded', cookie: `csrf_token=${token}` }
      for (const site of [{ 'sec-fetch-site': 'same-site' }, {}]) {
        const r = await app.inject({
          method: 'POST',
          url: '/data',
          payload: `_csrf=${token}`,
          headers: { ...form, ...site },
        })
        t.equal(r.statusCode, 403)
        t.equal(r.json().error, 'csrf_failed')
      }
    }
    t.equal(calls.n, 0)
  })

  t.test('binds the token to the session: a token of another session fails', async (t) => {
    const built = build(t, [adapt_ctx(session({ secret: SECRET })), adapt_ctx(csrf({ secret: SECRET }))])
    built.app.get('/token', (req, res) => void res.json('token', req.state(CsrfToken)?.value ?? null))
    const visit = async () => {
      const r = await built.app.inject({ url: '/token' })
      const cookies = ([] as string[]).concat(r.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]!)
      return {
        cookie: cookies.join('; '),
        token: r.json().token as string,
        sid: cookies.find((c) => c.startsWith('sid='))!,
      }
    }
    const mine = await visit()
    const theirs = await visit()
    const post = (cookie: string, token: string) =>
      built.app.inject({ method: 'POST', url: '/data', headers: { cookie, 'x-csrf-token': token } })
    t.equal((await post(mine.cookie, mine.token)).statusCode, 200)
    const swapped = await post(`${mine.sid}; csrf_token=${theirs.token}`, theirs.token)
    t.same([swapped.statusCode, swapped.json().message], [403, 'CSRF token missing'])
    t.equal(built.calls.n, 1)
  })

  t.test(
    'uses the valid one of two cookies of its name: a cookie tossed in front does not lock the user out',
    async (t) => {
      const built = build(t, [adapt_ctx(session({ secret: SECRET })), adapt_ctx(csrf({ secret: SECRET }))])
      built.app.get('/token', (req, res) => void res.json('token', req.state(CsrfToken)?.value ?? null))
      const visit = async () => {
        const r = await built.app.inject({ url: '/token' })
        const cookies = ([] as string[]).concat(r.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]!)
        return { sid: cookies.find((c) => c.startsWith('sid='))!, token: r.json().token as string }
      }
      const mine = await visit()
      const theirs = await visit()
      // A sibling subdomain sets `csrf_token` with `Domain=` and a longer `Path`: the browser sends it first.
      for (const tossed of [theirs.token, 'A'.repeat(43), `"${theirs.token}"`]) {
        const cookie = `csrf_token=${tossed}; ${mine.sid}; csrf_token=${mine.token}`
        const page = await built.app.inject({ url: '/token', headers: { cookie } })
        t.same([page.json(), page.headers['set-cookie']], [{ token: mine.token }, undefined], 'the valid one is kept')
        const r = await built.app.inject({
          method: 'POST',
          url: '/data',
          headers: { cookie, 'x-csrf-token': mine.token },
        })
        t.equal(r.statusCode, 200, `a POST with the user's own token passes beside ${tossed.slice(0, 8)}...`)
        const theirs_sent = await built.app.inject({
          method: 'POST',
          url: '/data',
          headers: { cookie, 'x-csrf-token': theirs.token },
        })
        t.same([theirs_sent.statusCode, theirs_sent.json().message], [403, 'CSRF token mismatch'])
      }
      t.equal(built.calls.n, 3)
    },
  )

  t.test('refuses to start when csrf runs before session, on a route or in a composed chain', async (t) => {
    const built = build(t, [adapt_ctx(csrf({ secret: SECRET })), adapt_ctx(session({ secret: SECRET }))])
    await t.rejects(built.app.inject({ url: '/data' }), {
      code: 'FW_ERR_APP_SESSION_ORDER',
      message:
        'GET /data: csrf runs before session, so it cannot bind its check to the session; register it after session (app.use order)',
    })
    const grouped = new App({ access_log: false })
    t.teardown(() => grouped.close())
    grouped.use(csrf_dev())
    grouped.group('/app', (g) => g.use(adapt_ctx(session({ secret: SECRET }))).post('/form', (_req, res) => res.send()))
    await t.rejects(grouped.inject({ url: '/app/form' }), { code: 'FW_ERR_APP_SESSION_ORDER' })
    t.throws(() => compose([csrf_dev(), adapt_ctx(session({ secret: SECRET }))], (_req, res) => res.send()), {
      code: 'FW_ERR_APP_SESSION_ORDER',
      message:
        'a composed chain: csrf runs before session, so it cannot bind its check to the session; register it after session (app.use order)',
    })
  })

  t.test('verifies with every listed secret and signs with the first', async (t) => {
    const OLD = 'old-csrf-secret-0123456789abcdef'
    const token = await token_of(with_csrf(t, { secret: OLD }).app)
    const { app } = with_csrf(t, { secret: [SECRET, OLD] })
    t.equal(
      (
        await app.inject({
          method: 'POST',
          url: '/data',
          headers: { cookie: `csrf_token=${token}`, 'x-csrf-token': token },
        })
      ).statusCode,
      200,
    )
    const retired = with_csrf(t, { secret: SECRET })
    t.equal(
      (
        await retired.app.inject({
          method: 'POST',
          url: '/data',
          headers: { cookie: `csrf_token=${token}`, 'x-csrf-token': token },
        })
      ).statusCode,
      403,
    )
  })

  t.test('reads the header and field names from the options', async (t) => {
    const { app } = with_csrf(t, { cookie_name: 'xsrf', header_name: 'x-xsrf', field_name: 'tok' })
    const r0 = await app.inject({ url: '/token' })
    const token = /^xsrf=([^;]+);/.exec(String(r0.headers['set-cookie']))![1]!
    const h = await app.inject({ method: 'POST', url: '/data', headers: { cookie: `xsrf=${token}`, 'x-xsrf': token } })
    t.equal(h.statusCode, 200)
    const f = await app.inject({
      method: 'POST',
      url: '/data',
      payload: `tok=${token}`,
      headers: { cookie: `xsrf=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    })
    t.equal(f.statusCode, 200)
  })

  t.test('throws at creation for bad options', async (t) => {
    t.throws(() => csrf({ cookie_name: '__Host-csrf' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: secure must be true for a cookie named __Host-csrf; got false',
    })
    t.throws(() => csrf({ same_site: 'lax' as 'Lax' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: same_site must be one of Strict, Lax, None; got "lax"',
    })
    t.throws(() => csrf({ cookie_path: 'app' }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
    // The same cookie rules as the session cookie's.
    t.throws(() => csrf({ cookie_path: '/a\0b' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: cookie_path must be a path starting with / without ; or spaces; got "/a\\u0000b"',
    })
    t.throws(() => csrf({ same_site: 'None' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: secure must be true when same_site is None; got false',
    })
    t.throws(() => csrf({ cookie_name: '__Secure-csrf' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: secure must be true for a cookie named __Secure-csrf; got false',
    })
    t.throws(() => csrf({ cookie_name: '__Host-csrf', secure: true, cookie_path: '/app' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: cookie_path must be / for a __Host- cookie; got "/app"',
    })
    t.throws(() => csrf({ header_name: 'x csrf' }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: header_name must be an HTTP token; got "x csrf"',
    })
    t.throws(() => csrf({ trusted_origins: [7 as unknown as string] }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
    // An HMAC-SHA256 key shorter than the hash (RFC 2104 section 3), as jwt refuses for HS256.
    t.throws(() => csrf({ secret: 'x'.repeat(31) }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message:
        'csrf: secret must be a string or a list of strings of at least 32 characters; got a string of 31 characters',
    })
    t.doesNotThrow(() => csrf({ secret: 'x'.repeat(32) }), 'a 32-character secret is accepted')
    t.throws(() => csrf({ secret: [SECRET, 'short-secret'] }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'csrf: secret must be a string or a list of strings of at least 32 characters; got a list of 2 items',
    })
  })
})
