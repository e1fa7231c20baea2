import t, { type Test } from 'tap'
import { adapt_ctx, App, type Middleware } from '../../../../index.js'
import { cors, type CorsOptions } from '../../../../lib/middleware/security/cors.js'
import { build } from './build.js'

const APP_ORIGIN = 'http://localhost:5173'

function with_cors(t: Test, options: CorsOptions, before: Middleware[] = [], after: Middleware[] = []) {
  return build(t, [...before, adapt_ctx(cors(options)), ...after])
}

const preflight = (origin: string, method = 'PUT', headers?: string) => ({
  method: 'OPTIONS' as const,
  url: '/data',
  headers: {
    origin,
    'access-control-request-method': method,
    ...(headers === undefined ? {} : { 'access-control-request-headers': headers }),
  },
})

t.test('cors', async (t) => {
  t.test('allows a listed origin and varies on Origin', async (t) => {
    const { app, calls } = with_cors(t, { origins: [APP_ORIGIN] })
    const r = await app.inject({ url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(r.headers['access-control-allow-credentials'], undefined)
    t.equal(r.headers.vary, 'Origin')
    t.equal(calls.n, 1)
  })

  t.test('keeps Vary: Origin when the handler sets its own Vary, before or after', async (t) => {
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    app.use(async (_req, res, next) => {
      res.header('Vary', 'Accept-Encoding')
      await next()
    })
    app.use(adapt_ctx(cors({ origins: [APP_ORIGIN] })))
    app.get('/lang', (_req, res) => void res.header('Vary', 'Accept-Language').text('bonjour'))
    app.get('/all', (_req, res) => void res.header('vary', '*').text('any'))
    const r = await app.inject({ url: '/lang', headers: { origin: APP_ORIGIN } })
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(r.headers.vary, 'Accept-Encoding, Origin, Accept-Language')
    t.equal((await app.inject({ url: '/all', headers: { origin: APP_ORIGIN } })).headers.vary, '*')
  })

  t.test('adds Access-Control-Allow-Credentials when credentials are on', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN], allow_credentials: true })
    const r = await app.inject({ url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(r.headers['access-control-allow-credentials'], 'true')
  })

  t.test('lets a refused origin simple request through without CORS headers', async (t) => {
    const { app, calls } = with_cors(t, { origins: [APP_ORIGIN], allow_credentials: true })
    const r = await app.inject({ url: '/data', headers: { origin: 'https://evil.example' } })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['access-control-allow-origin'], undefined)
    t.equal(r.headers['access-control-allow-credentials'], undefined)
    t.equal(r.headers.vary, 'Origin')
    t.equal(calls.n, 1)
  })

  t.test('leaves requests without Origin alone apart from Vary', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN] })
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['access-control-allow-origin'], undefined)
    t.equal(r.headers.vary, 'Origin')
  })

  t.test('answers an allowed preflight with 204 without running the handler', async (t) => {
    const { app, calls } = with_cors(t, { origins: [APP_ORIGIN], allow_credentials: true })
    const r = await app.inject(preflight(APP_ORIGIN, 'PUT', 'content-type, Authorization'))
    t.equal(r.statusCode, 204)
    t.equal(r.body, '')
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(r.headers['access-control-allow-credentials'], 'true')
    t.equal(r.headers['access-control-allow-methods'], 'GET, POST, PUT, PATCH, DELETE, OPTIONS')
    t.equal(r.headers['access-control-allow-headers'], 'Content-Type, Authorization')
    t.equal(r.headers['access-control-max-age'], '600')
    t.equal(r.headers.vary, 'Origin')
    t.equal(calls.n, 0)
  })

  t.test('refuses a preflight from a refused origin with 403 cors_forbidden', async (t) => {
    const { app, calls } = with_cors(t, { origins: [APP_ORIGIN] })
    const r = await app.inject(preflight('https://evil.example'))
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'cors_forbidden', message: 'CORS origin not allowed' })
    t.equal(r.headers['access-control-allow-origin'], undefined)
    t.equal(calls.n, 0)
  })

  t.test(
    'refuses look-alike origins: evil-localhost, a suffix, another port, another scheme, upper case',
    async (t) => {
      const { app } = with_cors(t, { origins: [APP_ORIGIN], allow_credentials: true })
      for (const origin of [
        'http://evil-localhost:5173',
        'http://localhost:5173.evil.com',
        'http://localhost:5174',
        'https://localhost:5173',
        'http://LOCALHOST:5173',
        'http://localhost:5173/',
        `${APP_ORIGIN}, https://evil.example`,
      ]) {
        const r = await app.inject(preflight(origin))
        t.equal(r.statusCode, 403, origin)
        t.equal(r.json().error, 'cors_forbidden', origin)
        const simple = await app.inject({ url: '/data', headers: { origin } })
        t.equal(simple.headers['access-control-allow-origin'], undefined, origin)
      }
    },
  )

  t.test('refuses the null origin unless it is listed', async (t) => {
    const refused = with_cors(t, { origins: [APP_ORIGIN] })
    const r1 = await refused.app.inject(preflight('null'))
    t.equal(r1.statusCode, 403)
    t.equal(r1.json().error, 'cors_forbidden')
    const r2 = await refused.app.inject({ url: '/data', headers: { origin: 'null' } })
    t.equal(r2.headers['access-control-allow-origin'], undefined)

    const listed = with_cors(t, { origins: ['null'] })
    const r3 = await listed.app.inject(preflight('null'))
    t.equal(r3.statusCode, 204)
    t.equal(r3.headers['access-control-allow-origin'], 'null')
  })

  t.test('refuses a preflight asking for a method that is not allowed', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN], methods: ['GET', 'POST'] })
    const r = await app.inject(preflight(APP_ORIGIN, 'DELETE'))
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'cors_forbidden', message: 'CORS method not allowed' })
    const ok = await app.inject(preflight(APP_ORIGIN, 'POST'))
    t.equal(ok.statusCode, 204)
    t.equal(ok.headers['access-control-allow-methods'], 'GET, POST')
  })

  t.test('passes the method check of a preflight for a CORS-safelisted method (GET, HEAD, POST)', async (t) => {
    // Fetch's CORS-preflight check lets a safelisted method through whatever Access-Control-Allow-Methods says: the
    // same POST without the custom header needs no preflight at all, so refusing it protects nothing.
    const { app, calls } = with_cors(t, { origins: [APP_ORIGIN], methods: ['PUT'] })
    for (const method of ['GET', 'HEAD', 'POST']) {
      const r = await app.inject(preflight(APP_ORIGIN, method, 'content-type'))
      t.equal(r.statusCode, 204, method)
      t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN, method)
      t.equal(r.headers['access-control-allow-methods'], 'PUT', method)
    }
    t.equal(calls.n, 0)
    // Only the method check changes: the other methods, headers and origins are refused as before.
    for (const method of ['DELETE', 'PATCH', 'post']) {
      t.equal((await app.inject(preflight(APP_ORIGIN, method))).json().message, 'CORS method not allowed', method)
    }
    t.equal((await app.inject(preflight(APP_ORIGIN, 'POST', 'x-secret'))).json().message, 'CORS header not allowed')
    t.equal((await app.inject(preflight('https://evil.example', 'POST'))).json().message, 'CORS origin not allowed')
  })

  t.test('refuses a preflight asking for a header that is not allowed', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN] })
    const r = await app.inject(preflight(APP_ORIGIN, 'POST', 'content-type, x-secret'))
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'cors_forbidden', message: 'CORS header not allowed' })
  })

  t.test('answers a preflight on an unknown path too (CORS runs before the 404)', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN] })
    const r = await app.inject({ ...preflight(APP_ORIGIN), url: '/nowhere' })
    t.equal(r.statusCode, 204)
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    const get = await app.inject({ url: '/nowhere', headers: { origin: APP_ORIGIN } })
    t.equal(get.statusCode, 404)
    t.equal(get.headers['access-control-allow-origin'], APP_ORIGIN)
  })

  t.test('treats OPTIONS without Access-Control-Request-Method as an ordinary request', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN] })
    const r = await app.inject({ method: 'OPTIONS', url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(r.statusCode, 204)
    t.equal(r.headers.allow, 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(r.headers['access-control-allow-methods'], undefined)
  })

  t.test('allows any origin with the wildcard, without credentials', async (t) => {
    const { app } = with_cors(t, { origins: ['*'] })
    const r = await app.inject({ url: '/data', headers: { origin: 'https://anyone.example' } })
    t.equal(r.headers['access-control-allow-origin'], '*')
    t.equal(r.headers['access-control-allow-credentials'], undefined)
    const p = await app.inject(preflight('null'))
    t.equal(p.statusCode, 204)
    t.equal(p.headers['access-control-allow-origin'], '*')
  })

  t.test('keeps CORS headers on error answers of later middleware', async (t) => {
    const deny: Middleware = (_req, res) => void res.error(401, 'missing_api_key', 'API key required')
    const { app, calls } = with_cors(t, { origins: [APP_ORIGIN], allow_credentials: true }, [], [deny])
    const r = await app.inject({ url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(r.statusCode, 401)
    t.equal(r.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(r.headers['access-control-allow-credentials'], 'true')
    t.equal(calls.n, 0)
  })

  t.test('appends Origin to an existing Vary header', async (t) => {
    const vary: Middleware = (_req, res, next) => {
      res.header('Vary', 'Accept-Encoding')
      return next()
    }
    const { app } = with_cors(t, { origins: [APP_ORIGIN] }, [vary])
    const r = await app.inject({ url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(r.headers.vary, 'Accept-Encoding, Origin')
  })

  t.test('exposes the configured response headers to allowed origins', async (t) => {
    const { app } = with_cors(t, { origins: [APP_ORIGIN], expose_headers: ['X-RateLimit-Remaining', 'Retry-After'] })
    const r = await app.inject({ url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(r.headers['access-control-expose-headers'], 'X-RateLimit-Remaining, Retry-After')
    const refused = await app.inject({ url: '/data', headers: { origin: 'https://evil.example' } })
    t.equal(refused.headers['access-control-expose-headers'], undefined)
  })

  t.test('throws at creation for the wildcard with credentials', async (t) => {
    t.throws(() => cors({ origins: ['*'], allow_credentials: true }), {
      code: 'FW_ERR_CORS_WILDCARD_CREDENTIALS',
      message: 'cors: origins ["*"] cannot be combined with allow_credentials; list the allowed origins instead',
    })
  })

  t.test('throws at creation for the null origin with credentials, listed or matched by a RegExp', async (t) => {
    // `null` is the origin of every sandboxed iframe and data: page on any site: with credentials it is the wildcard.
    const message =
      "cors: origins must be real origins with allow_credentials: 'null' is the origin of any sandboxed page; got "
    t.throws(() => cors({ origins: [APP_ORIGIN, 'null'], allow_credentials: true }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: `${message}"null"`,
    })
    const re = /^(?:null|https:\/\/a\.example\.com)$/
    t.throws(() => cors({ origins: [re], allow_credentials: true }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: message + JSON.stringify(String(re)),
    })
    t.doesNotThrow(() => cors({ origins: ['null'] }), 'without credentials it may be listed')
    t.doesNotThrow(() => cors({ origins: [/^https:\/\/a\.example\.com$/], allow_credentials: true }))
  })

  t.test('refuses the null origin with credentials even when an origins function allows it', async (t) => {
    // A function cannot be checked at creation: `(o) => true` with credentials gave `Access-Control-Allow-Origin: null`
    // and `-Credentials: true`, every sandboxed page on any site reading the users' answers.
    const seen: string[] = []
    const { app, calls } = with_cors(t, {
      origins: (o) => (seen.push(o), true),
      allow_credentials: true,
    })
    const simple = await app.inject({ url: '/data', headers: { origin: 'null' } })
    t.equal(simple.statusCode, 200)
    t.equal(simple.headers['access-control-allow-origin'], undefined)
    t.equal(simple.headers['access-control-allow-credentials'], undefined)
    t.equal(simple.headers.vary, 'Origin')
    t.equal(calls.n, 1, 'a refused origin simple request still passes, without CORS headers')
    const pre = await app.inject(preflight('null'))
    t.equal(pre.statusCode, 403)
    t.same(pre.json(), { ok: false, error: 'cors_forbidden', message: 'CORS origin not allowed' })
    t.equal(pre.headers['access-control-allow-origin'], undefined)
    const real = await app.inject({ url: '/data', headers: { origin: APP_ORIGIN } })
    t.equal(real.headers['access-control-allow-origin'], APP_ORIGIN)
    t.equal(real.headers['access-control-allow-credentials'], 'true')
    t.same(seen, [APP_ORIGIN], 'the function is not asked about null')
    // Without credentials the function decides about null as about any origin.
    const open = with_cors(t, { origins: (o) => o === 'null' })
    t.equal(
      (await open.app.inject({ url: '/data', headers: { origin: 'null' } })).headers['access-control-allow-origin'],
      'null',
    )
  })

  t.test('matches a one-label wildcard, never a suffix trick, null or another case', async (t) => {
    const { app } = build(t, [adapt_ctx(cors({ origins: ['https://*.example.com'] }))])
    const acao = async (origin: string) =>
      (await app.inject({ url: '/data', headers: { origin } })).headers['access-control-allow-origin']
    t.equal(await acao('https://shop.example.com'), 'https://shop.example.com')
    for (const bad of [
      'https://evil.example.com.attacker.net',
      'https://a.b.example.com',
      'https://example.com',
      'http://shop.example.com',
      'https://evilexample.com',
      'null',
      'https://SHOP.example.com',
      'HTTPS://shop.example.com',
      'https://.example.com',
    ]) {
      t.equal(await acao(bad), undefined, bad)
      const pre = await app.inject({
        method: 'OPTIONS',
        url: '/data',
        headers: { origin: bad, 'access-control-request-method': 'GET' },
      })
      t.same([pre.statusCode, pre.json().error], [403, 'cors_forbidden'], `preflight ${bad}`)
    }
  })

  t.test('refuses at creation a wildcard over a public suffix, and takes one over a registrable domain', async (t) => {
    for (const origin of [
      'https://*.com',
      'https://*.co.uk',
      'https://*.github.io',
      'http://*.com:8080',
      'https://*.internal',
    ]) {
      t.throws(
        () => cors({ origins: [APP_ORIGIN, origin] }),
        {
          code: 'FW_ERR_SECURITY_BAD_OPTION',
          message: `cors: origins must be wildcards over a registrable domain, not a public suffix; got ${JSON.stringify(origin)}`,
        },
        origin,
      )
    }
    for (const origin of ['https://*.example.co.uk', 'https://*.fw-demo.github.io', 'https://*.example.com:8443']) {
      t.doesNotThrow(() => cors({ origins: [origin] }), origin)
    }
  })

  t.test('accepts anchored RegExps and a function, and reflects requested headers when asked', async (t) => {
    const seen: string[] = []
    const fn = build(t, [adapt_ctx(cors({ origins: (o) => (seen.push(o), o === 'https://fn.example.com') }))])
    t.equal(
      (await fn.app.inject({ url: '/data', headers: { origin: 'https://fn.example.com' } })).headers[
        'access-control-allow-origin'
      ],
      'https://fn.example.com',
    )
    t.equal(
      (await fn.app.inject({ url: '/data', headers: { origin: 'https://no.example.com' } })).headers[
        'access-control-allow-origin'
      ],
      undefined,
    )
    t.same(seen, ['https://fn.example.com', 'https://no.example.com'])
    const re = build(t, [adapt_ctx(cors({ origins: [/^https:\/\/(a|b)\.example\.com$/], reflect_headers: true }))])
    const pre = await re.app.inject({
      method: 'OPTIONS',
      url: '/data',
      headers: {
        origin: 'https://b.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-trace, content-type',
      },
    })
    t.equal(pre.statusCode, 204)
    t.equal(pre.headers['access-control-allow-headers'], 'x-trace, content-type')
    t.equal(pre.headers.vary, 'Origin, Access-Control-Request-Headers')
    const odd = await re.app.inject({
      method: 'OPTIONS',
      url: '/data',
      headers: {
        origin: 'https://b.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x(y)',
      },
    })
    t.equal(odd.statusCode, 403, 'a requested name that is not a header name is not echoed')
  })

  t.test('anchors a RegExp as a whole: no top-level alternation bypass, no g flag state', async (t) => {
    const alt = build(t, [adapt_ctx(cors({ origins: [/^https:\/\/a\.example\.com|https:\/\/b\.example\.com$/] }))])
    const acao = async (app: typeof alt.app, origin: string) =>
      (await app.inject({ url: '/data', headers: { origin } })).headers['access-control-allow-origin']
    t.equal(await acao(alt.app, 'https://a.example.com'), 'https://a.example.com')
    t.equal(await acao(alt.app, 'https://b.example.com'), 'https://b.example.com')
    for (const bad of ['https://a.example.com.evil.net', 'https://evil.net#https://b.example.com']) {
      t.equal(await acao(alt.app, bad), undefined, bad)
      const pre = await alt.app.inject(preflight(bad))
      t.equal(pre.statusCode, 403, `preflight ${bad}`)
    }
    const global = build(t, [adapt_ctx(cors({ origins: [/^https:\/\/a\.example\.com$/g] }))])
    for (let i = 0; i < 3; i++) t.equal(await acao(global.app, 'https://a.example.com'), 'https://a.example.com')
  })

  t.test('throws at creation for origins that are not exact', async (t) => {
    for (const origin of [
      'http://localhost:5173/',
      'localhost:5173',
      'https://*example.com',
      '*.example.com',
      'https://a.*.example.com',
      'https://*.example.com/x',
      'http://example.com/path',
      'HTTP://EXAMPLE.COM',
      'file:///tmp/x',
      42,
    ]) {
      t.throws(
        () => cors({ origins: [origin as string] }),
        {
          code: 'FW_ERR_CORS_BAD_ORIGIN',
          message: `cors: ${JSON.stringify(origin)} is not an exact origin (scheme://host[:port] without a path), a one-label wildcard (https://*.example.com), an anchored RegExp, "null", or "*" alone`,
        },
        String(origin),
      )
    }
    t.throws(
      () => cors({ origins: [/https:\/\/app\.example\.com/] }),
      { code: 'FW_ERR_CORS_BAD_ORIGIN' },
      'an unanchored RegExp',
    )
    t.throws(() => cors({ origins: ['*', APP_ORIGIN] }), { code: 'FW_ERR_CORS_BAD_ORIGIN' })
  })

  t.test('refuses at creation a "*" in headers or methods, which the allow-list would never match', async (t) => {
    // A `*` entry would only match a header or method named `*`: `headers: ['*']` advertised
    // `Access-Control-Allow-Headers: *` yet refused `x-foo` with 403, and `methods: ['*']` refused every preflight.
    for (const option of ['headers', 'methods'] as const) {
      t.throws(
        () => cors({ origins: [APP_ORIGIN], [option]: ['Content-Type', '*'] }),
        {
          code: 'FW_ERR_SECURITY_BAD_OPTION',
          message: `cors: ${option} must be names, not the wildcard (use reflect_headers for any header); got "*"`,
        },
        option,
      )
    }
  })

  t.test('throws at creation for other bad options', async (t) => {
    t.throws(() => cors({ origins: [] }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'cors: origins must be a non-empty list of origins, or a function; got []',
    })
    t.throws(() => cors({ origins: [APP_ORIGIN], max_age: -1 }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'cors: max_age must be an integer >= 0; got -1',
    })
    t.throws(() => cors({ origins: [APP_ORIGIN], methods: ['GE T'] }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'cors: methods must be an HTTP token; got "GE T"',
    })
    t.throws(() => cors({ origins: [APP_ORIGIN], headers: ['x\r\ny'] }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
    t.throws(() => cors({ origins: [APP_ORIGIN], allow_credentials: 'yes' as unknown as boolean }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'cors: allow_credentials must be a boolean; got "yes"',
    })
  })
})
