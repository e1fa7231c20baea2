import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyServerOptions } from 'fastify'
import t from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'
import { heap_monitor } from '../helpers/load.js'
import { capture_log } from '../helpers/log.js'
import { send } from '../helpers/http.js'
import { multipart_body, MULTIPART_HEADERS } from '../helpers/multipart.js'

declare module 'fastify' {
  interface FastifyInstance {
    host_name: string
  }
}

t.test('fw_plugin', async (t) => {
  const closed: string[] = []
  const app = new App({ access_log: false })
  app.use(async (_req, res, next) => {
    res.header('x-fw', 'global')
    await next()
  })
  app.use('/admin', async (_req, res, next) => {
    res.header('x-fw-admin', '1')
    await next()
  })
  app.get(
    '/hello',
    (req, res) =>
      void res.json(
        'ok',
        true,
        'path',
        req.path(),
        'host_name',
        (req.raw as unknown as { server: { host_name: string } }).server.host_name,
      ),
  )
  app.get('/admin/{id}', (req, res) => void res.json('id', req.param('id')))
  app.post('/echo', (req, res) => void res.json('body', req.body(), 'is_object', req.json().is_object()))
  app.get('/boom', () => {
    throw new Error('fw boom')
  })
  app.on_close(() => void closed.push('fw'))

  const host = Fastify()
  host.decorate('host_name', 'the host')
  host.addHook('onRequest', async (_req, reply) => void reply.header('x-host-hook', '1'))
  host.get('/legacy', async () => ({ legacy: true }))
  host.post('/legacy', async (req) => ({ got: req.body }))
  host.get('/admin/x', async () => ({ host_admin: true }))
  host.get('/host-boom', async () => {
    throw new Error('host boom')
  })
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())

  const inject = (method: 'GET' | 'POST', url: string, payload?: string) =>
    host.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }),
    })

  t.test('answers fw routes under the prefix with fw middleware, the host hook and the host decorators', async (t) => {
    const r = await inject('GET', '/fw/hello')
    t.same([r.statusCode, r.headers['x-fw'], r.headers['x-host-hook']], [200, 'global', '1'])
    t.same(r.json(), { ok: true, path: '/fw/hello', host_name: 'the host' })
    t.equal((await inject('GET', '/hello')).statusCode, 404)
  })

  t.test('matches fw prefix middleware on the app own paths, case and encoding included', async (t) => {
    for (const url of ['/fw/admin/7', '/fw/%61dmin/7', '/fw/ADMIN/7', '/FW/admin/7']) {
      const r = await inject('GET', url)
      t.equal(r.headers['x-fw-admin'], url === '/FW/admin/7' ? undefined : '1', url)
    }
    t.same((await inject('GET', '/fw/admin/7')).json(), { id: '7' })
  })

  t.test('keeps fw raw body handling for fw routes', async (t) => {
    const r = await inject('POST', '/fw/echo', '{"a":')
    t.same([r.statusCode, r.json()], [200, { body: '{"a":', is_object: false }])
  })

  t.test('answers fw 404 and 500 bodies under the prefix', async (t) => {
    const nf = await inject('GET', '/fw/nope')
    t.same(
      [nf.statusCode, nf.headers['x-fw'], nf.json()],
      [404, 'global', { ok: false, error: 'not_found', message: 'Route not found' }],
    )
    const boom = await inject('GET', '/fw/boom')
    t.same(
      [boom.statusCode, boom.json()],
      [500, { ok: false, error: 'internal_error', message: 'Internal Server Error' }],
    )
  })

  t.test('leaves the host routes to the host: no fw middleware, parser, 404 or error handler', async (t) => {
    const legacy = await inject('GET', '/legacy')
    t.same(
      [legacy.statusCode, legacy.headers['x-fw'], legacy.headers['x-host-hook'], legacy.json()],
      [200, undefined, '1', { legacy: true }],
    )
    const admin = await inject('GET', '/admin/x')
    t.same([admin.headers['x-fw-admin'], admin.json()], [undefined, { host_admin: true }])
    t.same((await inject('POST', '/legacy', '{"a":1}')).json(), { got: { a: 1 } })
    const bad = await inject('POST', '/legacy', '{"a":')
    t.same([bad.statusCode, bad.json().code], [400, 'FST_ERR_CTP_INVALID_JSON_BODY'])
    const nf = await inject('GET', '/nope')
    t.same(
      [nf.statusCode, nf.headers['x-fw'], nf.json()],
      [404, undefined, { message: 'Route GET:/nope not found', error: 'Not Found', statusCode: 404 }],
    )
    const boom = await inject('GET', '/host-boom')
    t.same(
      [boom.statusCode, boom.json()],
      [500, { statusCode: 500, error: 'Internal Server Error', message: 'host boom' }],
    )
  })

  t.test('runs the app on_close hooks when the host closes', async (t) => {
    await host.close()
    t.same(closed, ['fw'])
  })
})

