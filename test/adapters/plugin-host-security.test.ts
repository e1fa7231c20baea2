import cors_plugin from '@fastify/cors'
import helmet from '@fastify/helmet'
import Fastify, { type LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'
import { adapt_ctx } from '../../lib/compose.js'
import { cors } from '../../lib/middleware/security/cors.js'
import { DEFAULT_CSP, PERMISSIONS_POLICY, security_headers } from '../../lib/middleware/security/headers.js'
import { capture_log } from '../helpers/log.js'

/** The status and the CORS headers of an answer, exactly. */
function cors_of(r: LightMyRequestResponse): [number, Record<string, unknown>] {
  const headers = Object.entries(r.headers).filter(([k]) => k.startsWith('access-control-') || k === 'vary')
  return [r.statusCode, Object.fromEntries(headers)]
}

const FW_ORIGIN = 'https://fw.example'
const HOST_ORIGIN = 'https://host.example'

t.test("a host's @fastify/cors and fw's cors: one policy per route, preflights and answers alike", async (t) => {
  const app = new App({ access_log: false })
  app.use('/api', adapt_ctx(cors({ origins: [FW_ORIGIN], methods: ['GET', 'PUT'], max_age: 60 })))
  app.get('/api/items', (_req, res) => void res.json('ok', true))
  app.put('/api/items', (_req, res) => void res.json('ok', true))
  app.get('/open', (_req, res) => void res.json('ok', true))
  app.use('/v/special', adapt_ctx(cors({ origins: [FW_ORIGIN], methods: ['GET'] })))
  app.get('/v/{name}', (_req, res) => void res.json('ok', true))

  const host = Fastify()
  await host.register(cors_plugin, { origin: [HOST_ORIGIN], methods: ['GET', 'POST'], maxAge: 30 })
  host.get('/legacy', async () => ({ legacy: true }))
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())

  const preflight = (url: string, origin: string, method = 'PUT') =>
    host.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method } })
  const get = (url: string, origin: string) => host.inject({ method: 'GET', url, headers: { origin } })

  t.test("fw's routes behind fw's cors follow fw's policy only", async (t) => {
    t.same(cors_of(await preflight('/fw/api/items', FW_ORIGIN)), [
      204,
      {
        vary: 'Origin',
        'access-control-allow-origin': FW_ORIGIN,
        'access-control-allow-methods': 'GET, PUT',
        'access-control-max-age': '60',
        'access-control-allow-headers': 'Content-Type, Authorization',
      },
    ])
    const refused = await preflight('/fw/api/items', HOST_ORIGIN)
    t.same(cors_of(refused), [403, { vary: 'Origin' }])
    t.same(refused.json(), { ok: false, error: 'cors_forbidden', message: 'CORS origin not allowed' })
    t.same(cors_of(await get('/fw/api/items', FW_ORIGIN)), [
      200,
      { vary: 'Origin', 'access-control-allow-origin': FW_ORIGIN },
    ])
    t.same(cors_of(await get('/fw/api/items', HOST_ORIGIN)), [200, { vary: 'Origin' }])
  })

  t.test("fw's cors decided per request (a prefix over a path parameter) still keeps the host's off", async (t) => {
    t.same(cors_of(await preflight('/fw/v/special', FW_ORIGIN, 'GET')), [
      204,
      {
        vary: 'Origin',
        'access-control-allow-origin': FW_ORIGIN,
        'access-control-allow-methods': 'GET',
        'access-control-max-age': '600',
        'access-control-allow-headers': 'Content-Type, Authorization',
      },
    ])
    t.same(cors_of(await get('/fw/v/special', HOST_ORIGIN)), [200, { vary: 'Origin' }])
  })

  t.test("fw's routes without fw's cors, and the host's own, follow the host's policy", async (t) => {
    for (const url of ['/fw/open', '/legacy']) {
      t.same(
        cors_of(await preflight(url, HOST_ORIGIN, 'POST')),
        [
          204,
          {
            vary: 'Origin, Access-Control-Request-Headers',
            'access-control-allow-origin': HOST_ORIGIN,
            'access-control-allow-methods': 'GET, POST',
            'access-control-max-age': '30',
          },
        ],
        url,
      )
      t.same(
        cors_of(await get(url, HOST_ORIGIN)),
        [200, { vary: 'Origin', 'access-control-allow-origin': HOST_ORIGIN }],
        url,
      )
      t.same(cors_of(await get(url, FW_ORIGIN)), [200, { vary: 'Origin' }], url)
    }
  })
})

t.test("a host's @fastify/helmet and fw's security_headers: fw's win on its routes, with one warning", async (t) => {
  const out = capture_log(t, 'kv', 'info')
  const app = new App({ access_log: false })
  app.use('/pages', adapt_ctx(security_headers()))
  app.get('/pages/home', (_req, res) => void res.text('home'))
  app.get('/plain', (_req, res) => void res.text('plain'))

  const host = Fastify()
  await host.register(helmet)
  host.get('/legacy', async () => 'legacy')
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())

  const framing = async (url: string) => {
    const r = await host.inject(url)
    return [r.statusCode, r.headers['x-frame-options'], r.headers['permissions-policy']]
  }
  t.same(await framing('/fw/plain'), [200, 'SAMEORIGIN', undefined], "no fw security_headers: the host's")
  t.same(await framing('/legacy'), [200, 'SAMEORIGIN', undefined], "the host's own route")
  t.same(out.lines(), [], 'nothing replaced yet')
  t.same(await framing('/fw/pages/home'), [200, 'DENY', PERMISSIONS_POLICY], "fw's win on its routes")
  t.same(await framing('/fw/pages/home'), [200, 'DENY', PERMISSIONS_POLICY])
  t.same(
    out.lines().map((l) => l.slice(l.indexOf(' ') + 1)),
    [
      "[fw] [warning] fw's security_headers replace the host's headers on fw's routes under /fw: " +
        'x-frame-options: DENY (host: SAMEORIGIN); ' +
        // helmet's policy but for its frame-ancestors, which fw's sets to 'none' as its X-Frame-Options says DENY.
        `content-security-policy: ${DEFAULT_CSP} (host: ${DEFAULT_CSP.replace("frame-ancestors 'none'", "frame-ancestors 'self'")}) ` +
        'rid=req-3',
    ],
    'one warning, at the first answer that replaced a value, naming the header and both values',
  )
})
