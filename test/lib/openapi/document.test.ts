import t from 'tap'
import { validate } from '@readme/openapi-parser'
import { z } from 'zod'
import { adapt_ctx, middleware } from '../../../index.js'
import { field, schema, ValidationFailed, type Type } from '../../../lib/validation/index.js'
import { build } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'

const { auth, security } = middleware
const User = schema({
  id: field.integer().required(),
  email: field.string().required().email().describe('login address'),
})

t.test('openapi_document', async (t) => {
  const out = capture_log(t, 'kv', 'warn')
  const app = build(t, (app) => {
    app.use('/keys', adapt_ctx(auth.api_key({ allowed_keys: ['k'.repeat(16)], query_param: 'api_key' })))
    app.use('/admin', adapt_ctx(auth.jwt({ secret: 's'.repeat(32) })))
    app.use('/admin', adapt_ctx(auth.require_role('admin')))
    app.use(adapt_ctx(security.rate_limit({ max_requests: 100, window_seconds: 60 })))
    app.use('/upload', adapt_ctx(security.body_limit({ max_bytes: 1024 })))
    app.group('/users', (g) => {
      g.get(
        '/{id}',
        {
          params: schema({ id: field.integer().required() }),
          query: schema({ expand: field.boolean(), tag: field.array(field.string()) }),
          responses: { 200: User },
        },
        (_req, res) => void res.json('ok', true),
      )
      g.post(
        '/',
        {
          body: schema({ email: field.string().required().email() }),
          summary: 'Create a user',
          operation_id: 'create_user',
          responses: { 201: { description: 'Created', body: User } },
        },
        (_req, res) => void res.json('ok', true),
      )
    })
    app.get('/keys/list', { tags: ['keys'], deprecated: true }, (_req, res) => void res.json('ok', true))
    app.del('/admin/users/{id}', (_req, res) => void res.json('ok', true))
    app.post('/upload', { body: z.object({ name: z.string() }) }, (_req, res) => void res.json('ok', true))
    app.post(
      '/opaque',
      { body: { '~standard': { version: 1, vendor: 'opaque', validate: (v: unknown) => ({ value: v }) } } },
      (_req, res) => void res.json('ok', true),
    )
    app.static_dir('./demo/public', { prefix: '/static' })
    app.openapi({ info: { title: 'Test API', version: '1.0.0' }, servers: [{ url: 'http://127.0.0.1:8080' }] })
  })
  const r = await app.inject({ url: '/openapi.json' })
  const doc = r.json()

  t.test('is a valid OpenAPI 3.1 document', async (t) => {
    t.equal(r.statusCode, 200)
    t.equal(doc.openapi, '3.1.0')
    const result = await validate(structuredClone(doc))
    t.equal(result.valid, true, JSON.stringify(result.valid ? [] : result.errors))
  })

  t.test('lists every route once, without static files, the document itself, HEAD or OPTIONS', async (t) => {
    const ops = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([p, o]) => Object.keys(o).map((m) => `${m} ${p}`))
      .sort()
    t.same(ops, [
      'delete /admin/users/{id}',
      'get /keys/list',
      'get /users/{id}',
      'post /opaque',
      'post /upload',
      'post /users',
    ])
  })

  t.test('describes parameters, bodies and answers from the schemas', async (t) => {
    const get = doc.paths['/users/{id}'].get
    t.same(get.tags, ['users'])
    t.same(get.parameters, [
      { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'expand', in: 'query', schema: { type: 'boolean' } },
      { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
    ])
    t.same(get.responses['200'].content['application/json'].schema.properties.email, {
      type: 'string',
      format: 'email',
      minLength: 1,
      description: 'login address',
    })
    t.same(get.responses['400'].content['application/json'].schema, { $ref: '#/components/schemas/ValidationFailed' })
    t.match(get.responses['429'], { description: 'Too Many Requests: rate_limit_exceeded' })
    const post = doc.paths['/users'].post
    t.equal(post.operationId, 'create_user')
    t.equal(post.summary, 'Create a user')
    t.same(post.requestBody.content['application/json'].schema, {
      type: 'object',
      properties: { email: { type: 'string', format: 'email', minLength: 1 } },
      required: ['email'],
    })
    t.equal(post.responses['201'].description, 'Created')
    t.match(post.responses['413'], { description: 'Payload Too Large: payload_too_large' })
  })

  t.test('takes security schemes and error answers from the auth middleware of each route', async (t) => {
    t.same(doc.components.securitySchemes, {
      api_key: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      api_key_query: { type: 'apiKey', in: 'query', name: 'api_key' },
      bearer_jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    })
    const keys = doc.paths['/keys/list'].get
    t.same(keys.security, [{ api_key: [] }, { api_key_query: [] }])
    t.same(keys.tags, ['keys'])
    t.equal(keys.deprecated, true)
    t.match(keys.responses['401'].description, /missing_api_key/)
    t.match(keys.responses['403'].description, /invalid_api_key/)
    const del = doc.paths['/admin/users/{id}'].delete
    t.same(del.security, [{ bearer_jwt: [] }])
    t.match(del.responses['401'].description, /missing_token, invalid_token, token_expired, missing_authz/)
    t.match(del.responses['403'].description, /forbidden/)
    t.notOk(doc.paths['/users'].post.security, 'a route without auth middleware has no security')
  })

  t.test('a route that declares no success answer promises only a 2XX, not a 200 it may not send', async (t) => {
    const del = doc.paths['/admin/users/{id}'].delete.responses
    t.strictSame(del['2XX'], { description: 'Success' })
    t.notOk(del['200'])
    t.strictSame(
      Object.keys(doc.paths['/users'].post.responses).filter((s) => !/^[45]/.test(s)),
      ['201'],
      'a declared success answer is the only one',
    )
  })

  t.test('documents a zod body through its JSON Schema, and warns for a Standard Schema without one', async (t) => {
    t.same(doc.paths['/upload'].post.requestBody.content['application/json'].schema, {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    })
    t.same(doc.paths['/opaque'].post.requestBody.content['application/json'].schema, {})
    t.match(out.text(), /schema not documented .*where="POST \/opaque body" vendor=opaque/)
  })
})

