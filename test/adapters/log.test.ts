// The App and fw/log: one access line per request, each request's lines under its own id, handler errors with their
// stack, Fastify's own lines through the same logger, and no secret in any line.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import * as fw from '../../index.js'
import * as log from '../../lib/log/index.js'
import { build, gate } from '../helpers/build.js'
import { capture_log as capture } from '../helpers/log.js'
import { MemoryStream, msg_and_rid, parse_kv, set_env } from '../lib/log/capture.js'

const pairs_of = (line: string): Record<string, string> => Object.fromEntries(parse_kv(line).pairs)

t.test('access line', async (t) => {
  t.test(
    'one KV line per request: rid, method, path, route, status, duration_ms, ip, ua, bytes, after the response',
    async (t) => {
      const out = capture(t)
      const app = build(t, (app) => app.get('/items/{id}', (_req, res) => void res.status(201).json('ok', true)), {
        access_log: 'info',
      })
      const r = await app.inject({
        url: '/items/7?page=2',
        headers: { 'x-request-id': 'req-1', 'user-agent': 'curl/8.5 (x)' },
      })
      t.equal(r.statusCode, 201)
      const lines = out.lines()
      t.equal(lines.length, 1, lines.join('\n'))
      const line = parse_kv(lines[0]!)
      t.equal(line.name, 'http')
      t.equal(line.label, 'info')
      t.equal(line.msg, 'request')
      const p = pairs_of(lines[0]!)
      t.same(Object.keys(p), ['rid', 'method', 'path', 'route', 'status', 'duration_ms', 'ip', 'ua', 'bytes'])
      t.match(p, {
        rid: 'req-1',
        method: 'GET',
        path: '/items/7?page=2',
        route: '/items/{id}',
        status: '201',
        ip: '127.0.0.1',
        ua: 'curl/8.5 (x)',
        bytes: '11',
      })
      t.ok(Number(p.duration_ms) >= 0, `duration_ms is a number: ${p.duration_ms}`)
    },
  )

  t.test('JSON keeps status and duration_ms as numbers', async (t) => {
    const out = capture(t, 'json')
    const app = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: 'info' })
    await app.inject({ url: '/x', headers: { 'x-request-id': 'j-1' } })
    const rec = JSON.parse(out.lines()[0]!) as Record<string, unknown>
    t.match(rec, { level: 'info', msg: 'request', rid: 'j-1', method: 'GET', path: '/x', status: 200 })
    t.type(rec.duration_ms, 'number')
  })

  t.test('takes the client ip from X-Forwarded-For only behind a trusted proxy', async (t) => {
    const out = capture(t)
    const trusted = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), {
      access_log: 'info',
      trust_proxy: ['127.0.0.1'],
    })
    const open = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: 'info' })
    await trusted.inject({ url: '/x', headers: { 'x-forwarded-for': '203.0.113.9' } })
    await open.inject({ url: '/x', headers: { 'x-forwarded-for': '203.0.113.9' } })
    t.same(
      out.lines().map((l) => pairs_of(l).ip),
      ['203.0.113.9', '127.0.0.1'],
    )
  })

  t.test('not-found, 413 and malformed-JSON answers are logged too, with their status', async (t) => {
    const out = capture(t)
    const app = build(t, (app) => app.post('/p', (req, res) => void res.json('n', req.body().length)), {
      access_log: 'info',
      body_limit: 16,
    })
    t.equal((await app.inject({ url: '/nope' })).statusCode, 404)
    t.equal((await app.inject({ url: '/p', method: 'POST', payload: 'x'.repeat(64) })).statusCode, 413)
    t.same(
      out.lines().map((l) => pairs_of(l).status),
      ['404', '413'],
    )
  })

  t.test('written at the configured level, and not at all when it is below the logger level or false', async (t) => {
    const out = capture(t, 'kv', 'warn')
    const warn = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: 'warn' })
    const debug = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: 'debug' })
    const none = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: false })
    await warn.inject('/x')
    await debug.inject('/x')
    await none.inject('/x')
    const lines = out.lines()
    t.equal(lines.length, 1)
    t.equal(parse_kv(lines[0]!).label, 'warning')
  })

  t.test('with the level off when the app starts, it has no access line, even once the level is raised', async (t) => {
    const out = capture(t, 'kv', 'off')
    const app = build(
      t,
      (app) =>
        app.get('/x', (_req, res) => {
          log.info('inside')
          res.text('x')
        }),
      { access_log: 'info' },
    )
    await app.inject({ url: '/x', headers: { 'x-request-id': 'off-1' } })
    log.set_level('info')
    await app.inject({ url: '/x', headers: { 'x-request-id': 'off-2' } })
    t.same(out.lines().map(msg_and_rid), [['inside', 'off-2']])
  })

  t.test('FW_ACCESS_LOG wins over the option; a bad level is a startup error', async (t) => {
    const out = capture(t)
    set_env(t, { FW_ACCESS_LOG: 'off' })
    const app = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: 'info' })
    await app.inject('/x')
    t.equal(out.lines().length, 0)
    set_env(t, { FW_ACCESS_LOG: 'loud' })
    t.throws(() => build(t), { code: 'FW_ERR_CONFIG_BAD_VALUE', message: /FW_ACCESS_LOG/ })
  })
})

