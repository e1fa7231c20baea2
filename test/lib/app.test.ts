import { rename, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { App, Token, adapt_ctx, middleware, type CtxMiddleware, type Handler, type Middleware } from '../../index.js'
import { ERR_APP_LOCKED } from '../../lib/app.js'
import { with_route_options } from '../../lib/compose.js'
import { build, listening } from '../helpers/build.js'
import { send } from '../helpers/http.js'

const NOT_FOUND = { ok: false, error: 'not_found', message: 'Route not found' }
const INTERNAL = { ok: false, error: 'internal_error', message: 'Internal Server Error' }
const DENIED = { ok: false, error: 'denied', message: 'prefix middleware ran' }
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const

/** Middleware that appends its name to the `x-trace` response header before and after the rest of the chain. */
function trace(name: string): Middleware {
  return async (_req, res, next) => {
    res.header('x-trace', [res.get_header('x-trace'), `${name}>`].filter(Boolean).join(' '))
    await next()
    res.header('x-trace', `${res.get_header('x-trace')} <${name}`)
  }
}

t.test('App routes', async (t) => {
  const app = build(t, (app) => {
    const answer =
      (name: string) =>
      (req: { method(): string }, res: { header(n: string, v: string): unknown; text(s: string): unknown }) => {
        res.header('x-route', name)
        res.text(`${name} ${req.method()}`)
      }
    app.get('/m', answer('get')).post('/m', answer('post')).put('/m', answer('put')).patch('/m', answer('patch'))
    app.del('/m', answer('del')).head('/m', answer('head')).options('/m', answer('options'))
    app.get('/h', answer('get')).head('/h', answer('head'))
    app.get('/status/{code}', (req, res) => void res.status(Number(req.param('code'))).send())
    app.group('/api', (api) => {
      api.get('/', answer('api root'))
      api.group('/admin', (admin) =>
        admin.get('/stats', answer('stats')).group('/deep', (d) => d.get('/{id}', answer('deep'))),
      )
    })
    app.get('/files/*', answer('wildcard'))
    app.get('/files/fixed', answer('fixed'))
    app.post('/only-post', answer('only post'))
  })

  t.test('answers every method on its own route, DELETE through del', async (t) => {
    for (const method of METHODS) {
      const r = await app.inject({ method, url: '/m' })
      const name = method === 'DELETE' ? 'del' : method.toLowerCase()
      t.same(
        [r.statusCode, r.headers['x-route'], r.body],
        [200, name, method === 'HEAD' ? '' : `${name} ${method}`],
        method,
      )
    }
  })

  t.test('keeps an own HEAD route registered after the GET route', async (t) => {
    const r = await app.inject({ method: 'HEAD', url: '/h' })
    t.same([r.statusCode, r.headers['x-route'], r.body], [200, 'head', ''])
  })

  t.test('nests groups', async (t) => {
    for (const [url, body] of [
      ['/api', 'api root GET'],
      ['/api/admin/stats', 'stats GET'],
      ['/api/admin/deep/7', 'deep GET'],
    ] as const) {
      const r = await app.inject({ url })
      t.same([r.statusCode, r.body], [200, body], url)
    }
  })

  t.test('matches the wildcard over any depth, static routes first', async (t) => {
    t.equal((await app.inject({ url: '/files/a/b/c/d' })).body, 'wildcard GET')
    t.equal((await app.inject({ url: '/files/fixed' })).body, 'fixed GET')
  })

  t.test('answers HEAD through the GET route without a body', async (t) => {
    const r = await app.inject({ method: 'HEAD', url: '/api/admin/stats' })
    t.same([r.statusCode, r.headers['x-route'], r.headers['content-length'], r.body], [200, 'stats', '10', ''])
  })

  t.test('answers HEAD without a Content-Length where GET has none: 204 and 304 (RFC 9110 8.6)', async (t) => {
    for (const [code, length] of [
      [204, undefined],
      [304, undefined],
      [200, '0'],
    ] as const) {
      for (const method of ['GET', 'HEAD'] as const) {
        const r = await app.inject({ method, url: `/status/${code}` })
        t.same([r.statusCode, r.headers['content-length'], r.body], [code, length, ''], `${method} ${code}`)
      }
    }
  })

  t.test('answers OPTIONS on a known path with 204 and Allow', async (t) => {
    const r = await app.inject({ method: 'OPTIONS', url: '/api/admin/stats' })
    t.same([r.statusCode, r.headers.allow, r.body], [204, 'GET, HEAD, OPTIONS', ''])
    t.equal((await app.inject({ method: 'OPTIONS', url: '/only-post' })).headers.allow, 'POST, OPTIONS')
  })

  t.test('answers 404 not_found for unknown paths and methods', async (t) => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/api/admin'],
      ['GET', '/only-post'],
      ['DELETE', '/files/x'],
    ] as const) {
      const r = await app.inject({ method, url })
      t.same(
        [r.statusCode, r.headers['content-type'], r.json()],
        [404, 'application/json; charset=utf-8', NOT_FOUND],
        `${method} ${url}`,
      )
    }
  })

  t.test('refuses routes and middleware after start', async (t) => {
    t.throws(() => app.get('/late', () => {}), {
      code: ERR_APP_LOCKED.code,
      message: 'cannot add route GET /late after the app has started (listen, inject or mount)',
    })
    t.throws(() => app.use(trace('late')), {
      code: ERR_APP_LOCKED.code,
      message: 'cannot add middleware after the app has started (listen, inject or mount)',
    })
    t.equal(app.started, true)
  })
})

