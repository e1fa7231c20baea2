// bench/servers/*: every benchmark server imports only the framework it measures (fw through its package entries),
// that framework's plugins and Node built-ins, and announces its port itself: harness code loaded into a server's
// process shifts V8's heap and JIT state, which moved fw's CPU per request by about 20% (issue 25).
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { entry_sources } from '../../build.js'
import { ROOT } from '../helpers/import-graph.js'

const SERVERS = path.join(ROOT, 'bench', 'servers')
/** Frameworks under test other than fw, and their plugins, by package name. */
const FRAMEWORKS = [
  'fastify',
  'hono',
  '@hono/node-server',
  'express',
  'express-jwt',
  'express-rate-limit',
  'cors',
  'helmet',
]
const BUILTINS = new Set(builtinModules)
/**
 * The demo application a server may import, by server file: there the demo is the code under test (a real application
 * on fw, with its database driver and query builder), not harness code, so it loads into the measured process as it
 * would in production. One entry per server, its demo's entry module only; every other server still may not import a
 * demo.
 */
const DEMOS: Readonly<Record<string, string>> = { 'conduit-fw.ts': path.join(ROOT, 'demo', 'conduit', 'index.ts') }

/** fw's package entries (package.json `exports`), as the source files they are built from. */
const ENTRIES = new Set(entry_sources().map((file) => path.join(ROOT, file)))

/** The package a bare specifier names: `@scope/name` or `name`. */
const package_of = (spec: string): string =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/')

/**
 * Whether a server may import `spec`: a Node built-in, a framework or plugin, one of fw's package entries, or the demo
 * it measures (DEMOS).
 */
function allowed(file: string, spec: string): boolean {
  if (spec.startsWith('node:') || BUILTINS.has(spec)) return true
  if (spec.startsWith('.')) {
    const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'))
    return ENTRIES.has(target) || DEMOS[path.basename(file)] === target
  }
  const name = package_of(spec)
  return FRAMEWORKS.includes(name) || name.startsWith('@fastify/')
}

/**
 * The imports of `source` (the file `file`) a server may not have: static imports and re-exports (type-only ones too),
 * `import()` and `require()`; one whose specifier is not a string literal is given as `<computed>`.
 */
function forbidden_imports(file: string, source: string): string[] {
  const found: string[] = []
  const check = (spec: ts.Expression | undefined): void => {
    if (spec === undefined) return
    if (!ts.isStringLiteralLike(spec)) return void found.push('<computed>')
    if (!allowed(file, spec.text)) found.push(spec.text)
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) check(node.moduleSpecifier)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      check(node.moduleReference.expression)
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      check(node.arguments[0])
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS))
  return found
}

t.test('bench/servers', async (t) => {
  const files = readdirSync(SERVERS).filter((f) => f.endsWith('.ts'))
  t.ok(files.length >= 20, `every server file is checked (${files.length})`)
  for (const name of files) {
    const file = path.join(SERVERS, name)
    const source = readFileSync(file, 'utf8')
    t.same(forbidden_imports(file, source), [], `${name} imports only its framework, its plugins and Node built-ins`)
    t.match(source, /process\.stdout\.write\(`listening \$\{/, `${name} announces its port inline`)
  }
})

t.test('forbidden_imports', async (t) => {
  const file = path.join(SERVERS, 'x.ts')
  const of = (source: string): string[] => forbidden_imports(file, source)
  t.test('rejects harness files, shared server files, other packages and computed specifiers', async (t) => {
    t.same(of("import { announce } from '../servers.js'"), ['../servers.js'])
    t.same(of("import { CHUNK } from './body-shared.js'"), ['./body-shared.js'])
    t.same(of("import type { BenchRow } from '../report.js'"), ['../report.js'])
    t.same(of("export { median } from '../report.js'"), ['../report.js'])
    t.same(of("import autocannon from 'autocannon'"), ['autocannon'])
    t.same(of("await import('../cpu.js')"), ['../cpu.js'])
    t.same(of("const a = require('autocannon')"), ['autocannon'])
    t.same(of("import x = require('tsx')"), ['tsx'])
    t.same(of('await import(process.env.X!)'), ['<computed>'])
  })
  t.test("rejects fw's internal files, which are not package entries", async (t) => {
    t.same(of("import { configure } from '../../lib/log/core.js'"), ['../../lib/log/core.js'])
    t.same(of("import { App } from '../../adapters/app.js'"), ['../../adapters/app.js'])
  })
  t.test('accepts the demo a server measures, in that server alone, by its entry module alone', async (t) => {
    const conduit = path.join(SERVERS, 'conduit-fw.ts')
    t.same(forbidden_imports(conduit, "import { conduit } from '../../demo/conduit/index.js'"), [])
    t.same(forbidden_imports(conduit, "import { open_db } from '../../demo/conduit/db.js'"), [
      '../../demo/conduit/db.js',
    ])
    t.same(forbidden_imports(conduit, "import { demo } from '../../demo/auth-api/index.js'"), [
      '../../demo/auth-api/index.js',
    ])
    t.same(of("import { conduit } from '../../demo/conduit/index.js'"), ['../../demo/conduit/index.js'])
  })
  t.test("accepts fw's package entries, frameworks, their plugins and Node built-ins", async (t) => {
    const source = [
      "import { App, middleware } from '../../index.js'",
      "import { configure } from '../../lib/log/index.js'",
      "import Fastify from 'fastify'",
      "import jwt from '@fastify/jwt'",
      "import { jwt as hono_jwt } from 'hono/jwt'",
      "import { serve } from '@hono/node-server'",
      "import { createServer } from 'node:http'",
      "import { Readable } from 'stream'",
    ].join('\n')
    t.same(of(source), [])
  })
})
