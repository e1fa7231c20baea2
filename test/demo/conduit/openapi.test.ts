// Every operation of the RealWorld specification (path and method) is in the OpenAPI document fw generates from the
// conduit's routes, under /api. The list is written here and, where the specification's openapi.yml is at hand
// ($REALWORLD_OPENAPI, or ../shared/realworld/openapi.yml beside the repository),
// checked against it.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
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
})