t.test('App.route', async (t) => {
  t.test('rejects a bad path or prefix at registration', async (t) => {
    const app = new App()
    t.throws(() => app.get('users', () => {}), { code: 'FW_ERR_APP_BAD_PATH' })
    t.throws(() => app.group('/a/*/b', () => {}), { code: 'FW_ERR_APP_BAD_PATH' })
    t.throws(() => app.use('api', (_q, _s, next) => next()), { code: 'FW_ERR_APP_BAD_PATH' })
    t.throws(() => app.use(undefined as unknown as Middleware), {
      code: 'FW_ERR_APP_BAD_HANDLER',
      message: 'middleware must be a function; got undefined',
    })
    t.throws(() => app.use('/api', null as unknown as Middleware), {
      code: 'FW_ERR_APP_BAD_HANDLER',
      message: 'middleware must be a function; got null',
    })
    t.throws(() => app.get('/x', 'hi' as unknown as Handler), {
      code: 'FW_ERR_APP_BAD_HANDLER',
      message: 'the handler of GET /x must be a function; got string',
    })
    t.equal(app.started, false)
  })
})

t.test('conflicting routes', async (t) => {
  t.test('are refused at registration, naming both, whatever their parameter names', async (t) => {
    const app = new App({ access_log: false })
    app.get('/users/{id}', () => {})
    t.throws(() => app.get('/users/{name}', () => {}), {
      code: 'FW_ERR_APP_DUPLICATE_ROUTE',
      message: 'GET /users/{name} conflicts with GET /users/{id}, registered before: the same method on the same path',
    })
    app.get('/files', () => {})
    t.throws(() => app.get('/files/', () => {}), { code: 'FW_ERR_APP_DUPLICATE_ROUTE' }, 'a trailing slash is ignored')
    app.group('/api', (api) => api.get('/x', () => {}))
    t.throws(() => app.get('/api/x', () => {}), { code: 'FW_ERR_APP_DUPLICATE_ROUTE' }, 'through a group')
    app.static_dir('.', { prefix: '/static' })
    t.throws(() => app.static_dir('.', { prefix: '/static' }), { code: 'FW_ERR_APP_DUPLICATE_ROUTE' })
    app.get('/chat', () => {})
    t.throws(() => app.ws('/chat/', () => {}), {
      code: 'FW_ERR_APP_DUPLICATE_ROUTE',
      message: 'WS /chat/ conflicts with GET /chat, registered before: the same method on the same path',
    })
    app.ws('/live/{room}', () => {})
    t.throws(() => app.get('/live/{name}', () => {}), {
      code: 'FW_ERR_APP_DUPLICATE_ROUTE',
      message: 'GET /live/{name} conflicts with WS /live/{room}, registered before: the same method on the same path',
    })
    t.equal(app.started, false)
  })

  t.test('other methods on one path may name its parameters differently, and OPTIONS answers for all', async (t) => {
    const app = build(t, (app) => {
      app.get('/users/{id}', (req, res) => void res.text(`get ${req.param('id')}`))
      app.del('/users/{user_id}', (req, res) => void res.text(`del ${req.param('user_id')}`))
    })
    const got = await app.inject({ url: '/users/7' })
    t.same([got.statusCode, got.body], [200, 'get 7'])
    const deleted = await app.inject({ method: 'DELETE', url: '/users/8' })
    t.same([deleted.statusCode, deleted.body], [200, 'del 8'])
    const options = await app.inject({ method: 'OPTIONS', url: '/users/9' })
    t.equal(options.statusCode, 204)
    t.equal(options.headers.allow, 'GET, HEAD, DELETE, OPTIONS')
  })
})

