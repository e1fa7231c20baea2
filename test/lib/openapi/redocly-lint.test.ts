// The documents of every demo, and of a small app as docs/openapi.md writes it, pass Redocly's recommended rules.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { App, adapt_ctx, middleware } from '../../../index.js'
import { demo_openapi } from '../../../demo/demo.js'
import { demos } from '../../../demo/registry.js'
import { build_showcase } from '../../../demo/showcase.js'
import { field, schema } from '../../../lib/validation/index.js'

const CLI = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js')

interface Problem {
  ruleId: string
  severity: 'error' | 'warn'
  message: string
  location: { pointer: string }[]
}

/** Runs `redocly lint` with the recommended rules on `doc`, in a folder of its own, and resolves with its errors. */
async function lint(name: string, doc: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-redocly-'))
  try {
    const file = join(dir, `${name}.json`)
    writeFileSync(file, doc)
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }
    const args = [CLI, 'lint', '--extends=recommended', '--format=json', file]
    // redocly exits 1 when it finds errors; the report on stdout says which.
    const out = await promisify(execFile)(process.execPath, args, { cwd: dir, env }).catch(
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
    )
    const report = JSON.parse(out.stdout) as { problems: Problem[] }
    return report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function document_of(app: App): Promise<string> {
  const body = (await app.inject({ url: '/openapi.json' })).body
  await app.close()
  return body
}

/** The app of docs/openapi.md's first example. */
function docs_app(): App {
  const User = schema({ id: field.integer().required(), email: field.string().required().email() })
  const app = new App({ access_log: false })
  app.use('/admin', adapt_ctx(middleware.auth.api_key({ allowed_keys: ['dev-admin-key-0123456789'] })))
  app.group('/users', (users) => {
    users.get('/{id}', { params: schema({ id: field.integer().required() }), responses: { 200: User } }, (req, res) =>
      res.json('ok', true, 'id', req.valid('params').id),
    )
    users.post(
      '/',
      { body: schema({ email: field.string().required().email() }), summary: 'Create a user' },
      (_r, res) => res.status(201).json('ok', true),
    )
  })
  app.del('/admin/users/{id}', { summary: 'Delete a user' }, (_req, res) => res.json('ok', true))
  app.openapi({ info: { title: 'Users', version: '1.0.0' }, security: [] })
  return app
}

t.test('redocly lint (recommended rules)', async (t) => {
  for (const name of ['http-api', 'auth-api']) {
    t.test(`passes the ${name} demo's document with no error`, async (t) => {
      const app = new App({ access_log: false })
      await demos[name]!.setup(app, app)
      app.openapi(demo_openapi(`fw demo ${name}`))
      t.strictSame(await lint(name, await document_of(app)), [])
    })
  }

  t.test("passes the showcase's document with no error, and no route documents an Authorization header", async (t) => {
    const doc = await document_of(await build_showcase(new App({ access_log: false })))
    t.strictSame(await lint('showcase', doc), [])
    const parameters = Object.values(JSON.parse(doc).paths as Record<string, Record<string, { parameters?: [] }>>)
      .flatMap((ops) => Object.values(ops).flatMap((op) => op.parameters ?? []))
      .filter((p: { name: string; in: string }) => p.in === 'header' && p.name.toLowerCase() === 'authorization')
    t.strictSame(parameters, [])
  })

  t.test('passes a small app written as docs/openapi.md shows', async (t) => {
    t.strictSame(await lint('docs', await document_of(docs_app())), [])
  })

  t.test('can fail: a document without servers, summaries or security has errors', async (t) => {
    const doc = { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: { '/a': { get: { responses: {} } } } }
    const errors = await lint('bare', JSON.stringify(doc))
    t.ok(errors.some((e) => e.startsWith('no-empty-servers')))
    t.ok(errors.some((e) => e.startsWith('security-defined')))
    t.ok(errors.some((e) => e.startsWith('operation-summary')))
  })
})
