import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import * as fw from '../../index.js'
import { build, listening } from '../helpers/build.js'
import { raw, send } from '../helpers/http.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TOO_LARGE = { ok: false, error: 'payload_too_large', message: 'Request body is too large' }

/** A host Fastify app with `app` mounted under `/fw`, closed when the test ends. */
async function in_host(t: Test, app: fw.App) {
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(fw_plugin, { app, prefix: '/fw' })
  return host
}

t.test('mount request ids', async (t) => {
  const { app, port } = await listening(
    t,
    (app) => {
      app.get('/id', (req, res) => void res.text(req.id()))
      app.post('/id', (req, res) => void res.text(req.id()))
    },
    { body_limit: 4 },
  )

  t.test('echoes a valid incoming x-request-id and gives the handler the same id', async (t) => {
    const r = await send(port, { path: '/id', headers: { 'x-request-id': 'trace-42' } })
    t.same([r.headers['x-request-id'], r.body], ['trace-42', 'trace-42'])
  })

  t.test('replaces a too long or ill-formed x-request-id with a new UUID', async (t) => {
    for (const id of ['x'.repeat(129), 'a b', 'a;b', '../x']) {
      const r = await send(port, { path: '/id', headers: { 'x-request-id': id } })
      t.match(r.headers['x-request-id'], UUID, id)
      t.equal(r.body, r.headers['x-request-id'])
    }
  })

  t.test('never echoes a CR/LF sent in x-request-id', async (t) => {
    const r = await app.inject({ url: '/id', headers: { 'x-request-id': 'a\rb' } })
    t.match(r.headers['x-request-id'], UUID)
    t.equal(r.body, r.headers['x-request-id'])
    const folded = await raw(
      port,
      'GET /id HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\n evil: 1\r\nConnection: close\r\n\r\n',
    )
    t.equal(folded.status, 400)
    t.equal(folded.headers['evil'], undefined)
  })

  t.test('puts the id on 404s and on answers made before the chain (413)', async (t) => {
    const nf = await send(port, { path: '/nope', headers: { 'x-request-id': 'nf-1' } })
    t.same([nf.status, nf.headers['x-request-id']], [404, 'nf-1'])
    const big = await send(port, {
      method: 'POST',
      path: '/id',
      headers: { 'x-request-id': 'big-1', 'content-type': 'text/plain' },
      body: '12345',
    })
    t.same([big.status, big.headers['x-request-id'], JSON.parse(big.body)], [413, 'big-1', TOO_LARGE])
  })

  t.test('sends no x-request-id when request_id is off', async (t) => {
    const off = build(t, (app) => app.get('/id', (req, res) => void res.text(req.id())), { request_id: false })
    const r = await off.inject({ url: '/id', headers: { 'x-request-id': 'abc' } })
    t.same([r.headers['x-request-id'], r.body], [undefined, 'abc'])
    const ids = []
    for (let i = 0; i < 3; i++) ids.push((await off.inject({ url: '/id' })).body)
    t.same(ids, ['req-1', 'req-2', 'req-3'], 'numbered for the log, no UUID drawn')
  })
})