t.test('automatic OPTIONS', async (t) => {
  t.test('lists in Allow the methods a parameter or wildcard route answers on the path too', async (t) => {
    const app = build(t, (app) => {
      app.get('/users/me', (_req, res) => void res.text('me'))
      app.del('/users/{id}', (req, res) => void res.text(`del ${req.param('id')}`))
      app.get('/files/*', (_req, res) => void res.text('file'))
      app.post('/files/upload', (_req, res) => void res.text('upload'))
      app.put('/*', (_req, res) => void res.text('put anywhere'))
    })
    for (const [method, url, body] of [
      ['DELETE', '/users/me', 'del me'],
      ['GET', '/files/upload', 'file'],
      ['PUT', '/users/me', 'put anywhere'],
    ] as const) {
      const r = await app.inject({ method, url })
      t.same([r.statusCode, r.body], [200, body], `${method} ${url} is answered`)
    }
    const allow = async (url: string) => (await app.inject({ method: 'OPTIONS', url })).headers.allow
    t.equal(await allow('/users/me'), 'GET, HEAD, DELETE, PUT, OPTIONS')
    t.equal(await allow('/users/7'), 'DELETE, PUT, OPTIONS')
    t.equal(await allow('/files/upload'), 'GET, HEAD, POST, PUT, OPTIONS')
    t.equal(await allow('/files/a/b'), 'GET, HEAD, PUT, OPTIONS')
  })

  t.test(
    'lists in Allow every method of routes that overlap on the path without either covering the other',
    async (t) => {
      const app = build(t, (app) => {
        app.get('/a/{x}/c', (req, res) => void res.text(`get ${req.param('x')}`))
        app.post('/a/b/{y}', (req, res) => void res.text(`post ${req.param('y')}`))
        app.put('/{p}/b/c/*', (_req, res) => void res.text('put deep'))
        app.del('/a/{q}/c/d', (_req, res) => void res.text('del'))
      })
      // Each method is routed to its own route, whichever pattern is more specific.
      for (const [method, url, status, body] of [
        ['GET', '/a/b/c', 200, 'get b'],
        ['POST', '/a/b/c', 200, 'post c'],
        ['GET', '/a/z/c', 200, 'get z'],
        ['POST', '/a/b/z', 200, 'post z'],
        ['PUT', '/a/b/c/d', 200, 'put deep'],
        ['DELETE', '/a/b/c/d', 200, 'del'],
      ] as const) {
        const r = await app.inject({ method, url })
        t.same([r.statusCode, r.body], [status, body], `${method} ${url}`)
      }
      // A method no route takes on the path is an unknown route (no 405 in fw).
      t.same((await app.inject({ method: 'PUT', url: '/a/b/c' })).json(), NOT_FOUND)
      const allow = async (url: string) => (await app.inject({ method: 'OPTIONS', url })).headers.allow
      t.equal(await allow('/a/b/c'), 'GET, HEAD, POST, OPTIONS', 'both overlapping routes')
      t.equal(await allow('/a/z/c'), 'GET, HEAD, OPTIONS')
      t.equal(await allow('/a/b/z'), 'POST, OPTIONS')
      t.equal(await allow('/a/b/c/d'), 'PUT, DELETE, OPTIONS', 'a wildcard and a parameter route overlapping')
      t.equal(await allow('/x/b/c/d'), 'PUT, OPTIONS')
      t.equal(await allow('/a/z/c/d'), 'DELETE, OPTIONS')
    },
  )

  t.test(
    'lists in Allow the routes of three patterns overlapping on a path only pairwise intersections miss',
    async (t) => {
      const app = build(t, (app) => {
        app.get('/a/{x}/{y}', (_req, res) => void res.text('get'))
        app.post('/{z}/b/{w}', (_req, res) => void res.text('post'))
        app.put('/{u}/{v}/c', (_req, res) => void res.text('put'))
      })
      const allow = async (url: string) => (await app.inject({ method: 'OPTIONS', url })).headers.allow
      t.equal(await allow('/a/b/c'), 'GET, HEAD, POST, PUT, OPTIONS')
      t.equal(await allow('/a/b/z'), 'GET, HEAD, POST, OPTIONS')
      t.equal(await allow('/z/b/c'), 'POST, PUT, OPTIONS')
      t.equal(await allow('/z/z/z'), undefined, 'a path no route takes')
    },
  )

  t.test("leaves the paths an app's own OPTIONS route covers to it, a wildcard one included", async (t) => {
    const app = build(t, (app) => {
      app.options('/*', (_req, res) => void res.status(204).header('x-preflight', 'own').send())
      app.get('/users/{id}', (_req, res) => void res.text('user'))
      app.options('/api/only', (_req, res) => void res.status(200).text('api own'))
      app.group('/api', (api) => api.get('/items', (_req, res) => void res.text('items')))
    })
    for (const url of ['/users/7', '/api/items', '/unknown']) {
      const r = await app.inject({ method: 'OPTIONS', url })
      t.same([r.statusCode, r.headers['x-preflight'], r.headers.allow], [204, 'own', undefined], url)
    }
    const own = await app.inject({ method: 'OPTIONS', url: '/api/only' })
    t.same([own.statusCode, own.body], [200, 'api own'], 'the more specific own route still wins')
  })

  t.test(
    "leaves to an app's own OPTIONS route the paths it shares with a more specific route, its parameters read",
    async (t) => {
      const own = (name: string): Handler => {
        return (req, res) => {
          const params = ['x', 'y', '*'].map((n) => `${n}=${req.param(n as never, '-')}`).join(' ')
          res.status(204).header('x-own', `${name} ${params}`).send()
        }
      }
      const app = build(t, (app) => {
        app.use('/a/b', trace('ab'))
        app.options('/a/{x}/c', { use: trace('own') }, own('c'))
        app.get('/a/b/{y}', (req, res) => void res.text(`get ${req.param('y')}`))
        app.options('/w/{x}/*', own('w'))
        app.post('/w/b/{y}', (_req, res) => void res.text('post'))
        // Two own routes sharing /m/b/c: the router's pick among them (/m/b/:y, a static segment first) answers it.
        app.options('/m/{x}/c', own('mx'))
        app.options('/m/b/{y}', own('my'))
        app.get('/{z}/b/{q}', (_req, res) => void res.text('get'))
      })
      const options = async (url: string) => {
        const r = await app.inject({ method: 'OPTIONS', url })
        return [r.statusCode, r.headers['x-own'], r.headers.allow, r.headers['x-trace']]
      }
      const chain = 'ab> own> <own <ab'
      t.same(await options('/a/b/c'), [204, 'c x=b y=- *=-', undefined, chain], 'the own route and chain, x read as b')
      t.same(await options('/a/%62/c'), [204, 'c x=b y=- *=-', undefined, chain], 'an escaped segment')
      t.same(await options('/a/z/c'), [204, 'c x=z y=- *=-', undefined, 'own> <own'])
      t.same(await options('/a/b/z'), [204, undefined, 'GET, HEAD, OPTIONS', 'ab> <ab'], 'off the own route: automatic')
      t.same(await options('/w/b/z'), [204, 'w x=b y=- *=z', undefined, undefined], 'its wildcard read as /w/b/z')
      t.same(await options('/w/b/z/q'), [204, 'w x=b y=- *=z/q', undefined, undefined])
      t.same(await options('/m/b/c'), [204, 'my x=- y=c *=-', undefined, undefined])
      t.same(await options('/m/q/c'), [204, 'mx x=q y=- *=-', undefined, undefined])
      t.same(await options('/m/b/z'), [204, 'my x=- y=z *=-', undefined, undefined])
      t.same(await options('/n/b/z'), [204, undefined, 'GET, HEAD, OPTIONS', undefined])
      const got = await app.inject({ url: '/a/b/c' })
      t.same([got.statusCode, got.body], [200, 'get c'], 'GET keeps its route')
      // An own OPTIONS route covering a path whole needs nothing more: only overlaps with an automatic route get one.
      const urls = app
        .compile()
        .routes.filter((r) => r.method === 'OPTIONS')
        .map((r) => r.url)
      t.same(urls.sort(), [
        '/:z/b/:q',
        '/a/:x/c',
        '/a/b/:y',
        '/a/b/c',
        '/m/:x/c',
        '/m/b/:y',
        '/m/b/c',
        '/w/:x/*',
        '/w/b/:y',
      ])
    },
  )
})