t.test('fw_plugin settings in a host', async (t) => {
  const log = capture_log(t)
  const app = new App({ body_limit: 200, trust_proxy: true, request_id: true, access_log: 'info' })
  app.post('/len', (req, res) => res.json('bytes', req.bytes().length, 'ip', req.ip()))
  app.post('/form', (req, res) => res.json('form', req.form()))
  app.post('/files', async (req, res) =>
    res.json(
      'files',
      (await req.multipart().save()).files.map((f) => f.size),
    ),
  )
  app.get('/boom', () => {
    throw new Error('fw boom')
  })
  const host = Fastify({ bodyLimit: 10, trustProxy: false, genReqId: () => 'host-id' })
  host.post('/host-len', async (req) => ({ got: req.body }))
  host.setErrorHandler(async (err: { statusCode?: number }, _req, reply) =>
    reply.code(err.statusCode ?? 500).send({ host_handler: true }),
  )
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())
  const post = (
    url: string,
    payload: string | Buffer,
    type = 'application/octet-stream',
    headers: Record<string, string> = {},
  ) => host.inject({ method: 'POST', url, payload, headers: { 'content-type': type, ...headers } })

  t.test("the host's parsers stay on its own routes; fw's readers serve fw's", async (t) => {
    t.same((await post('/host-len', '{"a":1}', 'application/json')).json(), { got: { a: 1 } })
    t.same((await post('/fw/form', 'a=1&a=2', 'application/x-www-form-urlencoded')).json(), { form: { a: ['1', '2'] } })
    const mp = multipart_body([{ name: 'f', filename: 'a', content: 'abc' }])
    t.same((await post('/fw/files', mp, MULTIPART_HEADERS['content-type'])).json(), { files: [3] })
  })

  t.test("body limit: fw's body_limit governs fw routes, the host's bodyLimit the host's", async (t) => {
    t.same((await post('/fw/len', Buffer.alloc(150))).json().bytes, 150)
    const fw_big = await post('/fw/len', Buffer.alloc(201))
    t.same([fw_big.statusCode, fw_big.json().error], [413, 'payload_too_large'])
    const host_big = await post('/host-len', '{"a":12345}', 'application/json')
    t.same([host_big.statusCode, host_big.json()], [413, { host_handler: true }])
  })

  t.test("trust proxy: the host's trustProxy decides X-Forwarded-For; fw's trust_proxy adds X-Real-IP", async (t) => {
    t.equal((await post('/fw/len', 'x', undefined, { 'x-forwarded-for': '203.0.113.9' })).json().ip, '127.0.0.1')
    t.equal((await post('/fw/len', 'x', undefined, { 'x-real-ip': '203.0.113.7' })).json().ip, '203.0.113.7')
  })

  t.test("request id: the host's genReqId makes the id, fw's request_id echoes it", async (t) => {
    t.equal((await host.inject({ url: '/fw/boom' })).headers['x-request-id'], 'host-id')
  })

  t.test("error handler: fw's answers fw routes in its shape", async (t) => {
    const r = await host.inject({ url: '/fw/boom' })
    t.same([r.statusCode, r.json().error], [500, 'internal_error'])
  })

  t.test('access log: fw writes its line for fw routes only', async (t) => {
    await post('/fw/len', 'x')
    await post('/host-len', '{}', 'application/json')
    t.match(log.text(), /request .*path=\/fw\/len/)
    t.notMatch(log.text(), /path=\/host-len/)
  })
})