t.test('openapi_document: defaulted fields', async (t) => {
  const app = build(t, (app) => {
    app.post(
      '/items',
      {
        query: schema({ page: field.integer().min(1).default(1), q: field.string().required() }),
        body: schema({ name: field.string().required(), status: field.enum(['draft', 'placed']).default('draft') }),
      },
      (_req, res) => void res.json('ok', true),
    )
    app.openapi({ info: { title: 'Defaults', version: '1.0.0' } })
  })
  const post = (await app.inject({ url: '/openapi.json' })).json().paths['/items'].post

  t.test('a defaulted query parameter is optional and shows its default', async (t) => {
    t.strictSame(post.parameters, [
      { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'q', in: 'query', schema: { type: 'string', minLength: 1 }, required: true },
    ])
  })

  t.test('a defaulted body field is left out of required and shows its default', async (t) => {
    t.strictSame(post.requestBody.content['application/json'].schema, {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 }, status: { enum: ['draft', 'placed'], default: 'draft' } },
      required: ['name'],
    })
  })

  t.test('the server accepts both missing and fills their defaults', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/items?q=x', payload: { name: 'n' } })
    t.equal(r.statusCode, 200)
  })
})

t.test('openapi_document: security declared by the route', async (t) => {
  const out = capture_log(t, 'kv', 'warn')
  const bearer = { bearer: { type: 'http', scheme: 'bearer' } }
  const app = build(t, (app) => {
    app.use('/keys', adapt_ctx(auth.api_key({ allowed_keys: ['k'.repeat(16)] })))
    app.get('/me', { security: [bearer] }, (_req, res) => void res.json('ok', true))
    app.get('/keys/public', { security: [] }, (_req, res) => void res.json('ok', true))
    app.get(
      '/hand',
      { headers: schema({ authorization: field.string(), 'x-trace': field.string() }) },
      (_req, res) => void res.json('ok', true),
    )
    app.openapi({ info: { title: 'Security', version: '1.0.0' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()

  t.test('a route checked by hand documents its scheme and requirement', async (t) => {
    t.strictSame(doc.paths['/me'].get.security, [{ bearer: [] }])
    t.strictSame(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' })
  })

  t.test('security: [] says the route is public, in place of the middleware on its prefix', async (t) => {
    t.strictSame(doc.paths['/keys/public'].get.security, [])
  })

  t.test('an Authorization header is never a parameter (OpenAPI ignores it), with a warning', async (t) => {
    t.strictSame(doc.paths['/hand'].get.parameters, [{ name: 'x-trace', in: 'header', schema: { type: 'string' } }])
    t.match(out.text(), /parameter not documented .*where="GET \/hand" name=authorization why="declare it as security"/)
  })
})

t.test('openapi_document: what linters ask of a document', async (t) => {
  const info = {
    title: 'Lint',
    version: '1.0.0',
    termsOfService: 'https://example.com/terms',
    contact: { name: 'API team', email: 'api@example.com' },
    license: { name: 'MIT', identifier: 'MIT' },
  }
  const setup = (app: ReturnType<typeof build>, options: object) => {
    app.group('/users', (g) => g.get('/{id}', (_req, res) => void res.json('ok', true)))
    app.get('/named', { summary: 'Named' }, (_req, res) => void res.json('ok', true))
    app.openapi({ info, ...options })
  }
  const doc = (
    await build(t, (app) =>
      setup(app, { security: [], tags: [{ name: 'users', description: 'User accounts' }, { name: 'spare' }] }),
    ).inject({ url: '/openapi.json' })
  ).json()

  t.test('info takes the whole Info object', async (t) => {
    t.strictSame(doc.info, info)
  })

  t.test('servers is never missing or empty: / stands for the origin', async (t) => {
    t.strictSame(doc.servers, [{ url: '/' }])
    const none = (await build(t, (app) => setup(app, { servers: [] })).inject({ url: '/openapi.json' })).json()
    t.strictSame(none.servers, [{ url: '/' }])
  })

  t.test('the security option is the default of every operation, and tags carry descriptions', async (t) => {
    t.strictSame(doc.security, [])
    t.strictSame(doc.tags, [{ name: 'users', description: 'User accounts' }, { name: 'spare' }])
  })

  t.test('a route without a summary gets its method and path', async (t) => {
    t.equal(doc.paths['/users/{id}'].get.summary, 'GET /users/{id}')
    t.equal(doc.paths['/named'].get.summary, 'Named')
  })
})

t.test('openapi_document: form bodies', async (t) => {
  const app = build(t, (app) => {
    const body = schema({ message: field.string().required() })
    app.post('/form', { body, body_type: 'application/x-www-form-urlencoded' }, (req, res) =>
      res.json('message', req.form()['message'] ?? ''),
    )
    app.openapi({ info: { title: 'Forms', version: '1.0.0' } })
  })

  t.test('documents the body under its media type', async (t) => {
    const op = (await app.inject({ url: '/openapi.json' })).json().paths['/form'].post
    t.strictSame(Object.keys(op.requestBody.content), ['application/x-www-form-urlencoded'])
  })

  t.test('leaves the form to the handler: its schema is not run on the body', async (t) => {
    const r = await app.inject({
      method: 'POST',
      url: '/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'message=hi',
    })
    t.equal(r.statusCode, 200)
    t.strictSame(r.json(), { message: 'hi' })
  })
})

t.test('openapi_document: statuses a route says it never answers', async (t) => {
  const Problem = schema({ errors: field.array(field.string()).required() })
  const Item = schema({ name: field.string().required() })
  const app = build(t, (app) => {
    app.use('/api/keyed', adapt_ctx(auth.api_key({ allowed_keys: ['k'.repeat(16)] })))
    app.group('/api', (api) => {
      // The API answers a failed validation 422 in its own shape, never fw's 400.
      api.on_error((err, _req, res) => {
        if (err instanceof ValidationFailed) res.status(422).json({ errors: err.errors.map((e) => e.message) })
      })
      const answers = { 201: Item, 400: false, 422: { description: 'Invalid item', body: Problem } } as const
      api.post('/items', { body: Item, responses: answers }, (req, res) => void res.status(201).json(req.valid('body')))
      api.post('/plain', { body: Item }, (_req, res) => void res.status(201).json('ok', true))
      // Only the key's 401 is possible here: a key that is sent is always right (say).
      api.get('/keyed', { responses: { 200: Item, 403: false } }, (_req, res) => void res.json('name', 'k'))
    })
    app.openapi({ info: { title: 'Never', version: '1.0.0' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const items = doc.paths['/api/items'].post.responses
  t.same(Object.keys(items).sort(), ['201', '413', '422'], 'the 400 of validation is left out, the declared 422 stays')
  t.same(items['422'].content['application/json'].schema.required, ['errors'])
  t.ok(doc.paths['/api/plain'].post.responses['400'], 'a route that says nothing keeps the 400')
  const keyed = doc.paths['/api/keyed'].get.responses
  t.ok(keyed['401'], "the middleware's 401 stays")
  t.notOk(keyed['403'], "the middleware's 403 is left out")
  t.equal((await validate(structuredClone(doc))).valid, true, 'the document stays valid')
  // The answers themselves: `false` is no schema, so nothing checks it, and the 422 is checked as declared.
  const bad = await app.inject({ method: 'POST', url: '/api/items', payload: { name: 7 } })
  t.equal(bad.statusCode, 422)
  t.match(bad.json(), { errors: [String] })
  const good = await app.inject({ method: 'POST', url: '/api/items', payload: { name: 'pen' } })
  t.same([good.statusCode, good.json()], [201, { name: 'pen' }])
})

t.test('openapi_document: operation ids and path parameters', async (t) => {
  const ok = (_req: unknown, res: { json: (...a: unknown[]) => unknown }) => void res.json('ok', true)
  const app = build(t, (app) => {
    app.get('/', ok)
    app.get('/*', ok)
    app.get('/files', ok)
    app.get('/files/*', ok)
    app.get('/users/{id}', ok)
    app.get('/users/id', ok)
    app.get('/users/by', { operation_id: 'get_users_id_2' }, ok)
    app.get('/x/{constructor}', ok)
    app.get('/docs-of/*', { params: schema({ '*': field.string().required().max_length(200) }) }, ok)
    app.openapi({ info: { title: 'Ids', version: '1.0.0' }, security: [] })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const id = (path: string): string => doc.paths[path].get.operationId

  t.test('every operation id is unique, so the document is valid', async (t) => {
    t.same(['/', '/{wildcard}', '/files', '/files/{wildcard}', '/users/{id}', '/users/id', '/users/by'].map(id), [
      'get',
      'get_wildcard',
      'get_files',
      'get_files_wildcard',
      'get_users_id',
      'get_users_id_3',
      'get_users_id_2',
    ])
    const result = await validate(structuredClone(doc))
    t.equal(result.valid, true, JSON.stringify(result.valid ? [] : result.errors))
  })

  t.test('a path parameter named like an Object property is a string like any other', async (t) => {
    t.same(doc.paths['/x/{constructor}'].get.parameters, [
      { name: 'constructor', in: 'path', required: true, schema: { type: 'string' } },
    ])
  })

  t.test('the wildcard parameter is typed by the params schema field that validates it, `*`', async (t) => {
    t.same((await app.inject({ url: `/docs-of/${'a'.repeat(201)}` })).statusCode, 400)
    t.same(doc.paths['/docs-of/{wildcard}'].get.parameters, [
      { name: 'wildcard', in: 'path', required: true, schema: { type: 'string', maxLength: 200, minLength: 1 } },
    ])
  })
})

t.test('openapi_document: a form body is not validated, so no 400 validation_failed is promised', async (t) => {
  const body = schema({ message: field.string().required() })
  const app = build(t, (app) => {
    const ok = (_req: unknown, res: { json: (...a: unknown[]) => unknown }) => void res.json('ok', true)
    app.post('/form', { body, body_type: 'application/x-www-form-urlencoded' }, ok)
    app.post('/form-query', { body, body_type: 'multipart/form-data', query: schema({ n: field.integer() }) }, ok)
    app.openapi({ info: { title: 'Forms', version: '1.0.0' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  t.same(Object.keys(doc.paths['/form'].post.responses), ['413', '2XX'])
  t.same(Object.keys(doc.paths['/form-query'].post.responses), ['400', '413', '2XX'], 'the query is validated')
  const r = await app.inject({
    method: 'POST',
    url: '/form',
    payload: 'x=1',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(r.statusCode, 200, 'the route indeed never answers validation_failed for its body')
})

t.test('openapi_document: the references of a zod JSON Schema resolve in the document', async (t) => {
  // zod writes `#/$defs/<id>` for a named schema and `#` for a schema that refers to itself: pointers into its own
  // JSON Schema, which inside the document would point into the document.
  interface Cat {
    name: string
    kids: Cat[]
  }
  const Cat: z.ZodType<Cat> = z
    .object({
      name: z.string(),
      get kids() {
        return z.array(Cat)
      },
    })
    .meta({ id: 'Cat' })
  interface Tree {
    label: string
    children: Tree[]
  }
  const Tree: z.ZodType<Tree> = z.object({
    label: z.string(),
    get children() {
      return z.array(Tree)
    },
  })
  const Error = z.object({ reason: z.string() }).meta({ id: 'Error' })
  const app = build(t, (app) => {
    const ok = (_req: unknown, res: { json: (...a: unknown[]) => unknown }) => void res.json('ok', true)
    app.post('/cats', { body: z.object({ cat: Cat }), responses: { 200: Cat, 409: Error }, security: [] }, ok)
    app.post('/trees', { body: Tree, security: [] }, ok)
    app.openapi({ info: { title: 'Refs', version: '1.0.0' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const cat = {
    type: 'object',
    properties: { name: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/components/schemas/Cat' } } },
    required: ['name', 'kids'],
  }
  const cats = doc.paths['/cats'].post
  t.strictSame(cats.requestBody.content['application/json'].schema, {
    type: 'object',
    properties: { cat: { $ref: '#/components/schemas/Cat' } },
    required: ['cat'],
  })
  t.strictSame(cats.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Cat' })
  t.strictSame(cats.responses['409'].content['application/json'].schema, { $ref: '#/components/schemas/Error_2' })
  t.strictSame(doc.components.schemas.Cat, cat)
  t.strictSame(doc.components.schemas.Error_2, {
    type: 'object',
    properties: { reason: { type: 'string' } },
    required: ['reason'],
  })
  t.strictSame(doc.components.schemas.Error.required, ['ok', 'error'], "fw's own Error stays")
  t.strictSame(doc.paths['/trees'].post.requestBody.content['application/json'].schema, {
    $ref: '#/components/schemas/POST_trees_body',
  })
  t.strictSame(doc.components.schemas.POST_trees_body, {
    type: 'object',
    properties: {
      label: { type: 'string' },
      children: { type: 'array', items: { $ref: '#/components/schemas/POST_trees_body' } },
    },
    required: ['label', 'children'],
  })
  const result = await validate(structuredClone(doc))
  t.equal(result.valid, true, JSON.stringify(result.valid ? [] : result.errors))
})

t.test('openapi_document: two different recursive types given one name get distinct components', async (t) => {
  interface Folder {
    name: string
    children?: Folder[]
  }
  interface Org {
    title: string
    reports?: Org[]
  }
  interface Failure {
    reason?: string
    causes?: Failure[]
  }
  const Folder: Type<Folder, true> = schema({
    name: field.string().required(),
    children: field.array(field.lazy(() => Folder, { name: 'Node' })),
  })
  const Org: Type<Org, true> = schema({
    title: field.string().required(),
    reports: field.array(field.lazy(() => Org, { name: 'Node' })),
  })
  // A name the document keeps for itself (docs/openapi.md) is a clash like any other.
  const Failure: Type<Failure, true> = schema({
    reason: field.string(),
    causes: field.array(field.lazy(() => Failure, { name: 'Error' })),
  })
  // A function declaration as the getter, building its type anew on each call: one component all the same.
  interface Tree {
    label?: string
    kids?: Tree[]
  }
  function tree(): Type<Tree, true> {
    return schema({ label: field.string(), kids: field.array(field.lazy(tree, { name: 'Tree' })) })
  }
  const app = build(t, (app) => {
    const ok = (_req: unknown, res: { json: (...a: unknown[]) => unknown }) => void res.json('ok', true)
    app.post('/trees', { body: tree(), security: [] }, ok)
    app.post('/folders', { body: Folder, security: [] }, ok)
    app.post('/orgs', { body: Org, security: [] }, ok)
    // The same types again, through other `field.lazy` calls (and a derived one): the components they already have.
    const Both = schema({
      folder: field.lazy(() => Folder, { name: 'Node' }).required(),
      org: field.lazy(() => Org, { name: 'Node' }).describe('the org'),
    })
    app.post('/both', { body: Both, security: [] }, ok)
    app.post('/failures', { body: Failure, security: [] }, ok)
    app.openapi({ info: { title: 'Names', version: '1.0.0' } })
  })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
  t.strictSame(body('/folders').properties.children.items, ref('Node'))
  t.strictSame(body('/orgs').properties.reports.items, ref('Node_2'))
  t.strictSame(body('/both').properties, { folder: ref('Node'), org: { ...ref('Node_2'), description: 'the org' } })
  t.strictSame(doc.components.schemas.Node, {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, children: { type: 'array', items: ref('Node') } },
    required: ['name'],
  })
  t.strictSame(doc.components.schemas.Node_2, {
    type: 'object',
    properties: { title: { type: 'string', minLength: 1 }, reports: { type: 'array', items: ref('Node_2') } },
    required: ['title'],
  })
  t.strictSame(body('/trees').properties.kids.items, ref('Tree'))
  t.strictSame(doc.components.schemas.Tree.properties.kids.items, ref('Tree'))
  t.strictSame(body('/failures').properties.causes.items, ref('Error_2'))
  t.strictSame(doc.components.schemas.Error_2, {
    type: 'object',
    properties: { reason: { type: 'string' }, causes: { type: 'array', items: ref('Error_2') } },
  })
  t.strictSame(doc.components.schemas.Error.required, ['ok', 'error'], "fw's own Error stays")
  t.strictSame(
    Object.keys(doc.components.schemas).sort(),
    ['Error', 'Error_2', 'Node', 'Node_2', 'Tree', 'ValidationFailed'],
    'one component per type, however often it is used',
  )
  const result = await validate(structuredClone(doc))
  t.equal(result.valid, true, JSON.stringify(result.valid ? [] : result.errors))
})