t.test('per-request context', async (t) => {
  t.test("two concurrent requests never see each other's request id", async (t) => {
    const out = capture(t)
    const first_in = gate()
    const second_done = gate()
    const app = build(t, (app) => {
      app.get('/a', async (_req, res) => {
        log.info('a before')
        first_in.open()
        await second_done.promise
        log.info('a after, ctx {}', log.context().request_id)
        res.text('a')
      })
      app.get('/b', async (_req, res) => {
        await first_in.promise
        log.info('b')
        await new Promise((resolve) => setImmediate(resolve))
        second_done.open()
        res.text(log.context().request_id)
      })
    })
    const [a, b] = await Promise.all([
      app.inject({ url: '/a', headers: { 'x-request-id': 'rid-a' } }),
      app.inject({ url: '/b', headers: { 'x-request-id': 'rid-b' } }),
    ])
    t.equal(a.body, 'a')
    t.equal(b.body, 'rid-b')
    t.same(out.lines().map(msg_and_rid), [
      ['a before', 'rid-a'],
      ['b', 'rid-b'],
      ['a after, ctx rid-a', 'rid-a'],
    ])
  })

  t.test('a generated id is the one echoed in x-request-id', async (t) => {
    const out = capture(t)
    const app = build(t, (app) =>
      app.get('/x', (_req, res) => {
        log.info('inside')
        res.text('x')
      }),
    )
    const r = await app.inject({ url: '/x', headers: { 'x-request-id': 'bad id with spaces' } })
    const rid = r.headers['x-request-id'] as string
    t.not(rid, 'bad id with spaces')
    t.equal(pairs_of(out.lines()[0]!).rid, rid)
  })

  t.test('the context ends with the request: code after inject sees none', async (t) => {
    capture(t)
    const app = build(t, (app) => app.get('/x', (_req, res) => void res.text(log.context().request_id)))
    const r = await app.inject({ url: '/x', headers: { 'x-request-id': 'scoped' } })
    t.equal(r.body, 'scoped')
    t.equal(log.context().request_id, '')
  })
})