t.test('fw_plugin request ids', async (t) => {
  const app = new App({ access_log: false })
  app.get('/items/{id}', (req, res) => void res.json('id', req.param('id')))
  const mounted = async (options: FastifyServerOptions) => {
    const host = Fastify(options)
    host.get('/host', async () => ({ host: true }))
    await host.register(fw_plugin, { app, prefix: '/fw' })
    t.teardown(() => host.close())
    return host
  }
  const id_of = async (host: Awaited<ReturnType<typeof mounted>>, url: string, rid?: string) =>
    (await host.inject({ url, headers: rid === undefined ? {} : { 'x-request-id': rid } })).headers['x-request-id']

  t.test("keeps a well-formed incoming x-request-id under the host's default settings, as standalone", async (t) => {
    const host = await mounted({})
    t.equal(await id_of(host, '/fw/items/1', 'test-1'), 'test-1')
    t.equal(
      (await app.inject({ url: '/items/1', headers: { 'x-request-id': 'test-1' } })).headers['x-request-id'],
      'test-1',
    )
    t.equal(await id_of(host, '/fw/nope', 'test-2'), 'test-2', 'on fw 404s too')
    t.match(await id_of(host, '/fw/items/1'), /^req-\d+$/, "without one, the host's id")
  })

  t.test('keeps it whatever header the host reads its ids from', async (t) => {
    const host = await mounted({ requestIdHeader: 'x-correlation-id' })
    const r = await host.inject({
      url: '/fw/items/1',
      headers: { 'x-request-id': 'test-3', 'x-correlation-id': 'c-1' },
    })
    t.equal(r.headers['x-request-id'], 'test-3')
    const host_id = await host.inject({ url: '/fw/items/1', headers: { 'x-correlation-id': 'c-1' } })
    t.equal(host_id.headers['x-request-id'], 'c-1', "without one, the host's id")
  })

  t.test('draws an id of its own for a malformed one the host took from x-request-id', async (t) => {
    const host = await mounted({ requestIdHeader: 'x-request-id' })
    const id = await id_of(host, '/fw/items/1', 'bad id with spaces')
    t.not(id, 'bad id with spaces')
    t.match(id, /^[0-9a-f-]{36}$/, 'a UUID, as the standalone App draws')
  })
})

t.test('fw_plugin paths', async (t) => {
  const app = new App({ access_log: false })
  app.get('/items/{id}', (req, res) => void res.json('id', req.param('id'), 'path', req.path()))
  app.post('/items', (req, res) => void res.json('body', req.body()))
  app.openapi({ info: { title: 'Paths', version: '1.0.0' } })
  const host = Fastify()
  host.get('/host/x', async () => ({ host: true }))
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())
  await app.ready()

  const cases: Array<[string, string?]> = [
    ['/items/1/'],
    ['//items/1'],
    ['/items//1/'],
    ['/docs/'],
    ['/docs'],
    ['/items/', 'POST'],
  ]
  t.test('answers a trailing or doubled slash embedded as standalone', async (t) => {
    for (const [path, method = 'GET'] of cases) {
      const body = method === 'POST' ? { payload: 'x=1' } : {}
      const alone = await app.inject({ method: method as 'GET', url: path, ...body })
      const embedded = await host.inject({ method: method as 'GET', url: `/fw${path}`, ...body })
      t.equal(alone.statusCode, 200, `standalone ${method} ${path}`)
      t.equal(embedded.statusCode, 200, `embedded ${method} /fw${path}`)
      if (method === 'POST') t.same(embedded.json(), alone.json(), `same body for ${method} ${path}`)
      else if (path.startsWith('/items')) t.same(embedded.json().id, alone.json().id, `same id for ${path}`)
    }
    t.same((await host.inject('/fw/items/1/?q=1')).json(), { id: '1', path: '/fw/items/1/' }, 'req.path() as sent')
  })

  t.test("leaves the host's own paths and fw's true 404s alone", async (t) => {
    t.equal((await host.inject('/host/x/')).statusCode, 404)
    const nope = await host.inject('/fw/nope/')
    t.same([nope.statusCode, nope.json().error], [404, 'not_found'])
  })
})