t.test('App.use with context middleware', async (t) => {
  const { auth, security } = middleware
  const SECRET = 's'.repeat(64)
  const made: Array<[string, () => CtxMiddleware]> = [
    ['api_key', () => auth.api_key({ allowed_keys: ['k'] })],
    ['jwt', () => auth.jwt({ secret: SECRET })],
    ['session', () => auth.session({ secret: SECRET })],
    ['rbac_context', () => auth.rbac_context()],
    ['require_role', () => auth.require_role('admin')],
    ['any_of', () => auth.any_of(auth.api_key({ allowed_keys: ['k'] }))],
    ['all_of', () => auth.all_of(auth.api_key({ allowed_keys: ['k'] }))],
    ['cors', () => security.cors({ origins: ['https://a.example'] })],
    ['csrf', () => security.csrf()],
    ['security_headers', () => security.security_headers()],
    ['ip_filter', () => security.ip_filter({ allow: ['127.0.0.1'] })],
    ['rate_limit', () => security.rate_limit({ max_requests: 10, window_seconds: 1 })],
    ['body_limit', () => security.body_limit()],
  ]

  t.test("refuses every fw factory's context middleware given without adapt_ctx, naming it", async (t) => {
    for (const [name, make] of made) {
      const app = new App()
      const message = `use() got the context middleware "${name}" (ctx, next); wrap it for the App: use(adapt_ctx(mw))`
      const err = { code: 'FW_ERR_APP_UNADAPTED_MIDDLEWARE', message }
      t.throws(() => app.use(make() as unknown as Middleware), err, name)
      t.throws(() => app.use('/api', make() as unknown as Middleware), err, `${name} on a prefix`)
      t.throws(() => app.group('/g', (g) => g.use(make() as unknown as Middleware)), err, `${name} in a group`)
    }
  })

  t.test("names the factory, not the function's own name, which a bundler may change (dist/ has cors2)", async (t) => {
    const mw = security.cors({ origins: ['https://a.example'] })
    Object.defineProperty(mw, 'name', { value: 'cors2' })
    t.throws(() => new App().use(mw as unknown as Middleware), {
      code: 'FW_ERR_APP_UNADAPTED_MIDDLEWARE',
      message: 'use() got the context middleware "cors" (ctx, next); wrap it for the App: use(adapt_ctx(mw))',
    })
  })

  t.test('accepts them through adapt_ctx, and App middleware of any arity', async (t) => {
    const app = build(t, (app) => {
      for (const [, make] of made) app.use('/adapted', adapt_ctx(make()))
      app.use('/two', (_req, res) => void res.status(401).text('two'))
      app.use('/none', () => {
        throw new Error('none')
      })
      app.get('/two', (_req, res) => void res.text('unreachable'))
    })
    const r = await app.inject({ method: 'GET', url: '/two' })
    t.same([r.statusCode, r.body], [401, 'two'])
  })
})

