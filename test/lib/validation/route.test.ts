import t from 'tap'
import { expectTypeOf } from 'expect-type'
import { type } from 'arktype'
import * as v from 'valibot'
import { z } from 'zod'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { HttpError, type Middleware } from '../../../index.js'
import { field, schema, ValidationFailed, type AnySchema } from '../../../lib/validation/index.js'
import { build } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'
import { THENABLE_KINDS } from '../../helpers/thenable.js'
import { Rows, empty_rows } from './rows.js'

const Order = schema({
  customer: field.object({ email: field.string().required().email(), name: field.string() }).required(),
  items: field
    .array(field.object({ sku: field.string().required(), qty: field.integer().required().min(1) }).required())
    .required(),
})
const Page = schema({ page: field.integer().min(1).default(1), tag: field.array(field.string()), on: field.boolean() })
const Id = schema({ id: field.integer().required() })

const post = (app: ReturnType<typeof build>, url: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json' },
  })

t.test('Route schemas', async (t) => {
  const calls: string[] = []
  const app = build(t, (app) => {
    const refuse: Middleware = (req, res, next) =>
      req.header('x-refuse') ? void res.error(401, 'unauthorized', 'no') : next()
    app.use('/orders', refuse)
    app.post('/orders', { body: Order }, (req, res) => {
      calls.push('order')
      const body = req.valid('body')
      expectTypeOf(body.items).toEqualTypeOf<{ sku: string; qty: number }[]>()
      res.status(201).json('ok', true, 'count', body.items.length, 'body', body)
    })
    app.get('/things/{id}', { params: Id, query: Page }, (req, res) => {
      expectTypeOf(req.valid('params').id).toEqualTypeOf<number>()
      expectTypeOf(req.valid('query').page).toEqualTypeOf<number>()
      // @ts-expect-error: the route has no body schema
      req.valid('body')
      // @ts-expect-error: the path has no parameter named idd
      req.param('idd')
      res.json('id', req.valid('params').id, 'raw', req.param('id'), 'query', req.valid('query'))
    })
    app.post(
      '/strict',
      { body: schema({ a: field.integer() }).strict() },
      (req, res) => void res.json(req.valid('body')),
    )
    app.post(
      '/throws',
      {
        body: schema({
          n: field.integer().check(() => {
            throw new Error('refinement bug')
          }, 'x'),
        }),
      },
      (_req, res) => void res.json('ok', true),
    )
    app.post('/zod', { body: z.object({ name: z.string().min(2), tags: z.array(z.string()).max(2) }) }, (req, res) => {
      expectTypeOf(req.valid('body')).toEqualTypeOf<{ name: string; tags: string[] }>()
      res.json(req.valid('body'))
    })
    app.group('/users/{uid}', (g) =>
      g.get('/posts/{pid}/*', (req, res) => {
        expectTypeOf<Parameters<typeof req.param>[0]>().toEqualTypeOf<'uid' | 'pid' | '*'>()
        res.json('uid', req.param('uid'), 'pid', req.param('pid'), 'rest', req.param('*'))
      }),
    )
    app.get(
      '/headers',
      { headers: schema({ 'x-count': field.integer().required() }) },
      (req, res) => void res.json(req.valid('headers')),
    )
    app.get(
      '/mixed-headers',
      { headers: schema({ 'X-Count': field.integer().required(), 'X-Tag': field.string() }) },
      (req, res) => void res.json(req.valid('headers')),
    )
    app.get('/defaults', { query: schema({ tag: field.array(field.string()).default([]) }) }, (req, res) => {
      const { tag } = req.valid('query')
      tag.push('seen')
      res.json('tag', tag)
    })
  })

  t.test(
    'an invalid body answers 400 validation_failed with nested field paths, and the handler never runs',
    async (t) => {
      const r = await post(app, '/orders', {
        customer: { email: 'nope' },
        items: [
          { sku: 'a', qty: 1 },
          { sku: 'b', qty: 1 },
          { sku: 'c', qty: '2' },
        ],
      })
      t.equal(r.statusCode, 400)
      t.same(r.json(), {
        ok: false,
        error: 'validation_failed',
        message: 'email must be a valid email address',
        errors: [
          { field: 'customer/email', code: 'Email', message: 'email must be a valid email address' },
          { field: 'items/2/qty', code: 'Type', message: 'qty must be an integer' },
        ],
      })
      t.same(calls, [])
    },
  )

  t.test('a valid body reaches the handler as the validated value, unknown keys stripped', async (t) => {
    const r = await post(app, '/orders', {
      customer: { email: 'a@example.com', x: 1 },
      items: [{ sku: 'a', qty: 2 }],
      y: 2,
    })
    t.equal(r.statusCode, 201)
    t.same(r.json().body, { customer: { email: 'a@example.com' }, items: [{ sku: 'a', qty: 2 }] })
  })

  t.test("the route's middleware answers before validation", async (t) => {
    const r = await app.inject({ method: 'POST', url: '/orders', payload: 'not json', headers: { 'x-refuse': '1' } })
    t.equal(r.statusCode, 401)
    t.equal(r.json().error, 'unauthorized')
  })

  t.test('no body, bad JSON and a JSON array answer Expected JSON object', async (t) => {
    for (const payload of ['', '{bad', '[1]']) {
      const r = await post(app, '/orders', payload)
      t.equal(r.statusCode, 400)
      t.same(r.json().errors, [{ field: '', code: 'Type', message: 'Expected JSON object' }], JSON.stringify(payload))
    }
  })

  t.test('a valid JSON body without a JSON media type answers Expected JSON object, the handler not run', async (t) => {
    const valid = JSON.stringify({ customer: { email: 'a@example.com' }, items: [{ sku: 'a', qty: 1 }] })
    const before = calls.length
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'text/plain;charset=UTF-8' }, {}]) {
      const r = await app.inject({ method: 'POST', url: '/orders', payload: valid, headers })
      t.equal(r.statusCode, 400, JSON.stringify(headers))
      t.same(
        r.json(),
        {
          ok: false,
          error: 'validation_failed',
          message: 'Expected JSON object',
          errors: [{ field: '', code: 'Type', message: 'Expected JSON object' }],
        },
        JSON.stringify(headers),
      )
    }
    t.equal(calls.length, before, 'the handler never ran')
    const ok = await app.inject({
      method: 'POST',
      url: '/orders',
      payload: valid,
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
    })
    t.equal(ok.statusCode, 201, 'a +json type is validated as JSON')
  })

  t.test('numbers as strings and strings as numbers are refused in a body', async (t) => {
    const r = await post(app, '/orders', {
      customer: { email: 'a@example.com', name: 7 },
      items: [{ sku: 5, qty: '1' }],
    })
    t.same(r.json().errors, [
      { field: 'customer/name', code: 'Type', message: 'name must be a string' },
      { field: 'items/0/sku', code: 'Type', message: 'sku must be a string' },
      { field: 'items/0/qty', code: 'Type', message: 'qty must be an integer' },
    ])
  })

  t.test('query and params are coerced from strings; their errors are prefixed with the part', async (t) => {
    const ok = await app.inject({ url: '/things/42?tag=a&tag=b&on=true' })
    t.same(ok.json(), { id: 42, raw: '42', query: { page: 1, tag: ['a', 'b'], on: true } })
    const bad = await app.inject({ url: '/things/x?page=0&on=maybe' })
    t.equal(bad.statusCode, 400)
    t.same(bad.json().errors, [
      { field: 'query/page', code: 'Min', message: 'page must be at least 1' },
      { field: 'query/on', code: 'Type', message: 'on must be a boolean' },
      { field: 'params/id', code: 'Type', message: 'id must be an integer' },
    ])
  })

  t.test('an empty query value (a form left blank: `?page=&on=`) is missing: defaults apply', async (t) => {
    const r = await app.inject({ url: '/things/42?page=&on=' })
    t.equal(r.statusCode, 200, r.body)
    t.same(r.json().query, { page: 1 })
  })

  t.test(
    'the same query key 10,000 times is an array where the schema wants one, and refused where it does not',
    async (t) => {
      const tags = Array.from({ length: 10_000 }, (_, i) => `tag=t${i}`).join('&')
      const many = await app.inject({ url: `/things/1?${tags}` })
      t.equal(many.statusCode, 200)
      t.equal(many.json().query.tag.length, 10_000)
      const pages = Array.from({ length: 10_000 }, () => 'page=2').join('&')
      const refused = await app.inject({ url: `/things/1?${pages}` })
      t.same(refused.json().errors, [{ field: 'query/page', code: 'Type', message: 'page must be an integer' }])
    },
  )

  t.test('path parameter names of groups and routes are typed together', async (t) => {
    t.same((await app.inject({ url: '/users/1/posts/2/a/b' })).json(), { uid: '1', pid: '2', rest: 'a/b' })
  })

  t.test('headers are validated and coerced', async (t) => {
    t.same((await app.inject({ url: '/headers', headers: { 'x-count': '3' } })).json(), { 'x-count': 3 })
    t.same((await app.inject({ url: '/headers' })).json().errors, [
      { field: 'headers/x-count', code: 'Required', message: 'x-count is required' },
    ])
  })

  t.test('header names are case-insensitive: a schema may name them as they are written', async (t) => {
    const r = await app.inject({ url: '/mixed-headers', headers: { 'x-count': '3', 'x-tag': 'a' } })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { 'X-Count': 3, 'X-Tag': 'a' })
    const missing = await app.inject({ url: '/mixed-headers', headers: { 'x-tag': 'a' } })
    t.same(missing.json().errors, [{ field: 'headers/X-Count', code: 'Required', message: 'X-Count is required' }])
  })

  t.test('a header array field is its comma-separated values, repeated or not, as the document says', async (t) => {
    const app = build(t, (app) =>
      app.get(
        '/lists',
        {
          headers: schema({
            'x-tag': field.array(field.string()),
            'X-Ids': field.array(field.integer()).max_items(3),
            'x-one': field.string(),
          }),
        },
        (req, res) => void res.json(req.valid('headers')),
      ),
    )
    const get = async (headers: Record<string, string | string[]>) =>
      (await app.inject({ url: '/lists', headers })).json()
    // Node joins a repeated header with ", " before any validator sees it; OpenAPI's `simple` style is a comma list.
    t.same(await get({ 'x-tag': ['a', 'b'] }), { 'x-tag': ['a', 'b'] })
    t.same(await get({ 'x-tag': 'a,b , c' }), { 'x-tag': ['a', 'b', 'c'] })
    t.same(await get({ 'x-tag': 'a, ,b,' }), { 'x-tag': ['a', 'b'] }, 'empty elements are ignored (RFC 9110 5.6.1)')
    t.same(await get({ 'x-ids': '1, 2' }), { 'X-Ids': [1, 2] }, 'items are coerced; a declared spelling is kept')
    t.same((await get({ 'x-ids': ['1', '2, 3', '4'] })).errors, [
      { field: 'headers/X-Ids', code: 'MaxLength', message: 'X-Ids must have at most 3 items' },
    ])
    t.same(await get({ 'x-one': 'a, b' }), { 'x-one': 'a, b' }, 'a header that is not an array stays whole')
    t.same(await get({ 'x-tag': ' , ' }), {}, 'a list of no element is missing')
    t.same(await get({}), {})
  })

  t.test('a path parameter array field is its comma-separated items (style simple)', async (t) => {
    const app = build(t, (app) => {
      app.get(
        '/items/{ids}',
        { params: schema({ ids: field.array(field.integer()).required().max_items(3) }) },
        (req, res) => void res.json(req.valid('params')),
      )
      app.get(
        '/tags/{tags}/of/{one}',
        { params: schema({ tags: field.array(field.string()).required(), one: field.string().required() }) },
        (req, res) => void res.json(req.valid('params')),
      )
      app.get(
        '/w/*',
        { params: schema({ '*': field.array(field.string()).required() }) },
        (req, res) => void res.json(req.valid('params')),
      )
    })
    const get = async (url: string) => (await app.inject({ url })).json()
    t.same(await get('/items/1,2'), { ids: [1, 2] })
    t.same(await get('/items/7'), { ids: [7] })
    t.same((await get('/items/1,x')).errors, [
      { field: 'params/ids/1', code: 'Type', message: 'ids item must be an integer' },
    ])
    t.same((await get('/items/1,2,3,4')).errors, [
      { field: 'params/ids', code: 'MaxLength', message: 'ids must have at most 3 items' },
    ])
    t.same((await get('/items/,')).errors, [{ field: 'params/ids', code: 'Required', message: 'ids is required' }])
    t.same(await get('/tags/a,,b/of/x,y'), { tags: ['a', 'b'], one: 'x,y' }, 'a parameter not an array is whole')
    t.same(await get('/tags/a%20b,%C3%A9/of/1'), { tags: ['a b', 'é'], one: '1' }, 'items decoded, spaces kept')
    // The router decodes the parameter before fw reads it: a comma sent as %2C separates items too.
    t.same(await get('/tags/a%2Cb,c/of/1'), { tags: ['a', 'b', 'c'], one: '1' })
    t.same(await get('/w/a,b/c'), { '*': ['a', 'b/c'] }, 'the wildcard')
  })

  t.test('a default array is new for each request: a handler changing it changes no later request', async (t) => {
    t.same((await app.inject({ url: '/defaults' })).json(), { tag: ['seen'] })
    t.same((await app.inject({ url: '/defaults' })).json(), { tag: ['seen'] })
  })

  t.test('unknown keys are refused by a strict schema', async (t) => {
    const r = await post(app, '/strict', { a: 1, b: 2 })
    t.same(r.json().errors, [{ field: 'b', code: 'Unknown', message: 'b is not allowed' }])
  })

  t.test('__proto__ and constructor keys at every level never pollute', async (t) => {
    const r = await post(
      app,
      '/orders',
      '{"__proto__":{"x":1},"constructor":{"prototype":{"x":1}},"customer":{"email":"a@example.com","__proto__":{"x":1}},"items":[{"sku":"a","qty":1,"__proto__":{"x":1},"constructor":{"prototype":{"x":1}}}]}',
    )
    t.equal(r.statusCode, 201)
    t.same(r.json().body, { customer: { email: 'a@example.com' }, items: [{ sku: 'a', qty: 1 }] })
    t.equal(({} as Record<string, unknown>)['x'], undefined)
  })

  t.test('a body nested 1,000 deep and a huge array answer 400 without a crash', async (t) => {
    const deep = '{"customer":'.repeat(1000) + '1' + '}'.repeat(1000)
    const r = await post(app, '/orders', deep)
    t.equal(r.statusCode, 400)
    t.same(
      r.json().errors,
      [
        { field: 'customer/email', code: 'Required', message: 'email is required' },
        { field: 'items', code: 'Required', message: 'items is required' },
      ],
      'the schema reads one level; the rest of the depth is an unknown key, dropped unread',
    )
    const huge = { customer: { email: 'a@example.com' }, items: Array.from({ length: 50_000 }, () => ({ sku: 1 })) }
    const h = await post(app, '/orders', huge)
    t.equal(h.statusCode, 400)
    t.equal(h.json().errors.length, 100)
  })

  t.test('a refinement that throws answers 500 and is logged; the process lives on', async (t) => {
    const out = capture_log(t)
    const r = await post(app, '/throws', { n: 1 })
    t.equal(r.statusCode, 500)
    t.equal(r.json().error, 'internal_error')
    t.match(out.text(), /refinement bug/)
  })

  t.test('a Standard Schema (zod 4) validates like an fw schema', async (t) => {
    const bad = await post(app, '/zod', { name: 'a', tags: ['x', 'y', 'z'] })
    t.equal(bad.statusCode, 400)
    t.same(
      bad.json().errors.map((e: { field: string }) => e.field),
      ['name', 'tags'],
    )
    t.same((await post(app, '/zod', { name: 'ab', tags: [] })).json(), { name: 'ab', tags: [] })
  })
})

