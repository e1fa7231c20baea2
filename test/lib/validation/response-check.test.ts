import t, { type Test } from 'tap'
import { gzipSync } from 'node:zlib'
import { Readable } from 'node:stream'
import { z } from 'zod'
import { HttpError, type App } from '../../../index.js'
import type { AppOptions } from '../../../lib/config.js'
import { compression } from '../../../lib/middleware/compression/compression.js'
import { field, schema } from '../../../lib/validation/index.js'
import { build, type Teardown } from '../../helpers/build.js'
import { Tree, tree_text } from '../../helpers/deep-tree.js'
import { capture_log } from '../../helpers/log.js'

const User = schema({
  ok: field.boolean().required(),
  user: field.object({ id: field.integer().required(), email: field.string().email().required() }).required(),
})
const NotFound = schema({ ok: field.boolean().required(), error: field.literal('no_user').required() })
const INVALID = '{"ok":false,"error":"response_invalid","message":"Internal Server Error"}'
const GOOD = { ok: true, user: { id: 1, email: 'a@example.com' } }
const BAD = { ok: true, user: { id: 1, email: 5 } }

/** An App whose routes answer `GOOD` or `BAD` (by `?bad`) against the schemas they declare; `NODE_ENV` set for its creation. */
function users(t: Teardown, options: AppOptions = {}, node_env?: string): App {
  const saved = process.env.NODE_ENV
  if (node_env === undefined) delete process.env.NODE_ENV
  else process.env.NODE_ENV = node_env
  try {
    return build(
      t,
      (app) => {
        app.get(
          '/users/{id}',
          { responses: { 200: User, 404: { description: 'none', body: NotFound } } },
          (req, res) => {
            if (req.param('id') === '0') throw new HttpError(404, 'user_not_found', 'User not found')
            res.header('set-cookie', 'seen=1').header('etag', '"v1"')
            res.json(req.query_value('bad', '') === '' ? GOOD : BAD)
          },
        )
        app.get('/async', { responses: { 200: User } }, async (_req, res) => {
          await Promise.resolve()
          res.json(BAD)
        })
        app.get('/created', { responses: { 200: User } }, (_req, res) => void res.status(201).json('any', 'thing'))
        app.get('/text', { responses: { 200: User } }, (_req, res) => void res.text('hello'))
        app.get('/nothing', { responses: { 200: User } }, () => {})
        app.get('/described', { responses: { 200: { description: 'no schema' } } }, (_req, res) => void res.json(BAD))
        app.get('/zod', { responses: { 200: z.object({ n: z.number() }) } }, (_req, res) => void res.json('n', 'x'))
        app.get('/stream', { responses: { 200: User } }, (_req, res) => void res.stream(Readable.from(['not json'])))
      },
      options,
    )
  } finally {
    if (saved === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = saved
  }
}

type Line = Record<string, unknown>
const errors_of = (lines: string[]): Line[] =>
  lines.map((l) => JSON.parse(l) as Line).filter((l) => l['level'] === 'error')

/** Exactly one error line per pattern, in order. */
function match_lines(t: Test, lines: Line[], patterns: Line[]): void {
  t.equal(lines.length, patterns.length, 'one line per mismatch')
  t.match(lines, patterns)
}

t.test('App check_responses', async (t) => {
  t.test('a mismatch answers 500 response_invalid and logs one line naming route, status and field', async (t) => {
    const out = capture_log(t, 'json')
    const app = users(t, { check_responses: true })
    const r = await app.inject({ url: '/users/1?bad=1', headers: { 'x-request-id': 'check-1' } })
    t.equal(r.statusCode, 500)
    t.equal(r.body, INVALID)
    t.equal(r.headers['content-type'], 'application/json; charset=utf-8')
    t.equal(r.headers['cache-control'], 'no-store')
    t.equal(r.headers['set-cookie'], undefined, "the failed body's cookie is dropped")
    t.equal(r.headers['etag'], undefined)
    t.equal(r.headers['x-request-id'], 'check-1')
    const lines = errors_of(out.lines())
    t.equal(lines.length, 1)
    t.match(lines[0], {
      logger: 'validation',
      msg: 'response does not match its schema',
      rid: 'check-1',
      route: 'GET /users/{id}',
      status: 200,
      field: 'user/email',
      why: 'email must be a string',
    })
    t.notOk(out.text().includes('"email":5'), 'the body itself is not logged')
  })

  t.test('a matching answer is sent byte for byte as with the check off', async (t) => {
    const on = await users(t, { check_responses: true }).inject({ url: '/users/1', headers: { 'x-request-id': 'a' } })
    const off = await users(t, { check_responses: false }).inject({ url: '/users/1', headers: { 'x-request-id': 'a' } })
    t.equal(on.statusCode, 200)
    t.equal(on.body, JSON.stringify(GOOD))
    t.same(on.rawPayload, off.rawPayload)
    const { date: _a, ...on_headers } = on.headers
    const { date: _b, ...off_headers } = off.headers
    t.same(on_headers, off_headers)
  })

  t.test('an async handler and an error answer are checked too', async (t) => {
    const out = capture_log(t, 'json')
    const app = users(t, { check_responses: true })
    const a = await app.inject({ url: '/async' })
    t.equal(a.statusCode, 500)
    t.equal(a.body, INVALID)
    // The HttpError's own 404 body contradicts the declared 404 schema (error must be `no_user`).
    const e = await app.inject({ url: '/users/0' })
    t.equal(e.statusCode, 500)
    t.equal(e.body, INVALID)
    match_lines(t, errors_of(out.lines()), [
      { route: 'GET /async', status: 200, field: 'user/email' },
      { route: 'GET /users/{id}', status: 404, field: 'error' },
    ])
  })

  t.test("a middleware's answer and an on_error answer are checked as the handler's are", async (t) => {
    const Refused = schema({ ok: field.literal(false).required(), reason: field.string().required() })
    const app = build(
      t,
      (app) => {
        app.use('/guarded', (req, res, next) =>
          req.header('x-key') === '' ? void res.error(401, 'no_key', 'Key required') : next(),
        )
        app.on_error((_err, _req, res) => void res.status(409).json('ok', false, 'reason', 7))
        app.get('/guarded', { responses: { 401: Refused, 409: Refused } }, () => {
          throw new Error('conflict')
        })
      },
      { check_responses: true },
    )
    const out = capture_log(t, 'json')
    const refused = await app.inject({ url: '/guarded' })
    t.equal(refused.statusCode, 500)
    t.equal(refused.body, INVALID)
    const mapped = await app.inject({ url: '/guarded', headers: { 'x-key': 'k' } })
    t.equal(mapped.statusCode, 500)
    t.equal(mapped.body, INVALID)
    match_lines(t, errors_of(out.lines()), [
      { route: 'GET /guarded', status: 401, field: 'reason', why: 'reason is required' },
      { route: 'GET /guarded', status: 409, field: 'reason', why: 'reason must be a string' },
    ])
  })

  t.test('a body that is not JSON, or none, contradicts a declared schema', async (t) => {
    const out = capture_log(t, 'json')
    const app = users(t, { check_responses: true })
    for (const url of ['/text', '/nothing']) {
      const r = await app.inject({ url })
      t.equal(r.statusCode, 500, url)
      t.equal(r.body, INVALID, url)
    }
    match_lines(t, errors_of(out.lines()), [
      { route: 'GET /text', field: '(body)', why: 'the body is empty or not JSON' },
      { route: 'GET /nothing', field: '(body)', why: 'the body is empty or not JSON' },
    ])
  })

  t.test('a Standard Schema names the failing field by its issue path', async (t) => {
    const out = capture_log(t, 'json')
    const r = await users(t, { check_responses: true }).inject({ url: '/zod' })
    t.equal(r.statusCode, 500)
    match_lines(t, errors_of(out.lines()), [{ route: 'GET /zod', status: 200, field: 'n' }])
  })

  t.test('statuses without a body schema, and streams, pass untouched', async (t) => {
    const out = capture_log(t, 'json')
    const app = users(t, { check_responses: true })
    const created = await app.inject({ url: '/created' })
    t.equal(created.statusCode, 201)
    t.equal(created.body, '{"any":"thing"}')
    const described = await app.inject({ url: '/described' })
    t.equal(described.statusCode, 200)
    t.equal(described.body, JSON.stringify(BAD))
    const stream = await app.inject({ url: '/stream' })
    t.equal(stream.statusCode, 200)
    t.equal(stream.body, 'not json')
    t.same(errors_of(out.lines()), [])
  })

  t.test('a compressed body is checked as sent before compression', async (t) => {
    const big = 'x'.repeat(2000)
    const app = build(
      t,
      (app) => {
        app.use(compression({ threshold: 100 }))
        app.get('/big', { responses: { 200: schema({ text: field.string().max_length(10).required() }) } }, (_q, res) =>
          res.json('text', big),
        )
        app.get('/fine', { responses: { 200: schema({ text: field.string().required() }) } }, (_q, res) =>
          res.json('text', big),
        )
      },
      { check_responses: true },
    )
    const out = capture_log(t, 'json')
    const bad = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip' } })
    t.equal(bad.statusCode, 500)
    t.equal(bad.headers['content-encoding'], undefined)
    t.equal(bad.body, INVALID)
    match_lines(t, errors_of(out.lines()), [{ route: 'GET /big', field: 'text' }])
    const fine = await app.inject({ url: '/fine', headers: { 'accept-encoding': 'gzip' } })
    t.equal(fine.statusCode, 200)
    t.equal(fine.headers['content-encoding'], 'gzip')
    t.same(fine.rawPayload, gzipSync(JSON.stringify({ text: big })))
  })

  t.test('the default follows NODE_ENV; an explicit option wins', async (t) => {
    const cases: Array<[string | undefined, boolean | undefined, number]> = [
      ['production', undefined, 200],
      [undefined, undefined, 200],
      ['test', false, 200],
      ['production', true, 500],
      ['test', undefined, 500],
      ['development', undefined, 500],
    ]
    for (const [env, option, status] of cases) {
      const options = option === undefined ? {} : { check_responses: option }
      const r = await users(t, options, env).inject({ url: '/users/1?bad=1' })
      const name = `NODE_ENV=${env ?? '(unset)'} check_responses=${String(option)}`
      t.equal(r.statusCode, status, name)
      t.equal(r.body, status === 200 ? JSON.stringify(BAD) : INVALID, name)
    }
  })

  t.test('off, no route carries a check; on, only routes with a body schema do', async (t) => {
    const routes = (options: AppOptions) =>
      build(
        t,
        (app) => {
          app.get('/schema', { responses: { 200: User } }, (_q, res) => void res.json(GOOD))
          app.get('/plain', (_q, res) => void res.json(GOOD))
          app.get('/described', { responses: { 200: { description: 'ok' } } }, (_q, res) => void res.json(GOOD))
        },
        options,
      ).compile().routes
    const on = routes({ check_responses: true })
    t.same(
      on.map((r) => [r.method, r.url, typeof r.check]),
      [
        ['GET', '/schema', 'function'],
        ['GET', '/plain', 'undefined'],
        ['GET', '/described', 'undefined'],
        ['OPTIONS', '/schema', 'undefined'],
        ['OPTIONS', '/plain', 'undefined'],
        ['OPTIONS', '/described', 'undefined'],
      ],
    )
    t.ok(routes({ check_responses: false }).every((r) => r.check === undefined))
  })

  t.test('a value that is not a boolean is refused when the App is made', async (t) => {
    for (const value of ['yes', 1, null]) {
      t.throws(() => build(t, () => {}, { check_responses: value as unknown as boolean }), {
        code: 'FW_ERR_CONFIG_BAD_VALUE',
        message: `check_responses must be true or false; got ${JSON.stringify(value)}`,
      })
    }
  })
})

t.test(
  'check_responses: an answer nested deeper than the stack allows answers 500 response_invalid, logged',
  async (t) => {
    // Heavy levels: the stack runs out before max_depth (test/helpers/deep-tree.ts).
    const out = capture_log(t, 'json')
    const app = build(
      t,
      (app) => {
        app.get(
          '/trees/{levels}',
          { responses: { 200: schema({ tree: Tree }) } },
          (req, res) =>
            void res.header('content-type', 'application/json').send(tree_text(Number(req.param('levels')))),
        )
      },
      { check_responses: true },
    )
    const ok = await app.inject({ url: '/trees/3' })
    t.equal(ok.statusCode, 200)
    for (const levels of [2000, 20000]) {
      const r = await app.inject({ url: `/trees/${levels}` })
      t.equal(r.statusCode, 500, `${levels} levels`)
      t.equal(r.body, INVALID)
    }
    const lines = errors_of(out.lines())
    t.equal(lines.length, 2, 'one line per answer, no crash line')
    for (const line of lines) {
      t.match(line, {
        logger: 'validation',
        msg: 'response does not match its schema',
        route: 'GET /trees/{levels}',
        status: 200,
        field: /^tree(\/kids\/a\/0)+$/,
        why: /^kids value item is nested deeper than \d+ levels$/,
      })
    }
  },
)