t.test('App.use', async (t) => {
  const calls: string[] = []
  const app = build(t, (app) => {
    app.get('/early', (_req, res) => void res.text('early'))
    app.use(trace('global'))
    app.use('/api', trace('api'))
    app.group('/api', (api) => {
      api.use(trace('group'))
      api.get('/x', (_req, res) => void res.text('x'))
      api.use('/admin', trace('admin'))
      api.get('/admin/y', (_req, res) => void res.text('y'))
    })
    app.use(trace('late'))
    app.get('/stop', (_req, res) => void res.text('unreachable'))
    app.use('/stop', (_req, res) => void res.status(401).text('stopped'))
    app.get('/twice', () => void calls.push('handler'))
    app.use('/twice', async (_req, res, next) => {
      await next()
      await next()
      res.text(`handler ran ${calls.length}`)
    })
    app.get('/throws', (_req, res) => void res.text('unreachable'))
    app.use('/throws', () => {
      throw new Error('middleware boom')
    })
    app.get('/rejects', (_req, res) => void res.text('unreachable'))
    app.use('/rejects', async () => {
      throw new Error('async middleware boom')
    })
    app.use('/sync', (_req, res, next) => {
      res.header('x-sync', '1')
      return next()
    })
    app.get('/sync', async (_req, res) => void res.text('sync ok'))
  })
  const get = (url: string) => app.inject({ method: 'GET', url })

  t.test(
    'runs middleware in registration order, onion style, including middleware added after the route',
    async (t) => {
      t.equal((await get('/early')).headers['x-trace'], 'global> late> <late <global')
      t.equal((await get('/api/x')).headers['x-trace'], 'global> api> group> late> <late <group <api <global')
      t.equal(
        (await get('/api/admin/y')).headers['x-trace'],
        'global> api> group> admin> late> <late <admin <group <api <global',
      )
    },
  )

  t.test('runs global middleware before the 404', async (t) => {
    const r = await get('/nope')
    t.same([r.statusCode, r.headers['x-trace'], r.json()], [404, 'global> late> <late <global', NOT_FOUND])
    t.equal((await get('/api/nope')).headers['x-trace'], 'global> api> group> late> <late <group <api <global')
  })

  t.test('ends the chain when middleware does not call next', async (t) => {
    const r = await get('/stop')
    t.same([r.statusCode, r.body, r.headers['x-trace']], [401, 'stopped', 'global> late> <late <global'])
  })

  t.test('runs the rest once when next is called twice', async (t) => {
    t.equal((await get('/twice')).body, 'handler ran 1')
  })

  t.test('accepts sync middleware', async (t) => {
    const r = await get('/sync')
    t.same([r.headers['x-sync'], r.body], ['1', 'sync ok'])
  })

  t.test('answers 500 internal_error when middleware throws or rejects, and keeps serving', async (t) => {
    for (const url of ['/throws', '/rejects']) {
      const r = await get(url)
      t.same([r.statusCode, r.json()], [500, INTERNAL], url)
    }
    t.equal((await get('/early')).statusCode, 200)
  })
})