/** A plain JSON Schema, which routes do not take (the types refuse it too). */
const JSON_SCHEMA = { type: 'object' } as unknown as AnySchema

t.test('Route schemas from Standard Schema libraries', async (t) => {
  const app = build(t, (app) => {
    app.post('/zod', { body: z.object({ name: z.string().min(2) }) }, (req, res) => res.json(req.valid('body')))
    app.post('/valibot', { body: v.object({ name: v.pipe(v.string(), v.minLength(2)) }) }, (req, res) =>
      res.json(req.valid('body')),
    )
    app.post('/arktype', { body: type({ name: 'string >= 2' }) }, (req, res) => res.json(req.valid('body')))
    app.get('/arktype', { query: type({ page: 'string.integer.parse' }) }, (req, res) =>
      res.json('page', req.valid('query').page),
    )
  })

  for (const lib of ['zod', 'valibot', 'arktype']) {
    t.test(`a ${lib} schema validates a body, with the field of each issue`, async (t) => {
      t.same((await post(app, `/${lib}`, { name: 'ab' })).json(), { name: 'ab' })
      const bad = await post(app, `/${lib}`, { name: 'a' })
      t.equal(bad.statusCode, 400)
      t.equal(bad.json().error, 'validation_failed')
      t.same(
        bad.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['name', 'Custom']],
      )
    })
  }

  t.test("a Standard Schema issue's path escapes '/' and '~' in a key, as an fw schema's field does", async (t) => {
    const app = build(t, (app) => {
      app.post('/zod-keys', { body: z.object({ tags: z.record(z.string(), z.number()) }) }, (_req, res) =>
        res.json('ok', true),
      )
      app.post('/fw-keys', { body: schema({ tags: field.record(field.number()) }) }, (_req, res) =>
        res.json('ok', true),
      )
    })
    const fields = async (url: string) =>
      (await post(app, url, { tags: { 'a/b': 'x', '~': 'y' } })).json().errors.map((e: { field: string }) => e.field)
    t.same(await fields('/fw-keys'), ['tags/a~1b', 'tags/~0'])
    t.same(await fields('/zod-keys'), ['tags/a~1b', 'tags/~0'])
  })

  t.test('a body whose array items each fail several fields answers at most 100 errors', async (t) => {
    const app = build(t, (app) => {
      app.post('/rows', { body: Rows }, (_req, res) => res.json('ok', true))
    })
    const r = await post(app, '/rows', empty_rows())
    t.equal(r.statusCode, 400)
    t.equal(r.json().errors.length, 100)
  })

  t.test('an arktype type (a function) validates a query string with its own parsing', async (t) => {
    t.same((await app.inject({ url: '/arktype?page=3' })).json(), { page: 3 })
    const bad = await app.inject({ url: '/arktype?page=x' })
    t.equal(bad.statusCode, 400)
    t.same(
      bad.json().errors.map((e: { field: string }) => e.field),
      ['query/page'],
    )
  })

  t.test('anything else is refused at registration with FW_ERR_VALIDATION_BAD_OPTION', async (t) => {
    const app = build(t)
    const expected = 'an fw schema or a Standard Schema (a value whose "~standard" has a validate function)'
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['body', { body: { type: 'object' } }, 'body', 'an object'],
      ['query', { query: () => true }, 'query', 'a function'],
      ['params', { params: 'id' }, 'params', '"id"'],
      ['headers', { headers: { '~standard': { version: 1 } } }, 'headers', 'an object'],
    ]
    for (const [name, schema, option, got] of cases)
      t.throws(() => app.route('POST', `/${name}`, schema, (_req, res) => res.json('ok', true)), {
        code: 'FW_ERR_VALIDATION_BAD_OPTION',
        message: `POST /${name}: ${option} must be ${expected}; got ${got}`,
      })
    t.throws(
      () => app.get('/answer', { responses: { 200: { body: JSON_SCHEMA } } }, (_req, res) => res.json('ok', true)),
      {
        code: 'FW_ERR_VALIDATION_BAD_OPTION',
        message: `GET /answer: responses[200] must be ${expected}, { description, body? }, or false; got an object`,
      },
    )
  })

  t.test(
    'a query, params or headers field that is an object is refused with FW_ERR_VALIDATION_FLAT_PART',
    async (t) => {
      const app = build(t)
      const Filter = field.object({ a: field.string() })
      const QUERY = 'no query string gives (it is flat: `?a[b]=1` is the key "a[b]")'
      const ONE = (what: string) => `no ${what} gives (it is one string)`
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['query', { query: schema({ filter: Filter }) }, `query field "filter" is an object, which ${QUERY}`],
        [
          'params',
          { params: schema({ id: Filter.required() }) },
          `params field "id" is an object, which ${ONE('path parameter')}`,
        ],
        [
          'headers',
          { headers: schema({ 'x-meta': field.record(field.string()) }) },
          `headers field "x-meta" is a record, which ${ONE('header')}`,
        ],
        [
          'union',
          { query: schema({ u: field.union('k', [field.object({ k: field.literal('a') })]) }) },
          `query field "u" is a union, which ${QUERY}`,
        ],
        [
          'items',
          { query: schema({ f: field.array(Filter).default([]) }) },
          `query field "f" is an array of objects, which ${QUERY}`,
        ],
      ]
      for (const [name, route, why] of cases)
        t.throws(() => app.route('GET', `/${name}/{id}`, route, (_req, res) => res.json('ok', true)), {
          code: 'FW_ERR_VALIDATION_FLAT_PART',
          message: `GET /${name}/{id}: ${why}; declare strings, numbers, booleans, enums or arrays of them`,
        })
      t.throws(
        () =>
          app.get('/doc', { query: schema({ filter: Filter }), validate: false }, (_req, res) => res.json('ok', true)),
        { code: 'FW_ERR_VALIDATION_FLAT_PART' },
        'a route that only documents is refused too: the document would describe an object parameter',
      )
      // A whole part may still be a record: the query string is an object of flat keys.
      t.doesNotThrow(() =>
        app.get('/flat', { query: field.record(field.string()) }, (_req, res) => res.json('ok', true)),
      )
    },
  )

  t.test('a schema that only documents (validate: false) is checked too', async (t) => {
    const app = build(t)
    t.throws(() => app.post('/doc', { body: JSON_SCHEMA, validate: false }, (_req, res) => res.json('ok', true)), {
      code: 'FW_ERR_VALIDATION_BAD_OPTION',
    })
  })
})