t.test('mount body limits', async (t) => {
  const seen: string[] = []
  const { port } = await listening(
    t,
    (app) => {
      app.post('/echo', (req, res) => {
        seen.push(req.body())
        res.json('len', req.body().length)
      })
    },
    { body_limit: 16 },
  )
  const post = (head: string, body: string) =>
    raw(
      port,
      `POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\n${head}\r\n\r\n${body}`,
    )

  t.test('accepts a body at the limit', async (t) => {
    const r = await post('Content-Length: 16', '0123456789abcdef')
    t.same([r.status, JSON.parse(r.body)], [200, { len: 16 }])
  })

  t.test('answers 413 payload_too_large for a Content-Length over the limit', async (t) => {
    const r = await post('Content-Length: 17', '0123456789abcdefg')
    t.same(
      [r.status, r.headers['content-type'], JSON.parse(r.body)],
      [413, 'application/json; charset=utf-8', TOO_LARGE],
    )
  })

  t.test('answers 413 before the body arrives when Content-Length claims more than the limit', async (t) => {
    const r = await post('Content-Length: 1000000', 'only a few bytes')
    t.same([r.status, JSON.parse(r.body)], [413, TOO_LARGE])
  })

  t.test('answers 413 for a chunked body that grows over the limit', async (t) => {
    const r = await post('Transfer-Encoding: chunked', '10\r\n0123456789abcdef\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n')
    t.same([r.status, JSON.parse(r.body)], [413, TOO_LARGE])
    const ok = await post('Transfer-Encoding: chunked', '8\r\n01234567\r\n8\r\n89abcdef\r\n0\r\n\r\n')
    t.same([ok.status, JSON.parse(ok.body)], [200, { len: 16 }])
  })

  t.test('reads no more than Content-Length when a client sends extra bytes', async (t) => {
    seen.length = 0
    await post('Content-Length: 4', '0123456789abcdefXYZ-not-a-request')
    t.same(seen, ['0123'])
  })

  t.test('never runs the handler for a body over the limit', async (t) => {
    seen.length = 0
    await post('Content-Length: 20', '01234567890123456789')
    await post('Transfer-Encoding: chunked', '14\r\n01234567890123456789\r\n0\r\n\r\n')
    t.same(seen, [])
  })
})