t.test('App handlers', async (t) => {
  const app = build(t, (app) => {
    app.get('/throws', () => {
      throw new Error('secret detail')
    })
    app.get('/rejects', async () => {
      throw new TypeError('secret detail')
    })
    app.get('/ok', (_req, res) => void res.json('ok', true))
    app.get('/silent', () => {})
  })

  t.test('answer 500 internal_error, the exact contract body without a stack, when they throw or reject', async (t) => {
    for (const url of ['/throws', '/rejects', '/throws']) {
      const r = await app.inject({ url })
      t.same([r.statusCode, r.json()], [500, INTERNAL], url)
      t.same((await app.inject({ url: '/ok' })).json(), { ok: true })
    }
  })

  t.test('answer 200 with an empty body when they send nothing', async (t) => {
    const r = await app.inject({ url: '/silent' })
    t.same([r.statusCode, r.body], [200, ''])
  })
})

t.test('App.services', async (t) => {
  t.test('lets handlers and context middleware look services up', async (t) => {
    const Greeting = new Token<(name: string) => string>('Greeting')
    const app = build(t, (app) => {
      app.services.set(Greeting, (name) => `hello ${name}`)
      app.use(
        adapt_ctx(async (ctx, next) => {
          ctx.res.header('x-ctx', ctx.services.get(Greeting)?.('ctx') ?? 'none')
          await next()
        }),
      )
      app.get('/g', (req, res) => void res.text(req.services.get(Greeting)?.('handler') ?? 'none'))
    })
    const r = await app.inject({ url: '/g' })
    t.same([r.headers['x-ctx'], r.body], ['hello ctx', 'hello handler'])
  })
})

t.test('App body limits', async (t) => {
  t.test('apply the smallest limit a route middleware asks for, before the handler runs', async (t) => {
    const bodies: string[] = []
    const app = build(
      t,
      (app) => {
        app.use(
          '/small',
          with_route_options<Middleware>(
            (req, _res, next) => {
              bodies.push(req.body())
              return next()
            },
            { body_limit: 4 },
          ),
        )
        app.post('/small', (req, res) => void res.text(req.body()))
        app.post('/big', (req, res) => void res.text(req.body()))
      },
      { body_limit: 8 },
    )
    const post = (url: string, payload: string) =>
      app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'text/plain' } })
    t.same([(await post('/small', '1234')).body, (await post('/big', '12345678')).body], ['1234', '12345678'])
    const small = await post('/small', '12345')
    const big = await post('/big', '123456789')
    for (const r of [small, big])
      t.same(
        [r.statusCode, r.json()],
        [413, { ok: false, error: 'payload_too_large', message: 'Request body is too large' }],
      )
    t.same(bodies, ['1234', ''], 'the 413 ran the middleware without a body; the handler answered only the first')
  })

  t.test("apply a prefix's limit on a parameter or wildcard route only to requests under the prefix", async (t) => {
    const limit = adapt_ctx(middleware.security.body_limit({ max_bytes: 4 }))
    const app = build(
      t,
      (app) => {
        app.use('/a/b', limit)
        app.use('/files/private', limit)
        app.use('/{t}/locked', limit)
        app.post('/a/{x}', (req, res) => void res.text(`${req.param('x')} ${req.body()}`))
        app.post('/files/*', (req, res) => void res.text(`${req.param('*')} ${req.body()}`))
        app.post('/{s}/{page}', (req, res) => void res.text(`${req.param('s')}/${req.param('page')} ${req.body()}`))
        app.post('/a/b/c', (req, res) => void res.text(`c ${req.body()}`))
      },
      { body_limit: 16 },
    )
    const post = (url: string, payload: string) =>
      app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'text/plain' } })
    for (const [url, body] of [
      ['/a/zzz', 'zzz 0123456789'],
      ['/files/public/x', 'public/x 0123456789'],
      ['/x/y', 'x/y 0123456789'],
    ] as const) {
      const r = await post(url, '0123456789')
      t.same([r.statusCode, r.body], [200, body], `${url} reads under the App's limit`)
    }
    for (const url of ['/a/b', '/A/B', '/a/%62', '/files/private/x', '/files/Private/x/y', '/x/locked', '/a/b/c']) {
      const r = await post(url, '0123456789')
      t.same([r.statusCode, r.json().error], [413, 'payload_too_large'], `${url} reads under the prefix's limit`)
    }
    t.same(
      [(await post('/a/b', '0123')).body, (await post('/files/private/x', '0123')).body],
      ['b 0123', 'private/x 0123'],
    )
    t.equal((await post('/a/zzz', '0123456789abcdefg')).statusCode, 413, "the App's limit still holds off the prefix")
  })
})