t.test('a failed route schema reaches on_error as a ValidationFailed', async (t) => {
  const Article = schema({
    title: field.string().required('title is required'),
    body: field.string().required('body is required').min_length(3, 'body is too short'),
  })
  const seen: unknown[] = []
  const app = build(t, (app) => {
    app.use(async (_req, res, next) => {
      res.header('x-before', '1')
      await next()
    })
    app.group('/api', (api) => {
      // RealWorld's answer for invalid input: 422 {"errors":{"body":[...]}}.
      api.on_error((err, _req, res) => {
        seen.push(err)
        if (err instanceof ValidationFailed)
          res.status(422).json({ errors: { body: err.errors.map((e) => `${e.field} ${e.message}`) } })
      })
      api.post('/articles', { body: Article }, (req, res) => res.status(201).json('title', req.valid('body').title))
      api.get('/search', { query: z.object({ q: z.string().min(2, 'q is too short') }) }, (_req, res) =>
        res.json('ok', true),
      )
    })
    app.group('/plain', (plain) => {
      plain.on_error(() => {})
      plain.post('/articles', { body: Article }, (_req, res) => res.status(201).json('ok', true))
    })
    app.post('/unmapped', { body: Article }, (_req, res) => res.status(201).json('ok', true))
  })

  t.test('on_error answers it in a shape of its own, with the middleware headers', async (t) => {
    seen.length = 0
    const r = await app.inject({ method: 'POST', url: '/api/articles', payload: { body: 'x' } })
    t.equal(r.statusCode, 422)
    t.same(r.json(), { errors: { body: ['title title is required', 'body body is too short'] } })
    t.equal(r.headers['x-before'], '1')
    t.equal(seen.length, 1)
    const err = seen[0] as ValidationFailed
    t.ok(err instanceof ValidationFailed)
    t.ok(err instanceof HttpError)
    t.equal(err.status, 400)
    t.equal(err.code, 'validation_failed')
    t.equal(err.message, 'title is required')
    t.same(err.errors, [
      { field: 'title', code: 'Required', message: 'title is required' },
      { field: 'body', code: 'MinLength', message: 'body is too short' },
    ])
  })

  t.test('a Standard Schema failure reaches it too', async (t) => {
    const r = await app.inject({ url: '/api/search?q=a' })
    t.equal(r.statusCode, 422)
    t.same(r.json(), { errors: { body: ['query/q q is too short'] } })
  })

  t.test('a valid request still reaches the handler', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/api/articles', payload: { title: 'T', body: 'long' } })
    t.equal(r.statusCode, 201)
    t.same(r.json(), { title: 'T' })
  })

  t.test('left unanswered, and without on_error, it keeps its 400 validation_failed body', async (t) => {
    const expected = {
      ok: false,
      error: 'validation_failed',
      message: 'title is required',
      errors: [{ field: 'title', code: 'Required', message: 'title is required' }],
    }
    for (const url of ['/plain/articles', '/unmapped']) {
      const r = await app.inject({ method: 'POST', url, payload: { body: 'long' } })
      t.equal(r.statusCode, 400, url)
      t.same(r.json(), expected, url)
    }
  })
})

