import t from 'tap'
import { adapt_ctx, type Middleware } from '../../../../index.js'
import { CspNonce, PERMISSIONS_POLICY, security_headers } from '../../../../lib/middleware/security/headers.js'
import { build } from './build.js'

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
  t.test('sets the defaults and no HSTS or CSP', async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers())])
    const r = await app.inject({ url: '/data' })
    t.equal(r.statusCode, 200)
    t.same(pick(r.headers, NAMES), { ...DEFAULTS, 'strict-transport-security': undefined, 'content-security-policy': undefined })
    t.match(PERMISSIONS_POLICY, /camera=\(\)/)
    t.match(PERMISSIONS_POLICY, /microphone=\(\)/)
    t.match(PERMISSIONS_POLICY, /geolocation=\(\)/)
  })

  t.test('sets them on errors of later middleware, on 404s and on handler failures', async (t) => {
    const deny: Middleware = (req, res, next) => (req.path() === '/data' && req.method() === 'POST' ? void res.error(403, 'forbidden', 'no') : next())
    const { app } = build(t, [adapt_ctx(security_headers()), deny])
    app.get('/boom', () => {
      throw new Error('boom')
    })
    for (const [method, url, status] of [['POST', '/data', 403], ['GET', '/missing', 404], ['GET', '/boom', 500]] as const) {
      const r = await app.inject({ method, url })
      t.equal(r.statusCode, status, url)
      t.same(pick(r.headers, Object.keys(DEFAULTS)), DEFAULTS, url)
    }
  })

  t.test('adds HSTS with the defaults when asked', async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers({ hsts: true }))])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['strict-transport-security'], 'max-age=15552000; includeSubDomains')
  })

  t.test('adds HSTS with its settings', async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers({ hsts: { max_age: 63072000, preload: true } }))])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['strict-transport-security'], 'max-age=63072000; includeSubDomains; preload')
    const { app: app2 } = build(t, [adapt_ctx(security_headers({ hsts: { max_age: 300, include_subdomains: false } }))])
    t.equal((await app2.inject({ url: '/data' })).headers['strict-transport-security'], 'max-age=300')
  })

  t.test('adds a CSP and replaces the Permissions-Policy when given', async (t) => {
    const csp = "default-src 'self'; frame-ancestors 'none'"
    const { app } = build(t, [adapt_ctx(security_headers({ csp, permissions_policy: 'camera=(self)' }))])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['content-security-policy'], csp)
    t.equal(r.headers['permissions-policy'], 'camera=(self)')
  })

  t.test('changes or drops any header through overrides', async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers({ overrides: { 'Cross-Origin-Resource-Policy': 'cross-origin', 'x-frame-options': false } }))])
    const r = await app.inject({ url: '/data' })
    t.equal(r.headers['cross-origin-resource-policy'], 'cross-origin')
    t.equal(r.headers['x-frame-options'], undefined)
    t.equal(r.headers['x-download-options'], 'noopen')
    t.throws(() => security_headers({ overrides: { 'X-A': 'a\r\nb' } }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
  })

  t.test('adds a fresh CSP nonce per request, available to handlers', async (t) => {
    const { app } = build(t, [adapt_ctx(security_headers({ csp: "default-src 'self'; style-src 'self'", csp_nonce: true }))])
    app.get('/page', (req, res) => void res.text(req.state(CspNonce)!.value))
    const a = await app.inject({ url: '/page' })
    const b = await app.inject({ url: '/page' })
    t.not(a.body, b.body)
    t.match(a.body, /^[A-Za-z0-9+/]{22}==$/)
    t.equal(a.headers['content-security-policy'], `default-src 'self'; style-src 'self' 'nonce-${a.body}'; script-src 'self' 'nonce-${a.body}'`)
    t.throws(() => security_headers({ csp_nonce: true }), { code: 'FW_ERR_SECURITY_BAD_OPTION', message: /csp_nonce must be used with a csp/ })
  })

  t.test('throws at creation for bad options', async (t) => {
    t.throws(() => security_headers({ csp: "default-src 'self'\r\nSet-Cookie: a=b" }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: `security_headers: csp must be a non-empty header value without CR, LF or NUL; got ${JSON.stringify("default-src 'self'\r\nSet-Cookie: a=b")}`,
    })
    t.throws(() => security_headers({ permissions_policy: '' }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
    t.throws(() => security_headers({ hsts: { max_age: -5 } }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'security_headers: hsts.max_age must be an integer >= 0; got -5',
    })
    t.throws(() => security_headers({ hsts: { preload: true } }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'security_headers: hsts.preload must be used with max_age >= 31536000 and include_subdomains; got an object',
    })
  })
})