t.test('App prefix middleware', async (t) => {
  const { port } = await listening(t, (app) => {
    app.use('/api', (_req, res) => void res.error(401, 'denied', 'prefix middleware ran'))
    app.get('/api/static', (_req, res) => void res.text('static'))
    app.get('/api/{id}/p', (_req, res) => void res.text('param'))
    app.get('/api/files/*', (_req, res) => void res.text('prefixed wildcard'))
    app.get('/{section}/x', (_req, res) => void res.text('param first'))
    app.get('/*', (req, res) => void res.text(`wildcard ${req.param('*')}`))
  })

  t.test('is not bypassed by encoding, doubled slashes, dot segments or case', async (t) => {
    const paths = [
      '/api/static',
      '/%61pi/static',
      '//api/static',
      '/x/../api/static',
      '/API/static',
      '/Api%2Fstatic',
      '/api%5cstatic',
      '/api/7/p',
      '/%61pi/7/p',
      '//api/7/p',
      '/x/../api/7/p',
      '/API/7/p',
      '/api/x',
      '/%61pi/x',
      '/API/x',
      '/api/zzz/deep',
      '/%41PI/zzz/deep',
      '/./api/unknown',
      '/api',
      '/%61pi',
      '/api/files/a/b',
      '/%61pi/files/a/b',
      '//api//files/a',
      '/x/../api/files/a',
      '/API/FILES/a',
      // Dot segments after the prefix: the canonical path leaves /api, the route's parameters do not.
      '/api/..',
      '/api/%2e%2e',
      '/API/.%2E',
      '/api/zzz/../..',
      '/api/x/..',
    ]
    for (const path of paths) {
      const r = await send(port, { path })
      t.same([r.status, r.body], [401, JSON.stringify(DENIED)], path)
    }
  })

  t.test('is not bypassed on unknown routes either', async (t) => {
    for (const path of ['/api/static', '/%61pi/none', '//api/none', '/x/../api/none', '/API/none', '/api%2fnone']) {
      const r = await send(port, { method: 'POST', path })
      t.same([r.status, r.body], [401, JSON.stringify(DENIED)], `POST ${path}`)
    }
    const outside = await send(port, { method: 'POST', path: '/apix' })
    t.same([outside.status, JSON.parse(outside.body)], [404, NOT_FOUND])
  })

  t.test('leaves paths outside the prefix alone', async (t) => {
    for (const [path, body] of [
      ['/apix/x', 'param first'],
      ['/other', 'wildcard other'],
      ['/other/..', 'wildcard other/..'],
      ['/api../x', 'param first'],
    ] as const) {
      const r = await send(port, { path })
      t.same([r.status, r.body], [200, body], path)
    }
  })
})

t.test('App prefix middleware under a parameter', async (t) => {
  const app = build(t, (app) => {
    app.group('/users/{id}', (users) => {
      users.use(trace('user'))
      users.get('/', (req, res) => void res.text(`user ${req.param('id')}`))
      users.get('/posts', (req, res) => void res.text(`posts of ${req.param('id')}`))
      users.use('/admin', trace('admin'))
      users.get('/admin/{action}', (req, res) => void res.text(`${req.param('action')} ${req.param('id')}`))
    })
    app.use('/teams/{team}/members', trace('members'))
    app.get('/teams/{team}/members', (_req, res) => void res.text('members'))
    app.get('/teams/{team}', (_req, res) => void res.text('team'))
    app.get('/users', (_req, res) => void res.text('users'))
    app.get('/*', (_req, res) => void res.text('other'))
  })
  const get = (url: string) => app.inject({ method: 'GET', url })

  t.test("runs a group's middleware for every route under a {param} prefix", async (t) => {
    for (const [url, body, traced] of [
      ['/users/7', 'user 7', 'user> <user'],
      ['/users/7/posts', 'posts of 7', 'user> <user'],
      ['/users/%37/posts', 'posts of 7', 'user> <user'],
      ['/users/7/admin/ban', 'ban 7', 'user> admin> <admin <user'],
      ['/teams/red/members', 'members', 'members> <members'],
    ] as const) {
      const r = await get(url)
      t.same([r.statusCode, r.body, r.headers['x-trace']], [200, body, traced], url)
    }
  })

  t.test('runs it on unknown paths under the prefix, and nowhere else', async (t) => {
    for (const url of ['/users/7/nope', '/USERS/7/posts']) {
      const r = await get(url)
      t.same([r.statusCode, r.body, r.headers['x-trace']], [200, 'other', 'user> <user'], url)
    }
    for (const url of ['/users', '/teams/red', '/other', '/users/7/admi/x']) {
      t.equal((await get(url)).headers['x-trace'], url === '/users/7/admi/x' ? 'user> <user' : undefined, url)
    }
  })
})