t.test('null in a body is a value: only a nullable field takes it', async (t) => {
  const Profile = schema({
    name: field.string(),
    age: field.integer(),
    tags: field.array(field.string()),
    address: field.object({ city: field.string() }),
    role: field.enum(['user', 'admin']),
    bio: field.string().nullable(),
    email: field.string().required(),
    lang: field.string().default('en'),
  })
  const app = build(
    t,
    (app) => {
      app.post('/profile', { body: Profile }, (req, res) => void res.json(req.valid('body')))
      app.get(
        '/profile',
        { responses: { 200: Profile } },
        (_req, res) => void res.json('email', 'a@example.com', 'name', null),
      )
      app.openapi({ info: { title: 'Profiles', version: '1.0.0' } })
    },
    { check_responses: true },
  )

  t.test('an optional field sent null answers 400 as a wrong type does', async (t) => {
    const r = await post(app, '/profile', { email: 'a', name: null })
    t.equal(r.statusCode, 400)
    t.same(r.json(), {
      ok: false,
      error: 'validation_failed',
      message: 'name must be a string',
      errors: [{ field: 'name', code: 'Type', message: 'name must be a string' }],
    })
    t.same(
      (await post(app, '/profile', { email: 'a', name: 7 })).json().errors,
      r.json().errors,
      'the very answer a number gets',
    )
  })

  t.test('every kind of optional field refuses null with its own type error', async (t) => {
    const r = await post(app, '/profile', { email: 'a', age: null, tags: null, address: null, role: null })
    t.equal(r.statusCode, 400)
    t.same(r.json().errors, [
      { field: 'age', code: 'Type', message: 'age must be an integer' },
      { field: 'tags', code: 'Type', message: 'tags must be an array' },
      { field: 'address', code: 'Type', message: 'address must be an object' },
      { field: 'role', code: 'Enum', message: 'role must be one of user, admin' },
    ])
  })

  t.test('a nested optional field sent null is refused at its path', async (t) => {
    const r = await post(app, '/profile', { email: 'a', address: { city: null } })
    t.equal(r.statusCode, 400)
    t.same(r.json().errors, [{ field: 'address/city', code: 'Type', message: 'city must be a string' }])
  })

  t.test(
    'a nullable field keeps null, a required one answers Required, a defaulted one takes its default',
    async (t) => {
      const ok = await post(app, '/profile', { email: 'a', bio: null, lang: null })
      t.equal(ok.statusCode, 200)
      t.same(ok.json(), { email: 'a', bio: null, lang: 'en' })
      const missing = await post(app, '/profile', { email: null })
      t.equal(missing.statusCode, 400)
      t.same(missing.json().errors, [{ field: 'email', code: 'Required', message: 'email is required' }])
    },
  )

  t.test('the OpenAPI document admits null for the nullable field only, as the validator does', async (t) => {
    const doc = (await app.inject({ url: '/openapi.json' })).json()
    const props = doc.paths['/profile'].post.requestBody.content['application/json'].schema.properties
    t.same(props.name, { type: 'string' })
    t.same(props.bio, { anyOf: [{ type: 'string' }, { type: 'null' }] })
  })

  t.test('an answer with null in an optional field contradicts its schema (check_responses)', async (t) => {
    const r = await app.inject({ url: '/profile' })
    t.equal(r.statusCode, 500)
    t.same(r.json(), { ok: false, error: 'response_invalid', message: 'Internal Server Error' })
  })
})