t.test('handler errors and Fastify lines', async (t) => {
  t.test('a throwing handler is logged at error with its stack and request id; the answer has no stack', async (t) => {
    const out = capture(t)
    const app = build(t, (app) =>
      app.get('/boom', () => {
        throw new Error('kaboom')
      }),
    )
    const r = await app.inject({ url: '/boom', headers: { 'x-request-id': 'e-1' } })
    t.equal(r.statusCode, 500)
    t.notMatch(r.body, /kaboom|at /)
    const lines = out.lines()
    t.equal(lines.length, 1)
    const line = parse_kv(lines[0]!)
    t.equal(line.label, 'error')
    t.equal(line.name, 'fastify')
    const p = Object.fromEntries(line.pairs)
    t.equal(p.rid, 'e-1')
    t.match(p.err, /^Error: kaboom\n {4}at /)
  })

  t.test('an App started with the level off logs a failed handler once the level is raised', async (t) => {
    const out = capture(t, 'kv', 'off')
    const app = build(t, (app) =>
      app.get('/boom', async () => {
        await Promise.resolve()
        throw new Error('late kaboom')
      }),
    )
    t.equal((await app.inject({ url: '/boom', headers: { 'x-request-id': 'e-off' } })).statusCode, 500)
    log.set_level('info')
    t.equal((await app.inject({ url: '/boom', headers: { 'x-request-id': 'e-on' } })).statusCode, 500)
    const lines = out.lines().map(parse_kv)
    t.same(
      lines.map((l) => [l.name, l.msg, Object.fromEntries(l.pairs).rid]),
      [['fastify', 'handler failed', 'e-on']],
    )
  })

  t.test("app.fastify.log writes through fw/log with fw's level", async (t) => {
    const out = capture(t, 'kv', 'warn')
    const app = build(t)
    app.fastify.log.info('hidden')
    app.fastify.log.warn({ port: 1 }, 'shown')
    const lines = out.lines().map(parse_kv)
    t.same(
      lines.map((l) => [l.name, l.label, l.msg, l.pairs]),
      [['fastify', 'warning', 'shown', [['port', '1']]]],
    )
  })

  t.test(
    "requests share one Fastify logger (no child per request), while a plugin's child keeps its bindings",
    async (t) => {
      const out = capture(t, 'kv', 'warn')
      const request_logs: unknown[] = []
      const app = build(t, (app) =>
        app.get('/c', (req, res) => {
          request_logs.push((req.raw as unknown as { log: unknown }).log)
          res.text('c')
        }),
      )
      await app.inject('/c')
      await app.inject('/c')
      t.equal(request_logs[0], request_logs[1])
      app.fastify.log.child({ plugin: 'p1' }).warn('from a plugin')
      // A request id beside other bindings is a plugin's child like any other, not the per-request shortcut.
      app.fastify.log.child({ reqId: 'r1', job: 'sync' }).warn('from a job')
      t.same(
        out
          .lines()
          .map(parse_kv)
          .map((l) => [l.msg, l.pairs]),
        [
          ['from a plugin', [['plugin', 'p1']]],
          [
            'from a job',
            [
              ['reqId', 'r1'],
              ['job', 'sync'],
            ],
          ],
        ],
      )
    },
  )
})

t.test('secrets never reach a line', async (t) => {
  const out = capture(t, 'kv', 'trace')
  const app = build(
    t,
    (app) =>
      app.get('/s', (req, _res) => {
        throw new Error(`failed for ${req.path()}`)
      }),
    { access_log: 'info' },
  )
  const r = await app.inject({
    url: '/s?api_key=q-secret-1&API_KEY=q-secret-2&page=2',
    headers: { authorization: 'Bearer h-secret-3', cookie: 'sid=h-secret-4', 'x-api-key': 'h-secret-5' },
  })
  t.equal(r.statusCode, 500)
  const text = out.text()
  t.ok(text.length > 0)
  t.notMatch(text, /secret/)
  const access = out
    .lines()
    .map(parse_kv)
    .find((l) => l.name === 'http')!
  t.equal(Object.fromEntries(access.pairs).path, '/s?api_key=[redacted]&API_KEY=[redacted]&page=2')
})