t.test('fw_plugin runs prefix middleware on parameter routes reached with dot segments', async (t) => {
  const app = new App({ access_log: false })
  app.use('/admin', (_req, res) => void res.error(401, 'missing_api_key', 'API key required'))
  app.get('/{section}/{page}', (req, res) => void res.json('section', req.param('section'), 'page', req.param('page')))
  const host = Fastify()
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())
  await host.listen({ port: 0, host: '127.0.0.1' })
  const port = (host.server.address() as AddressInfo).port
  // On the wire as written (an inject URL would be resolved first): the router gives section `admin`, page `..`.
  for (const path of ['/fw/admin/..', '/fw/ADMIN/%2e%2e', '/fw/admin/x']) {
    const r = await send(port, { path })
    t.same(
      [r.status, JSON.parse(r.body)],
      [401, { ok: false, error: 'missing_api_key', message: 'API key required' }],
      path,
    )
  }
  const open = await send(port, { path: '/fw/users/..' })
  t.same([open.status, JSON.parse(open.body)], [200, { section: 'users', page: '..' }], 'other sections stay open')
})

t.test('fw_plugin: one App mounted under two prefixes runs its prefix middleware under each', async (t) => {
  const app = new App({ access_log: false })
  app.use('/admin', (_req, res) => void res.error(401, 'unauthorized', 'Sign in'))
  app.get('/admin/{page}', (_req, res) => void res.text('admin page'))
  app.get('/{section}/x', (req, res) => void res.text(`section ${req.param('section')}`))
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(fw_plugin, { app, prefix: '/a' })
  await host.register(fw_plugin, { app, prefix: '/b' })
  for (const mount of ['/a', '/b']) {
    const answer = async (url: string) => {
      const r = await host.inject({ url: mount + url })
      return [r.statusCode, r.body]
    }
    const refused = [401, '{"ok":false,"error":"unauthorized","message":"Sign in"}']
    t.same(await answer('/admin/p'), refused, `${mount}: a route under the prefix`)
    // No route matches: the not-found chain decides the prefix per request, against the mount it came through.
    t.same(await answer('/admin/zz/q'), refused, `${mount}: an unknown path under the prefix`)
    t.same(await answer('/admin/x'), refused, `${mount}: a parameter route matched at the prefix`)
    t.same(await answer('/docs/x'), [200, 'section docs'], `${mount}: a route outside it`)
  }
})

/** The value of one series in Prometheus text, or undefined. */
function series(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

t.test("fw_plugin: app.metrics() counts fw's requests in the host, under the prefixed template", async (t) => {
  const app = new App({ access_log: false })
  app.metrics()
  app.get('/users/{id}', (_req, res) => void res.json('ok', true))
  app.post('/upload', (_req, res) => void res.json('ok', true))
  const host = Fastify()
  host.get('/legacy', async () => ({ legacy: true }))
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())

  for (let i = 0; i < 3; i++) t.equal((await host.inject(`/fw/users/${i}?q=${i}`)).statusCode, 200)
  t.equal((await host.inject('/fw/users/9/')).statusCode, 200, 'routed again under its canonical path: counted once')
  t.equal((await host.inject('/fw/nope')).statusCode, 404)
  t.equal((await host.inject('/legacy')).statusCode, 200)
  t.equal((await host.inject('/elsewhere')).statusCode, 404)
  t.equal((await host.inject({ method: 'POST', url: '/fw/upload', payload: 'x'.repeat(2e6) })).statusCode, 413)
  const r = await host.inject('/fw/metrics')
  t.equal(r.statusCode, 200)
  t.equal(series(r.body, 'fw_http_requests_total{method="GET",route="/fw/users/{id}",status="200"}'), 4)
  t.equal(series(r.body, 'fw_http_request_duration_seconds_count{method="GET",route="/fw/users/{id}",status="200"}'), 4)
  t.equal(series(r.body, 'fw_http_requests_total{method="GET",route="(unmatched)",status="404"}'), 1, "fw's 404 only")
  t.equal(series(r.body, 'fw_http_requests_total{method="POST",route="/fw/upload",status="413"}'), 1)
  t.equal(series(r.body, 'fw_http_requests_in_flight'), 1, 'the scrape itself is in flight')
  t.notMatch(r.body, /legacy|elsewhere/, "the host's own routes and 404s are the host's")
  t.equal(r.body.split('\n').filter((l) => l.startsWith('fw_http_requests_total{')).length, 3, 'no other series')
  const again = (await host.inject('/fw/metrics')).body
  t.equal(series(again, 'fw_http_requests_total{method="GET",route="/fw/metrics",status="200"}'), 1, 'the scrape')
  t.equal(series(again, 'fw_http_requests_in_flight'), 1, 'only the scrape')
})