t.test("mount body limits: a prefix's limit on a parameter route holds only under the prefix", async (t) => {
  const setup = (app: fw.App) => {
    app.use('/a/b', fw.adapt_ctx(fw.middleware.security.body_limit({ max_bytes: 4 })))
    app.use('/admin', fw.adapt_ctx(fw.middleware.security.body_limit({ max_bytes: 4 })))
    app.post('/a/{x}', (req, res) => void res.text(`${req.param('x')} ${req.body()}`))
    app.post('/{s}/{page}', (req, res) => void res.text(`${req.param('s')}/${req.param('page')} ${req.body()}`))
  }
  const { port } = await listening(t, setup, { body_limit: 16 })
  const chunked = (path: string) =>
    raw(
      port,
      `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n',
    )
  const off = await chunked('/a/zzz')
  t.same([off.status, off.body], [200, 'zzz 0123456789'], 'a chunked body off the prefix reads under the App limit')
  const under = await chunked('/a/b')
  t.same([under.status, JSON.parse(under.body)], [413, TOO_LARGE], 'and under it, under the limit of the prefix')
  const other = await chunked('/docs/x')
  t.same([other.status, other.body], [200, 'docs/x 0123456789'])
  // `/admin/..` reaches `/{s}/{page}` with s `admin`: the prefix's middleware runs there, and so does its limit.
  const dots = await chunked('/admin/..')
  t.same([dots.status, JSON.parse(dots.body)], [413, TOO_LARGE], 'a route matched under the prefix by its parameters')

  // Mounted in a host under /fw, the prefix is the App's own path, under the mount.
  const app = new fw.App({ body_limit: 16, access_log: false })
  setup(app)
  const host = await in_host(t, app)
  const post = (url: string) =>
    host.inject({ method: 'POST', url, payload: '0123456789', headers: { 'content-type': 'text/plain' } })
  const [mounted_off, mounted_under] = [await post('/fw/a/zzz'), await post('/fw/a/b')]
  t.same([mounted_off.statusCode, mounted_off.body], [200, 'zzz 0123456789'])
  t.same([mounted_under.statusCode, mounted_under.json()], [413, TOO_LARGE])
})

t.test(
  "mount streamed bodies: a prefix's stream_body on a parameter route streams only under the prefix",
  async (t) => {
    /** Reads the body buffered, else (a streaming request) as a stream, and answers how it came and what it held. */
    const read = async (req: fw.Request): Promise<string> => {
      try {
        return `buffered ${req.body()}`
      } catch (err) {
        if ((err as { code?: string }).code !== 'FW_ERR_BODY_CONSUMED') throw err
        const chunks: Buffer[] = []
        for await (const chunk of req.stream()) chunks.push(chunk as Buffer)
        return `streamed ${Buffer.concat(chunks).toString()}`
      }
    }
    const setup = (app: fw.App) => {
      app.use('/a/b', fw.stream_body())
      app.use('/admin', fw.stream_body())
      app.post('/a/{x}', async (req, res) => void res.text(`${req.param('x')} ${await read(req)}`))
      app.post(
        '/{s}/{page}',
        async (req, res) => void res.text(`${req.param('s')}/${req.param('page')} ${await read(req)}`),
      )
      app.post('/a/b/c', async (req, res) => void res.text(`c ${await read(req)}`))
      app.post('/x', async (req, res) => void res.text(`x ${await read(req)}`))
    }
    const { app: own, port } = await listening(t, setup)
    const post = (path: string) =>
      send(port, { method: 'POST', path, body: '0123456789', headers: { 'content-type': 'text/plain' } })
    for (const [path, body] of [
      ['/a/zzz', 'zzz buffered 0123456789'],
      ['/a/b', 'b streamed 0123456789'],
      ['/A/B', 'A/B streamed 0123456789'],
      ['/a/%62', 'b streamed 0123456789'],
      ['/docs/x', 'docs/x buffered 0123456789'],
      ['/admin/x', 'admin/x streamed 0123456789'],
      // `/admin/..` reaches `/{s}/{page}` with s `admin`: the prefix's middleware runs there, and so does its streaming.
      ['/admin/..', 'admin/.. streamed 0123456789'],
      ['/a/b/c', 'c streamed 0123456789'],
      ['/x', 'x buffered 0123456789'],
    ] as const) {
      const r = await post(path)
      t.same([r.status, r.body], [200, body], path)
    }
    // Routes wholly under the prefix or outside it keep one fixed setting: nothing is decided per request there.
    const fixed = (app: fw.App, prefix: string) =>
      app
        .compile(prefix)
        .routes.filter((r) => r.method === 'POST')
        .map((r) => [r.url, r.stream_body, r.body_of === undefined])
    const expected = [
      ['/a/:x', false, false],
      ['/:s/:page', false, false],
      ['/a/b/c', true, true],
      ['/x', false, true],
    ]
    t.same(fixed(own, ''), expected)

    // Mounted in a host under /fw, the prefix is the App's own path, under the mount.
    const app = new fw.App({ access_log: false })
    setup(app)
    const host = await in_host(t, app)
    const inject = (url: string) =>
      host.inject({ method: 'POST', url, payload: '0123456789', headers: { 'content-type': 'text/plain' } })
    for (const [url, body] of [
      ['/fw/a/zzz', 'zzz buffered 0123456789'],
      ['/fw/a/b', 'b streamed 0123456789'],
      ['/fw/a/b/c', 'c streamed 0123456789'],
      ['/fw/admin/x', 'admin/x streamed 0123456789'],
      ['/fw/docs/x', 'docs/x buffered 0123456789'],
    ] as const) {
      const r = await inject(url)
      t.same([r.statusCode, r.body], [200, body], url)
    }
    t.same(fixed(app, '/fw'), expected)
  },
)

t.test("mount OPTIONS: an app's own OPTIONS route answers the paths it shares with an automatic one", async (t) => {
  const app = new fw.App({ access_log: false })
  app.use('/a/b', (_req, res, next) => (res.header('x-prefix', 'ab'), next()))
  app.options('/a/{x}/c', (req, res) => void res.status(204).header('x-own', req.param('x')).send())
  app.get('/a/b/{y}', (req, res) => void res.text(`get ${req.param('y')}`))
  const host = await in_host(t, app)
  const options = async (url: string) => {
    const r = await host.inject({ method: 'OPTIONS', url })
    return [r.statusCode, r.headers['x-own'], r.headers.allow, r.headers['x-prefix']]
  }
  t.same(await options('/fw/a/b/c'), [204, 'b', undefined, 'ab'])
  t.same(await options('/fw/a/z/c'), [204, 'z', undefined, undefined])
  t.same(await options('/fw/a/b/z'), [204, undefined, 'GET, HEAD, OPTIONS', 'ab'])
})

t.test('mount errors', async (t) => {
  t.test('keep the server serving after a handler fails', async (t) => {
    const { port } = await listening(t, (app) => {
      app.get('/boom', () => {
        throw new Error('boom')
      })
      app.get('/ok', (_req, res) => void res.text('ok'))
    })
    for (let i = 0; i < 3; i++) {
      const boom = await send(port, { path: '/boom' })
      t.same(
        [boom.status, JSON.parse(boom.body)],
        [500, { ok: false, error: 'internal_error', message: 'Internal Server Error' }],
      )
      t.equal((await send(port, { path: '/ok' })).body, 'ok')
    }
  })

  t.test("drop the failed body's cookies and caching headers but keep the middleware's", async (t) => {
    const app = build(t, (app) => {
      app.use(async (_req, res, next) => {
        res.header('X-Frame-Options', 'DENY')
        await next()
      })
      app.get('/half', (_req, res) => {
        res.header('Set-Cookie', 'sid=abc').header('Cache-Control', 'public, max-age=600').header('ETag', '"v1"')
        throw new Error('after headers')
      })
    })
    const r = await app.inject({ url: '/half' })
    t.equal(r.statusCode, 500)
    t.same(r.json(), { ok: false, error: 'internal_error', message: 'Internal Server Error' })
    t.equal(r.headers['x-frame-options'], 'DENY')
    t.equal(r.headers['cache-control'], 'no-store')
    t.equal(r.headers['set-cookie'], undefined)
    t.equal(r.headers.etag, undefined)
  })

  t.test('wait for an async handler when a sync middleware calls next() without returning it', async (t) => {
    const app = build(t, (app) => {
      app.use((_req, _res, next) => {
        void next()
      })
      app.get('/slow', async (_req, res) => {
        await new Promise((r) => setImmediate(r))
        res.json('ok', true)
      })
    })
    const r = await app.inject({ url: '/slow' })
    t.same([r.statusCode, r.json()], [200, { ok: true }])
  })

  t.test('answer a malformed URL escape with 400 bad_request in the fw shape, with a request id', async (t) => {
    let ran = 0
    const app = build(t, (app) => app.get('/x/{a}', (_req, res) => void res.text(String(++ran))))
    const r = await app.inject({ url: '/x/%zz' })
    t.equal(r.statusCode, 400)
    t.same(r.json(), { ok: false, error: 'bad_request', message: 'Bad Request' })
    t.match(r.headers['x-request-id'], UUID)
    t.equal(ran, 0)
  })
})

t.test("answers made before the chain still run the route's middleware", async (t) => {
  const ORIGIN = 'http://app.test'
  let handled = 0
  const ran: string[] = []
  const { port } = await listening(
    t,
    (app) => {
      app.use(fw.middleware.app.adapt_ctx(fw.middleware.security.cors({ origins: [ORIGIN] })))
      app.use((req, res, next) => {
        ran.push(`${req.method()} ${req.path()} body=${req.body().length}`)
        res.header('x-outer', 'ran')
        return next()
      })
      app.use('/admin', (_req, res) => void res.error(401, 'missing_api_key', 'API key required'))
      app.post('/upload', (_req, res) => void res.json('handled', ++handled))
      app.post('/admin/upload', (_req, res) => void res.json('handled', ++handled))
    },
    { body_limit: 16 },
  )
  const big = 'x'.repeat(64)
  const headers = { origin: ORIGIN, 'content-type': 'text/plain', 'x-request-id': 'up-1' }

  const r = await send(port, { method: 'POST', path: '/upload', headers, body: big })
  t.same([r.status, JSON.parse(r.body)], [413, TOO_LARGE])
  t.equal(r.headers['access-control-allow-origin'], ORIGIN, 'a browser can read the 413')
  t.same([r.headers['x-outer'], r.headers['x-request-id']], ['ran', 'up-1'])
  t.same(ran, ['POST /upload body=0'], 'middleware saw no body')

  const admin = await send(port, { method: 'POST', path: '/admin/upload', headers, body: big })
  t.same(
    [admin.status, JSON.parse(admin.body).error],
    [401, 'missing_api_key'],
    'middleware that answers first wins, as for any request',
  )
  t.equal(handled, 0, 'no handler ran')

  const ok = await send(port, { method: 'POST', path: '/upload', headers, body: 'small' })
  t.same([ok.status, JSON.parse(ok.body), ok.headers['access-control-allow-origin']], [200, { handled: 1 }, ORIGIN])
})

t.test('refusals of requests no route matched run the global middleware, as the 404 does', async (t) => {
  const ORIGIN = 'http://app.test'
  const { security, app: mw } = fw.middleware
  const { port } = await listening(
    t,
    (app) => {
      app.use(mw.adapt_ctx(security.security_headers()))
      app.use(mw.adapt_ctx(security.cors({ origins: [ORIGIN] })))
      app.use('/admin', (_req, res) => void res.error(401, 'missing_api_key', 'API key required'))
      app.use('/limited', mw.adapt_ctx(security.rate_limit({ max_requests: 1, window_seconds: 60 })))
      app.get('/users/{id}', (_req, res) => void res.json('ok', true))
    },
    { body_limit: 16 },
  )
  const headers = { origin: ORIGIN, 'x-request-id': 'bad-1' }

  const bad = await send(port, { path: '/users/%zz', headers })
  t.same([bad.status, JSON.parse(bad.body)], [400, { ok: false, error: 'bad_request', message: 'Bad Request' }])
  t.equal(bad.headers['x-content-type-options'], 'nosniff', 'security headers on the malformed URL answer')
  t.equal(bad.headers['access-control-allow-origin'], ORIGIN, 'a browser can read the 400')
  t.equal(bad.headers['x-request-id'], 'bad-1')

  const admin = await send(port, { path: '/admin/%zz', headers })
  t.same(
    [admin.status, JSON.parse(admin.body).error, admin.headers['x-content-type-options']],
    [401, 'missing_api_key', 'nosniff'],
    'middleware that answers first wins, under its prefix, as for the 404',
  )

  const limited = [await send(port, { path: '/limited/%zz', headers }), await send(port, { path: '/limited/%zz' })]
  t.same(
    limited.map((r) => [r.status, JSON.parse(r.body).error]),
    [
      [400, 'bad_request'],
      [429, 'rate_limit_exceeded'],
    ],
    'malformed URLs count against a rate limit, whose 429 stands',
  )

  const big = { ...headers, 'content-type': 'text/plain' }
  const large = await send(port, { method: 'POST', path: '/nowhere', headers: big, body: 'x'.repeat(64) })
  t.same([large.status, JSON.parse(large.body)], [413, TOO_LARGE])
  t.equal(large.headers['x-content-type-options'], 'nosniff', 'security headers on the 413 of an unknown path')
  t.equal(large.headers['access-control-allow-origin'], ORIGIN)

  const missing = await send(port, { path: '/nowhere', headers })
  t.same(
    [missing.status, missing.headers['x-content-type-options'], missing.headers['access-control-allow-origin']],
    [404, 'nosniff', ORIGIN],
    'as the 404 of an unknown route',
  )
})
