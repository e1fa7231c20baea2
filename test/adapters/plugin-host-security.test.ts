import cors_plugin from '@fastify/cors'
import Fastify, { type LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'
import { adapt_ctx } from '../../lib/compose.js'
import { cors } from '../../lib/middleware/security/cors.js'

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
