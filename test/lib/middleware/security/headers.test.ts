import { request } from 'node:https'
import { generate } from 'selfsigned'
import t from 'tap'
import { adapt_ctx, App, middleware, type Middleware } from '../../../../index.js'
import {
  CspNonce,
  DEFAULT_CSP,
  PERMISSIONS_POLICY,
  security_headers,
} from '../../../../lib/middleware/security/headers.js'
import { build } from './build.js'

/** helmet's default policy, but for `frame-ancestors`: `'none'`, as `X-Frame-Options: DENY` says. */
const DEFAULT_POLICY =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'none';img-src 'self' data:;" +
  "object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"
const PROXIED = { 'x-forwarded-proto': 'https' }

/** GET `path` over HTTPS from the App on `port`, trusting `ca`; resolves with the response headers. */
function get_tls(port: number, ca: string, path: string): Promise<{ headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, ca, checkServerIdentity: () => undefined, agent: false },
      (res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () => resolve({ headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

const DEFAULTS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'permissions-policy': PERMISSIONS_POLICY,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
}

function pick(headers: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((n) => [n, headers[n]]))
}

const NAMES = [...Object.keys(DEFAULTS), 'strict-transport-security', 'content-security-policy']

t.test('security_headers', async (t) => {
  t.test("sets the defaults with helmet's CSP, framing refused, and no HSTS over plain HTTP", async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers())])
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 200)
    t.equal(DEFAULT_CSP, DEFAULT_POLICY)
    t.same(pick(r.headers, NAMES), {
      ...DEFAULTS,
      'strict-transport-security': undefined,
      'content-security-policy': DEFAULT_POLICY,
    })
    t.match(PERMISSIONS_POLICY, /camera=\(\)/)
    t.match(PERMISSIONS_POLICY, /microphone=\(\)/)
    t.match(PERMISSIONS_POLICY, /geolocation=\(\)/)
    // Both defaults are public, as docs/security.md names them: a policy is built by extending them.
    t.equal(middleware.security.DEFAULT_CSP, DEFAULT_POLICY)
    t.equal(middleware.security.PERMISSIONS_POLICY, PERMISSIONS_POLICY)
    // A browser that reads CSP obeys its frame-ancestors over X-Frame-Options: both must refuse every framer.
    const ancestors = String(r.headers['content-security-policy'])
      .split(';')
      .find((d) => d.startsWith('frame-ancestors'))
    t.same([ancestors, r.headers['x-frame-options']], ["frame-ancestors 'none'", 'DENY'])
  })

  t.test('sets them on errors of later middleware, on 404s and on handler failures', async (t) => {
    const deny: Middleware = (req, res, next) =>
      req.path() === '/data' && req.method() === 'POST' ? void res.error(403, 'forbidden', 'no') : next()
    const { app } = build(t, [adapt_ctx(security_headers()), deny])
    app.get('/boom', () => {
      throw new Error('boom')
    })
    for (const [method, url, status] of [
      ['POST', '/data', 403],
      ['GET', '/missing', 404],
      ['GET', '/boom', 500],
    ] as const) {
      const r = await app.inject({ method, url })
      t.equal(r.statusCode, status, url)
      t.same(pick(r.headers, Object.keys(DEFAULTS)), DEFAULTS, url)
    }
  })

  t.test('sends HSTS over HTTPS: the default, its settings, or none with hsts false', async (t) => {
    const trusted = { trust_proxy: ['10.0.0.0/8'] }
    const via_proxy = { url: '/data', headers: PROXIED, remoteAddress: '10.0.0.5' }
    const cases = [
      [{}, 'max-age=15552000; includeSubDomains'],
      [{ hsts: true }, 'max-age=15552000; includeSubDomains'],
      [{ hsts: { max_age: 63072000, preload: true } }, 'max-age=63072000; includeSubDomains; preload'],
      [{ hsts: { max_age: 300, include_subdomains: false } }, 'max-age=300'],
      [{ hsts: false }, undefined],
      [{ overrides: { 'Strict-Transport-Security': 'max-age=60' } }, 'max-age=60'],
    ] as const
    for (const [options, expected] of cases) {
      const { app } = build(t, [adapt_ctx(security_headers(options))], trusted)
      t.equal((await app.inject(via_proxy)).headers['strict-transport-security'], expected, JSON.stringify(options))
    }
  })

  t.test("sends HSTS only when the request came over HTTPS, never on a client's own X-Forwarded-Proto", async (t) => {
    const seen: string[] = []
    const protocol: Middleware = (req, _res, next) => (seen.push(req.protocol()), next())
    const { app } = build(t, [adapt_ctx(security_headers()), protocol], { trust_proxy: ['10.0.0.0/8'] })
    const hsts = async (remoteAddress: string, headers: Record<string, string>) =>
      (await app.inject({ url: '/data', remoteAddress, headers })).headers['strict-transport-security']
    t.equal(await hsts('10.0.0.5', {}), undefined, 'plain HTTP from the proxy')
    t.equal(await hsts('10.0.0.5', PROXIED), 'max-age=15552000; includeSubDomains', 'the trusted proxy terminated TLS')
    t.equal(await hsts('10.0.0.5', { 'x-forwarded-proto': 'HTTPS' }), 'max-age=15552000; includeSubDomains', 'any case')
    t.equal(
      await hsts('10.0.0.5', { 'x-forwarded-proto': 'https, http' }),
      undefined,
      'the nearest proxy saw plain HTTP',
    )
    t.equal(await hsts('203.0.113.9', PROXIED), undefined, 'an untrusted client claiming HTTPS')
    t.same(seen, ['http', 'https', 'https', 'http', 'http'])
    const { app: open } = build(t, [adapt_ctx(security_headers())])
    const r = await open.inject({ url: '/data', headers: PROXIED })
    t.equal(r.headers['strict-transport-security'], undefined, 'no trust_proxy: the header counts for nothing')
  })

  t.test('sends HSTS when the App itself serves HTTPS', async (t) => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 })
    const app = new App({ https: { key: pems.private, cert: pems.cert }, access_log: false })
    app.use(adapt_ctx(security_headers()))
    app.get('/p', (req, res) => void res.text(req.protocol()))
    t.teardown(() => app.close())
    const r = await get_tls(await app.listen(0), pems.cert, '/p')
    t.equal(r.body, 'https')
    t.equal(r.headers['strict-transport-security'], 'max-age=15552000; includeSubDomains')
    t.equal(r.headers['content-security-policy'], DEFAULT_POLICY)
  })

  t.test('adds a CSP and replaces the Permissions-Policy when given', async (t) => {
    const csp = "default-src 'self'; frame-ancestors 'none'"
    const { app } = build(t, [adapt_ctx(security_headers({ csp, permissions_policy: 'camera=(self)' }))])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['content-security-policy'], csp)
    t.equal(r.headers['permissions-policy'], 'camera=(self)')
    const { app: none } = build(t, [adapt_ctx(security_headers({ csp: false }))])
    t.equal((await none.inject({ url: '/data' })).headers['content-security-policy'], undefined)
  })

  t.test('changes or drops any header through overrides', async (t) => {
    const { app } = build(t, [
      adapt_ctx(
        security_headers({ overrides: { 'Cross-Origin-Resource-Policy': 'cross-origin', 'x-frame-options': false } }),
      ),
    ])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['cross-origin-resource-policy'], 'cross-origin')
    t.equal(r.headers['x-frame-options'], undefined)
    t.equal(r.headers['x-download-options'], 'noopen')
    t.throws(() => security_headers({ overrides: { 'X-A': 'a\r\nb' } }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
  })

  t.test('adds a fresh CSP nonce per request, available to handlers', async (t) => {
    const { app } = build(t, [
      adapt_ctx(security_headers({ csp: "default-src 'self'; style-src 'self'", csp_nonce: true })),
    ])
    app.get('/page', (req, res) => void res.text(req.state(CspNonce)!.value))
    const a = await app.inject({ url: '/page' })
    const b = await app.inject({ url: '/page' })
    t.not(a.body, b.body)
    t.match(a.body, /^[A-Za-z0-9+/]{22}==$/)
    t.equal(
      a.headers['content-security-policy'],
      `default-src 'self'; style-src 'self' 'nonce-${a.body}'; script-src 'self' 'nonce-${a.body}'`,
    )
    t.throws(() => security_headers({ csp: false, csp_nonce: true }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'security_headers: csp_nonce must be used with a csp; got true',
    })
  })

  t.test('adds no script-src or style-src of the nonce alone to a policy that restricted neither', async (t) => {
    const { app } = build(t, [
      adapt_ctx(security_headers({ csp: "frame-ancestors 'none'; script-src 'self'", csp_nonce: true })),
    ])
    app.get('/page', (req, res) => void res.text(req.state(CspNonce)!.value))
    const r = await app.inject({ url: '/page' })
    t.equal(
      r.headers['content-security-policy'],
      `frame-ancestors 'none'; script-src 'self' 'nonce-${r.body}'`,
      'scripts were restricted and take the nonce; stylesheets were not, and stay so',
    )
  })

  t.test('adds the nonce to script-src-elem and style-src-elem too (CSP3: checked first for elements)', async (t) => {
    const csp =
      "default-src 'self'; script-src 'self'; script-src-elem 'self' https://cdn.example; Style-Src-Elem 'self'; " +
      "script-src-attr 'none'"
    const { app } = build(t, [adapt_ctx(security_headers({ csp, csp_nonce: true }))])
    app.get('/page', (req, res) => void res.text(req.state(CspNonce)!.value))
    const r = await app.inject({ url: '/page' })
    const n = `'nonce-${r.body}'`
    t.equal(
      r.headers['content-security-policy'],
      `default-src 'self'; script-src 'self' ${n}; script-src-elem 'self' https://cdn.example ${n}; ` +
        `Style-Src-Elem 'self' ${n}; script-src-attr 'none'; style-src 'self' ${n}`,
      'a nonce on an attribute directive would mean nothing, and -elem directives absent fall back to the nonced ones',
    )
    const only_elem = build(t, [
      adapt_ctx(security_headers({ csp: "script-src-elem 'self';object-src 'none'", csp_nonce: true })),
    ]).app
    only_elem.get('/page', (req, res) => void res.text(req.state(CspNonce)!.value))
    const o = await only_elem.inject({ url: '/page' })
    t.equal(o.headers['content-security-policy'], `script-src-elem 'self' 'nonce-${o.body}';object-src 'none'`)
  })

  t.test('merges the nonce into the default CSP', async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers({ csp_nonce: true }))])
    app.get('/page', (req, res) => void res.text(req.state(CspNonce)!.value))
    const r = await app.inject({ url: '/page' })
    t.equal(
      r.headers['content-security-policy'],
      DEFAULT_POLICY.replace("script-src 'self';", `script-src 'self' 'nonce-${r.body}';`).replace(
        "'unsafe-inline';",
        `'unsafe-inline' 'nonce-${r.body}';`,
      ),
    )
  })

  t.test('throws at creation for bad options', async (t) => {
    t.throws(() => security_headers({ csp: "default-src 'self'\r\nSet-Cookie: a=b" }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: `security_headers: csp must be a non-empty header value without CR, LF or another control byte but tab, or a character above U+00FF; got ${JSON.stringify("default-src 'self'\r\nSet-Cookie: a=b")}`,
    })
    t.throws(() => security_headers({ permissions_policy: '' }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
    t.throws(() => security_headers({ hsts: { max_age: -5 } }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'security_headers: hsts.max_age must be an integer >= 0; got -5',
    })
    // `hsts: 0` or `'no'` must not turn HSTS on (browsers then pin the host to HTTPS for 180 days), nor `null` throw a
    // TypeError without the option's name.
    for (const hsts of [0, 1, 'no', null, []]) {
      t.throws(
        () => security_headers({ hsts: hsts as unknown as boolean }),
        {
          code: 'FW_ERR_SECURITY_BAD_OPTION',
          message: `security_headers: hsts must be a boolean or an object of settings; got ${JSON.stringify(hsts)}`,
        },
        JSON.stringify(hsts),
      )
    }
    t.throws(() => security_headers({ hsts: { preload: true } }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message:
        'security_headers: hsts.preload must be used with max_age >= 31536000 and include_subdomains; got an object',
    })
  })
})
