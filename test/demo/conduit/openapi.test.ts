// Every operation of the RealWorld specification (path and method) is in the OpenAPI document fw generates from the
// conduit's routes, under /api. The list is written here and, where the specification's openapi.yml is at hand
// ($REALWORLD_OPENAPI, or ../shared/realworld/openapi.yml beside the repository),
// checked against it, with each operation's answers: the same success status, and the error statuses the specification
// lists, with a body schema that holds the specification's GenericErrorModel.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dereference, validate } from '@readme/openapi-parser'
import t from 'tap'
import { call, conduit_app, sqlite_url } from '../../helpers/conduit.js'

const OPERATIONS = [
  'POST /users/login',
  'POST /users',
  'GET /user',
  'PUT /user',
  'GET /profiles/{username}',
  'POST /profiles/{username}/follow',
  'DELETE /profiles/{username}/follow',
  'GET /articles/feed',
  'GET /articles',
  'POST /articles',
  'GET /articles/{slug}',
  'PUT /articles/{slug}',
  'DELETE /articles/{slug}',
  'GET /articles/{slug}/comments',
  'POST /articles/{slug}/comments',
  'DELETE /articles/{slug}/comments/{id}',
  'POST /articles/{slug}/favorite',
  'DELETE /articles/{slug}/favorite',
  'GET /tags',
]

/** The operations that read a token when one is sent (the viewer's `following` and `favorited`). */
const OPTIONAL_TOKEN = [
  'GET /profiles/{username}',
  'GET /articles',
  'GET /articles/{slug}',
  'GET /articles/{slug}/comments',
]

const SPEC = [
  process.env['REALWORLD_OPENAPI'],
  fileURLToPath(new URL('../../../../shared/realworld/openapi.yml', import.meta.url)),
].find((p) => p !== undefined && p !== '' && existsSync(p))

/** `METHOD /path` of every operation in the YAML: paths at two spaces, methods at four. */
function operations(yaml: string): string[] {
  const out: string[] = []
  let path = ''
  for (const line of yaml.split('\n')) {
    const p = /^ {2}(\/\S*):\s*$/.exec(line)
    if (p) path = p[1]!
    const m = /^ {4}(get|put|post|delete|patch):\s*$/.exec(line)
    if (m && path !== '') out.push(`${m[1]!.toUpperCase()} ${path}`)
  }
  return out
}

t.test('conduit OpenAPI document', async (t) => {
  const expected = OPERATIONS
  if (SPEC === undefined) t.comment('openapi.yml not found: checking the 19 operations written in this test only')
  else t.same(operations(readFileSync(SPEC, 'utf8')), OPERATIONS, `${SPEC} lists the same 19 operations`)
  const { app } = await conduit_app(t, sqlite_url(t))
  app.openapi({ info: { title: 'Conduit', version: '1.0.0' }, path: '/api/openapi.json', docs: '/api/docs' })
  const doc = (await call(app, 'GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> }
  const generated = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/^\/api/, '')}`),
  )
  for (const op of expected) t.ok(generated.includes(op), op)
  t.same(
    generated.filter((op) => !expected.includes(op)),
    [],
    'and nothing beside them',
  )
  const docs = await app.inject({ url: '/api/docs' })
  t.equal(docs.statusCode, 200)
  const valid = await validate(structuredClone(doc) as never)
  t.equal(valid.valid, true, valid.valid ? 'the document is valid OpenAPI' : JSON.stringify(valid.errors))
  // openapi.yml's User and Profile: bio and image are strings (`''` when not set), never null.
  const generated_doc = (await dereference(structuredClone(doc) as never)) as unknown as Spec
  const body_of = (path: string, method: string) =>
    generated_doc.paths[path]![method]!.responses['200']!.content!['application/json']!.schema as {
      properties: Record<string, { properties: Record<string, unknown> }>
    }
  for (const [path, method, key] of [
    ['/api/user', 'get', 'user'],
    ['/api/profiles/{username}', 'get', 'profile'],
  ] as const) {
    const props = body_of(path, method).properties[key]!.properties
    t.match([props['bio'], props['image']], [{ type: 'string' }, { type: 'string' }], `${method} ${path}: bio, image`)
    t.notOk(JSON.stringify([props['bio'], props['image']]).includes('null'), `${method} ${path}: not nullable`)
  }
  if (SPEC === undefined) return
  const spec = (await dereference(SPEC)) as unknown as Spec
  const schemes = (spec.components as { securitySchemes: Record<string, Json> }).securitySchemes
  const our_schemes = (doc as unknown as { components: { securitySchemes: Record<string, Json> } }).components
    .securitySchemes
  t.match(schemes['Token'], our_schemes['Token'], "the specification's Token scheme")
  t.same(Object.keys(our_schemes), ['Token'])
  const model = (spec.components as { schemas: Record<string, Json> }).schemas['GenericErrorModel']!
  const ours = (await dereference(structuredClone(doc) as never)) as unknown as Spec
  const success = (list: string[]): string[] => list.filter((s) => s.startsWith('2'))
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const name = `${method.toUpperCase()} ${path}`
      const mine = ours.paths[`/api${path}`]![method]!.responses
      const statuses = Object.keys(op.responses)
      t.same(success(Object.keys(mine)), success(statuses), `${name}: the specification's success status`)
      // The specification's Token where it requires one. Where it says none, the reads that show a signed-in caller's
      // `following` and `favorited` take a token, which must then be valid: optional (`{}` allows none).
      const security = ours.paths[`/api${path}`]![method]!.security
      if (op.security !== undefined) t.same(security, op.security, `${name}: the specification's security`)
      else if (OPTIONAL_TOKEN.includes(name)) t.same(security, [{ Token: [] }, {}], `${name}: a token is optional`)
      else t.equal(security, undefined, `${name}: no token is read`)
      // A wrong email or password answers 422, as the RealWorld implementations have, not the 401 the specification lists.
      const errors = statuses.filter((s) => !s.startsWith('2') && !(op.operationId === 'Login' && s === '401'))
      for (const status of errors) t.ok(mine[status], `${name}: documents ${status}`)
      for (const [status, r] of Object.entries(mine)) {
        // 413 is fw's own answer to an oversized body (its Error schema); the rest are the conduit's refusals. The
        // schema holds the model when it has every keyword the model has (more properties or required names may follow).
        if (Number(status) < 400 || status === '413') continue
        t.match(r.content?.['application/json']?.schema, model, `${name}: ${status} answers the GenericErrorModel`)
      }
    }
  }
})

type Json = Record<string, unknown>
interface Spec {
  paths: Record<
    string,
    Record<string, { operationId?: string; security?: unknown; responses: Record<string, Response> }>
  >
  components?: unknown
}
interface Response {
  content?: Record<string, { schema?: Json }>
}