t.test(
  "fw_plugin: app.shed_load() sheds fw's requests in the host, never its health probes nor the host's",
  async (t) => {
    const { monitor, overload } = heap_monitor({ retry_after_s: 7 })
    const app = new App({ access_log: false })
    app.metrics()
    app.shed_load({}, monitor)
    app.health()
    app.get('/x/{id}', (_req, res) => void res.text('x'))
    const host = Fastify()
    host.get('/legacy', async () => ({ legacy: true }))
    await host.register(fw_plugin, { app, prefix: '/fw' })
    t.teardown(() => host.close())

    t.equal((await host.inject('/fw/x/1')).statusCode, 200)
    overload()
    const shed = await host.inject('/fw/x/1')
    t.same([shed.statusCode, shed.headers['retry-after'], shed.json().error], [503, '7', 'overloaded'])
    const urls = ['/fw/health', '/fw/health/', '/fw//ready', '/fw/ready?probe=1', '/legacy', '/fw/x/2/']
    t.same(
      await Promise.all(urls.map(async (url) => (await host.inject(url)).statusCode)),
      [200, 200, 200, 200, 200, 503],
    )
    monitor.sample({ event_loop_delay_ms: 0, heap_used_bytes: 0, rss_bytes: 0 })
    const body = (await host.inject('/fw/metrics')).body
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="/fw/x/{id}",status="503"}'), 2, 'labelled as sent')
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="/fw/health",status="200"}'), 2)
  },
)

t.test("fw_plugin: app.shed_load() never sheds the App's metrics route, under the mount's prefix", async (t) => {
  const { monitor, overload } = heap_monitor({ retry_after_s: 7 })
  const app = new App({ access_log: false })
  app.shed_load({}, monitor)
  app.metrics({ path: '/prom' })
  app.get('/x/{id}', (_req, res) => void res.text('x'))
  const host = Fastify()
  host.get('/prom', async () => ({ host: true }))
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())

  overload()
  const shed = await host.inject('/fw/x/1')
  t.same([shed.statusCode, shed.headers['retry-after'], shed.json().error], [503, '7', 'overloaded'])
  const r = await host.inject('/fw/prom')
  t.equal(r.statusCode, 200, 'scraped while shedding')
  t.equal(series(r.body, 'fw_http_requests_total{method="GET",route="/fw/x/{id}",status="503"}'), 1, 'shows the shed')
  t.equal((await host.inject('/fw/prom/')).statusCode, 200, 'with a trailing slash too')
  t.same((await host.inject('/prom')).json(), { host: true }, "the host's own route is untouched")
})

t.test('fw_plugin: app.health() readiness answers 503 draining once the host starts closing', async (t) => {
  let checking!: () => void
  const started = new Promise<void>((resolve) => (checking = resolve))
  let release!: () => void
  const hold = new Promise<void>((resolve) => (release = resolve))
  const app = new App({ access_log: false })
  app.health({
    checks: {
      slow: async () => {
        checking()
        await hold
      },
    },
  })
  const host = Fastify()
  await host.register(fw_plugin, { app, prefix: '/fw' })
  await host.ready()
  // A probe whose checks run when the host starts closing: no request reaches a closing host (its 503 comes first).
  const probe = host.inject('/fw/ready')
  await started
  const closing = host.close()
  for (let i = 0; i < 10; i++) await new Promise(setImmediate)
  release()
  const r = await probe
  t.same([r.statusCode, r.json()], [503, { ok: false, error: 'not_ready', status: 'draining' }])
  await closing
})
