import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const LIB = join(ROOT, 'lib')

// Static imports and re-exports, side-effect imports, dynamic import() and require() of fastify or any @fastify/
// package.
const FASTIFY_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"`](?:fastify|@fastify\/[^'"`]+)(?:\/[^'"`]*)?['"`]/

function source_files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return source_files(path)
    return /\.(?:[cm]?ts|[cm]?js)$/.test(e.name) ? [path] : []
  })
}

t.test('lib boundary', async (t) => {
  t.test('the check recognises every form of import', async (t) => {
    const caught = [
      "import Fastify from 'fastify'",
      'import type { FastifyInstance } from "fastify"',
      "export { default } from 'fastify'",
      "import 'fastify'",
      "const f = await import('fastify')",
      "import x from '@fastify/static'",
      "const s = require('@fastify/cookie')",
      "import e from 'fastify/lib/errors.js'",
    ]
    for (const line of caught) t.match(line, FASTIFY_IMPORT, line)
    for (const line of [
      "import x from 'fastify-plugin-like-name'",
      '// fastify is only in adapters/',
      "import x from './fastify.js'",
    ]) {
      t.notMatch(line, FASTIFY_IMPORT, line)
    }
  })

  t.test('no file under lib/ imports fastify or @fastify/*', async (t) => {
    const files = source_files(LIB)
    t.ok(files.length >= 10, `${files.length} files read`)
    const offenders = files.filter((f) => FASTIFY_IMPORT.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f))
    t.same(offenders, [])
  })
})