t.test('App.static_dir', async (t) => {
  const dir = t.testdir({
    'outside.txt': 'OUTSIDE',
    public: {
      'index.html': '<h1>home</h1>',
      'a.txt': 'alpha',
      sub: { 'b.txt': 'beta' },
      '.env': 'SECRET=1',
      '.git': { config: 'SECRET' },
      'link-out.txt': t.fixture('symlink', '../outside.txt'),
      'dir-out': t.fixture('symlink', '..'),
      'link-in.txt': t.fixture('symlink', 'a.txt'),
    },
  })
  const { port } = await listening(t, (app) => {
    app.static_dir(join(dir, 'public'), { prefix: '/s', cache_control: 'public, max-age=60' })
    app.static_dir(join(dir, 'public', 'sub'), { prefix: '/plain', index: false })
  })

  t.test('serves files, nested files and the index with the Cache-Control', async (t) => {
    for (const [path, body] of [
      ['/s/a.txt', 'alpha'],
      ['/s/sub/b.txt', 'beta'],
      ['/s', '<h1>home</h1>'],
      ['/plain/b.txt', 'beta'],
      ['/s/link-in.txt', 'alpha'],
    ] as const) {
      const r = await send(port, { path })
      t.same([r.status, r.body], [200, body], path)
    }
    t.equal((await send(port, { path: '/s/a.txt' })).headers['cache-control'], 'public, max-age=60')
  })

  t.test('never serves dot files, traversal or anything outside the folder', async (t) => {
    const paths = [
      '/s/.env',
      '/s/.git/config',
      '/s/%2eenv',
      '/s/sub/../.env',
      '/s/../outside.txt',
      '/s/%2e%2e/outside.txt',
      '/s/%2E%2E/outside.txt',
      '/s/..%2foutside.txt',
      '/s/..%5coutside.txt',
      '/s/sub/..%2f..%2foutside.txt',
      '/s//../outside.txt',
      '/s/%2f..%2foutside.txt',
      '/plain/../a.txt',
      '/plain/..%2fa.txt',
      '/s/missing.txt',
      '/plain',
      '/s/sub',
      '/s/%00a.txt',
      // Symbolic links inside the folder that resolve outside it.
      '/s/link-out.txt',
      '/s/dir-out/outside.txt',
    ]
    for (const path of paths) {
      const r = await send(port, { path })
      t.ok(r.status === 404 || r.status === 400, `${path} answers ${r.status}`)
      t.notMatch(r.body, /SECRET|OUTSIDE|alpha/, path)
    }
  })

  t.test('a file asked for as a folder (a trailing slash) is not found, as the file system says', async (t) => {
    for (const path of [
      '/s/a.txt/',
      '/s/sub/b.txt/',
      '/plain/b.txt/',
      '/s/link-in.txt/',
      '/s/a.txt//',
      '/s/a.txt%2F',
    ]) {
      const r = await send(port, { path })
      t.same([r.status, r.body], [404, '{"ok":false,"error":"not_found","message":"File not found"}'], path)
      t.equal(r.headers['cache-control'], undefined, path)
    }
    // The folder's own prefix with a slash is still its index.
    t.same(
      [(await send(port, { path: '/s/' })).status, (await send(port, { path: '/s/' })).body],
      [200, '<h1>home</h1>'],
    )
  })

  t.test('a folder that is a symbolic link still serves its files after the link is switched (a deploy)', async (t) => {
    const base = t.testdir({
      releases: { one: { 'x.txt': 'one' }, two: { 'x.txt': 'two', 'y.txt': 'only two' } },
      current: t.fixture('symlink', 'releases/one'),
    })
    const { port } = await listening(t, (app) => void app.static_dir(join(base, 'current')))
    t.same([(await send(port, { path: '/x.txt' })).status, (await send(port, { path: '/x.txt' })).body], [200, 'one'])
    // Switched as deploy tools do it: a new link renamed over the old one.
    await symlink('releases/two', join(base, 'next'))
    await rename(join(base, 'next'), join(base, 'current'))
    for (const [path, body] of [
      ['/x.txt', 'two'],
      ['/y.txt', 'only two'],
    ] as const) {
      const r = await send(port, { path })
      t.same([r.status, r.body], [200, body], path)
    }
  })
})