t.test('async mode: every access line is in the file once close() resolves', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'fw-log-')), 'app.log')
  const saved_level = log.level()
  log.configure({ destination: file, format: 'json', level: 'info', async: true })
  t.teardown(() => log.configure({ destination: 1, format: 'kv', level: saved_level, async: false }))
  const app = build(t, (app) => app.get('/x/{n}', (_req, res) => void res.text('x')), { access_log: 'info' })
  for (let i = 0; i < 50; i++) await app.inject(`/x/${i}`)
  await app.close()
  const paths = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { path: string }).path)
  t.same(
    paths,
    Array.from({ length: 50 }, (_, i) => `/x/${i}`),
  )
})

t.test(
  'the access line hides the query parameter api_key middleware reads, whatever its name, and access_token',
  async (t) => {
    const out = capture(t)
    const app = build(
      t,
      (app) => {
        app.use(
          '/p',
          fw.middleware.app.adapt_ctx(fw.middleware.auth.api_key({ query_param: 'Sig', allowed_keys: ['k-secret-9'] })),
        )
        app.get('/p', (_req, res) => void res.text('ok'))
        app.get('/q', (_req, res) => void res.text('ok'))
      },
      { access_log: 'info' },
    )
    t.equal((await app.inject('/p?Sig=k-secret-9&page=1')).statusCode, 200)
    t.equal((await app.inject('/q?access_token=t-secret-8&SIG=k-secret-7')).statusCode, 200)
    t.notMatch(out.text(), /secret/)
    t.same(
      out.lines().map((l) => pairs_of(l).path),
      ['/p?Sig=[redacted]&page=1', '/q?access_token=[redacted]&SIG=[redacted]'],
    )
  },
)

t.test('AppOptions.logger is per App', async (t) => {
  t.test(
    'two Apps with different destinations, formats and pino options each write their own requests’ lines',
    async (t) => {
      const shared = capture(t)
      const a_out = new MemoryStream()
      const b_out = new MemoryStream()
      const routes = (app: fw.App): void =>
        void app.get('/x', (req, res) => {
          log.logf(log.LogLevel.Info, 'handled', 'password', 'hunter2', 'who', req.header('x-who'))
          res.text('x')
        })
      const a = build(t, routes, {
        access_log: 'info',
        logger: { destination: a_out, format: 'json', pino: { redact: ['password'] } },
      })
      const b = build(t, routes, { access_log: 'info', logger: { destination: b_out } })
      await Promise.all([
        a.inject({ url: '/x', headers: { 'x-who': 'a' } }),
        b.inject({ url: '/x', headers: { 'x-who': 'b' } }),
      ])
      const a_recs = a_out.lines().map((l) => JSON.parse(l) as Record<string, unknown>)
      t.match(a_recs, [
        { msg: 'handled', password: '[Redacted]', who: 'a' },
        { logger: 'http', msg: 'request', path: '/x' },
      ])
      t.equal(a_recs.length, 2)
      t.match(b_out.lines(), [
        /^\S+ \[fw\] \[info\] handled rid=\S+ password=hunter2 who=b$/,
        /^\S+ \[http\] \[info\] request /,
      ])
      t.equal(b_out.lines().length, 2)
      t.same(shared.lines(), [], 'nothing of either App reaches the process-wide destination')
      log.info('outside any request')
      t.match(shared.lines(), [/outside any request/])
      t.same([a_out.lines().length, b_out.lines().length], [2, 2])
    },
  )

  t.test(
    'an App without logger options writes where the process does, even after configure() changes it',
    async (t) => {
      const app = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { access_log: 'info' })
      await app.inject('/x')
      const out = capture(t)
      await app.inject('/x')
      t.equal(out.lines().length, 1)
    },
  )

  t.test('an App with only pino options follows the process destination and format', async (t) => {
    const out = capture(t, 'json')
    const app = build(
      t,
      (app) =>
        app.get('/x', (_req, res) => {
          log.logf(log.LogLevel.Info, 'in', 'token', 't0k')
          res.text('x')
        }),
      { logger: { pino: { redact: ['token'] } } },
    )
    await app.inject('/x')
    log.logf(log.LogLevel.Info, 'out', 'token', 't0k')
    t.match(
      out.lines().map((l) => JSON.parse(l) as unknown),
      [
        { msg: 'in', token: '[Redacted]' },
        { msg: 'out', token: 't0k' },
      ],
    )
  })

  t.test('the level is one per process: the last App built with a level sets it for every App', async (t) => {
    capture(t)
    const lines = { a: new MemoryStream(), b: new MemoryStream() }
    const routes = (app: fw.App): void =>
      void app.get('/x', (_req, res) => {
        log.debug('detail')
        res.text('x')
      })
    const a = build(t, routes, { logger: { level: 'warn', destination: lines.a } })
    t.equal(log.level(), 'warn')
    const b = build(t, routes, { logger: { level: 'debug', destination: lines.b } })
    t.equal(log.level(), 'debug')
    build(t, routes, { logger: { format: 'json' } })
    t.equal(log.level(), 'debug', 'an App without a level leaves it as it is')
    await a.inject('/x')
    await b.inject('/x')
    t.match(lines.a.lines(), [/\[debug\] detail/], 'the first App, built at warn, writes debug lines now')
    t.equal(lines.a.lines().length, 1)
    t.match(lines.b.lines(), [/\[debug\] detail/])
    t.equal(lines.b.lines().length, 1)
  })

  t.test('a bad logger option throws when the App is built', async (t) => {
    t.throws(() => new fw.App({ logger: { destination: -1 } }), { code: 'FW_ERR_LOG_BAD_DESTINATION' })
    t.throws(() => new fw.App({ logger: { format: 'xml' as 'json' } }), { code: 'FW_ERR_LOG_BAD_FORMAT' })
  })
})