t.test('a Standard Schema that answers with any thenable, not only a native Promise', async (t) => {
  /** A Standard Schema of `{ n: number }` whose result comes later, in a thenable made by `later`. */
  const later_schema = (later: (work: () => StandardSchemaV1.Result<unknown>) => PromiseLike<unknown>): AnySchema => ({
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value: unknown) =>
        later(() =>
          typeof (value as { n?: unknown } | null)?.n === 'number'
            ? { value: { n: (value as { n: number }).n * 2 } }
            : { issues: [{ message: 'n must be a number', path: ['n'] }] },
        ) as never,
    },
  })
  for (const [kind, later] of Object.entries(THENABLE_KINDS)) {
    t.test(
      `${kind}: a valid body reaches the handler with the validated value, an invalid one answers 400`,
      async (t) => {
        const app = build(t, (app) => {
          app.post(
            '/n',
            { body: later_schema(later) },
            (req, res) => void res.json('n', (req.valid('body') as { n: number }).n),
          )
        })
        const good = await post(app, '/n', { n: 2 })
        t.equal(good.statusCode, 200)
        t.same(good.json(), { n: 4 })
        const bad = await post(app, '/n', { n: 'x' })
        t.equal(bad.statusCode, 400)
        t.same(bad.json(), {
          ok: false,
          error: 'validation_failed',
          message: 'n must be a number',
          errors: [{ field: 'n', code: 'Custom', message: 'n must be a number' }],
        })
      },
    )

    t.test(`${kind}: an answer is checked against it (check_responses)`, async (t) => {
      const app = build(
        t,
        (app) => {
          app.get('/n', { responses: { 200: later_schema(later) } }, (req, res) => {
            res.json('n', req.query_value('n', '') === '' ? 1 : 'x')
          })
        },
        { check_responses: true },
      )
      const good = await app.inject({ url: '/n' })
      t.equal(good.statusCode, 200)
      t.same(good.json(), { n: 1 })
      const bad = await app.inject({ url: '/n?n=x' })
      t.equal(bad.statusCode, 500)
      t.equal(bad.json().error, 'response_invalid')
    })
  }
})