t.test(
  'each App redacts the query parameters of its own middleware and options, not those of another App',
  async (t) => {
    const out = capture(t)
    const keyed = build(
      t,
      (app) => {
        app.use(
          fw.middleware.app.adapt_ctx(fw.middleware.auth.api_key({ query_param: 'ak', allowed_keys: ['k-secret-9'] })),
        )
        app.get('/p', (_req, res) => void res.text('ok'))
      },
      { access_log: 'info' },
    )
    const plain = build(t, (app) => app.get('/p', (_req, res) => void res.text('ok')), {
      access_log: 'info',
      secret_query_params: ['Ticket'],
    })
    t.equal((await keyed.inject('/p?ak=k-secret-9&ticket=visible')).statusCode, 200)
    t.equal((await plain.inject('/p?ak=shown&TICKET=t-secret-8&api_key=k-secret-7')).statusCode, 200)
    t.notMatch(out.text(), /secret/)
    t.same(
      out.lines().map((l) => pairs_of(l).path),
      ['/p?ak=[redacted]&ticket=visible', '/p?ak=shown&TICKET=[redacted]&api_key=[redacted]'],
    )
    t.same([...keyed.secret_query], [...log.SECRET_QUERY, 'ak'])
    t.same([...plain.secret_query], [...log.SECRET_QUERY, 'ticket'])
  },
)

t.test('the access line hides the query parameter a jwt middleware reads its token from', async (t) => {
  const out = capture(t)
  const app = build(
    t,
    (app) => {
      app.use(
        fw.middleware.app.adapt_ctx(
          fw.middleware.auth.jwt({ secret: 'a-secret-of-at-least-32-characters!', query_param: 'jwt' }),
        ),
      )
      app.get('/p', (_req, res) => void res.text('ok'))
    },
    { access_log: 'info' },
  )
  t.equal((await app.inject('/p?jwt=t-secret-6')).statusCode, 401)
  t.notMatch(out.text(), /secret/)
  t.same(
    out.lines().map((l) => pairs_of(l).path),
    ['/p?jwt=[redacted]'],
  )
})

t.test('secret_query_params must be a list of non-empty strings', async (t) => {
  t.throws(() => new fw.App({ secret_query_params: [''] }), {
    code: 'FW_ERR_CONFIG_BAD_VALUE',
    message: 'secret_query_params must be a list of non-empty strings; got [""]',
  })
})
