// fw as a user meets it: built and packed once, installed from the tarball into a fresh project (from the local npm
// cache where it can: the packages are there from this repository's own install, and npm asks the registry only for
// the metadata a cold cache lacks, as after `npm ci` on a fresh machine), and used as the pages show it. The
// tarball holds the build and the pages and nothing else, built by its `prepack` script even when dist/ held more
// (what `npx tsc -p .` writes there: tests, bench, demo, source maps, its own entries); every ```ts block of README.md and docs/*.md, and every import the pages write inline,
// type-checks against the installed package under strict NodeNext with skipLibCheck off; the declarations import only
// packed files and declared packages; a plain .mjs file imports every value binding the pages import; and
// `require('fw')` from CommonJS works where Node loads ES modules with require(), else fails with ERR_REQUIRE_ESM.
// The checks that need more of the network (other TypeScript and @types/node releases, Node 24) are
// `npm run check:package`.
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, posix } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { doc_blocks, type DocBlock } from '../helpers/doc-blocks.js'
import { ROOT } from '../helpers/import-graph.js'
import { ENTRIES, FW, installed, pack, type Packed } from './packing.js'

const run = promisify(execFile)
// Build, pack and install take about 20 s; the type check of every block about 15 s more.
t.setTimeout(240_000)

/**
 * What `npx tsc -p .` (tsconfig.json, which emits into dist/ with source maps) leaves in dist/: tests, bench, demo,
 * source maps, and its own unbundled entries over the build's (`index.js` importing `./lib/app.js`, never packed).
 */
const STRAYS = [
  'test/index.test.js',
  'test/index.test.js.map',
  'bench/run.js',
  'demo/showcase.js',
  'build.js',
  'build.d.ts',
  'index.js.map',
  'lib/app.js.map',
  'lib/app.js',
]
const TSC_ENTRY = "export * from './lib/app.js' // tsc's entry\n"

const out = mkdtempSync(join(tmpdir(), 'fw-consumer-'))
t.teardown(() => rmSync(out, { recursive: true, force: true }))
const consumer = join(out, 'consumer')
mkdirSync(join(consumer, 'src'), { recursive: true })
const dist = join(ROOT, 'dist')

/** Writes the strays into dist/ (tsc's entry over `index.js` when `entry`); gives back those it created. */
function plant(entry: boolean): string[] {
  const planted = STRAYS.filter((f) => !existsSync(join(dist, f)))
  for (const f of planted) {
    mkdirSync(dirname(join(dist, f)), { recursive: true })
    writeFileSync(join(dist, f), '// stray\n')
  }
  if (entry) writeFileSync(join(dist, 'index.js'), TSC_ENTRY)
  return planted
}

/** Removes what `plant` created. */
function unplant(planted: readonly string[]): void {
  for (const f of planted) rmSync(join(dist, f), { force: true })
  for (const d of ['test', 'bench', 'demo'])
    if (existsSync(join(dist, d)) && readdirSync(join(dist, d)).length === 0) rmdirSync(join(dist, d))
}

// Packed the way a publisher packs after a stray `npx tsc -p .`: the `prepack` build starts from an empty dist/.
plant(true)
const packed: Packed = await pack(out)
// `files` alone, on the build as it stands with the strays beside it (no script runs, nothing is written).
const planted = plant(false)
let listed: Packed
try {
  listed = await pack(out, { scripts: false })
} finally {
  unplant(planted)
}
const tarball = join(out, packed.filename)
const files = packed.files

writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'fw-consumer', private: true, type: 'module' }))
await run(
  'npm',
  [
    'install',
    '--prefer-offline',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    tarball,
    ...Object.keys(FW.peerDependencies).map((p) => `${p}@${installed(p)}`),
    `typescript@${installed('typescript')}`,
    `@types/node@${installed('@types/node')}`,
  ],
  { cwd: consumer, maxBuffer: 1 << 26 },
)

/** The bare module names a piece of code imports. */
function imported(code: string): string[] {
  return [...code.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)['"]([^'".][^'"]*)['"]/g)].map((m) => m[1]!)
}

/** A package name from a specifier: `@scope/name` or `name`. */
const package_of = (spec: string): string =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/')

/** The pages' blocks that use fw as a user does: not those importing this repository's own files (the demos). */
const blocks = doc_blocks(ROOT).filter((b) => !b.code.includes(`'${ROOT}/`))

/** The imports of fw the pages write inline in their text (`import { auth, app as helpers } from 'fw/middleware'`). */
function inline_imports(): string[] {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((p) =>
    p.endsWith('.md'),
  )
  return pages.flatMap((page) =>
    [...readFileSync(join(ROOT, page), 'utf8').matchAll(/`(import [^`]*? from 'fw(?:\/[a-z]+)?')`/g)].map((m) => m[1]!),
  )
}

/** Every value binding the pages import from each fw entry (`type` ones left out), blocks and inline text. */
function value_imports(codes: readonly string[]): Map<string, Set<string>> {
  const by_entry = new Map<string, Set<string>>()
  for (const code of codes)
    for (const m of code.matchAll(/^\s*import\s+(?!type\s)\{([^}]*)\}\s*from\s*'(fw(?:\/[a-z]+)?)'/gm)) {
      const names = m[1]!
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '' && !s.startsWith('type '))
        .map((s) => s.split(/\s+as\s+/)[0]!)
      const set = by_entry.get(m[2]!) ?? new Set<string>()
      names.forEach((n) => set.add(n))
      by_entry.set(m[2]!, set)
    }
  return by_entry
}

t.test('the tarball holds the build and its pages, nothing else', async (t) => {
  const targets = new Set(Object.values(FW.exports).map((e) => e.default.replace(/^\.\//, '')))
  const expected = (f: string): boolean =>
    ['LICENSE', 'README.md', 'package.json', 'docs/performance-chart.svg'].includes(f) ||
    targets.has(f) ||
    /^docs\/[^/]+\.md$/.test(f) ||
    /^dist\/chunks\/[^/]+\.js$/.test(f) ||
    /^dist\/(index|(lib|adapters)\/.+)\.d\.ts$/.test(f)
  for (const [what, list] of [
    ['packed after a stray tsc', files],
    ['listed beside the strays, no build', listed.files],
  ] as const) {
    t.same(
      list.filter((f) => !expected(f)),
      [],
      `${what}: no test, bench, demo, build script or source map`,
    )
    t.same(
      [...targets].filter((f) => !list.includes(f)),
      [],
      `${what}: every exports entry is packed`,
    )
  }
  t.ok(files.includes('LICENSE'))
  t.ok(files.includes('docs/errors.md'))
  const entry = readFileSync(join(consumer, 'node_modules', FW.name, 'dist', 'index.js'), 'utf8')
  t.not(entry, TSC_ENTRY, "the prepack build replaced tsc's entry")
  t.match(entry, /\bexport\b/)
})

t.test('every relative link of the packed pages leads to a packed file', async (t) => {
  const broken: string[] = []
  for (const page of files.filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!.split('#')[0]!
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const resolved = posix.normalize(posix.join(posix.dirname(page), target))
      if (!files.includes(resolved)) broken.push(`${page}: ${m[1]!}`)
    }
  }
  t.same(broken, [])
})

t.test('the declarations import only packed files and declared packages', async (t) => {
  const root = join(consumer, 'node_modules', FW.name)
  const declared = new Set([...Object.keys(FW.dependencies), ...Object.keys(FW.peerDependencies)])
  const builtins = new Set(builtinModules)
  const wrong: string[] = []
  for (const f of files.filter((f) => f.endsWith('.d.ts'))) {
    const code = readFileSync(join(root, f), 'utf8')
    for (const m of code.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)['"](\.[^'"]*)['"]/g)) {
      const target = join(dirname(f), m[1]!.replace(/\.js$/, '.d.ts'))
      if (!files.includes(target)) wrong.push(`${f}: ${m[1]!} (not packed)`)
    }
    for (const spec of imported(code)) {
      const name = package_of(spec)
      if (!spec.startsWith('node:') && !builtins.has(name) && !declared.has(name))
        wrong.push(`${f}: ${spec} (not a dependency)`)
    }
    if (/\/\/\/\s*<reference\s+path=/.test(code)) wrong.push(`${f}: a reference path`)
  }
  t.same(wrong, [])
})

t.test('every block and inline import of the pages type-checks against the installed package', async (t) => {
  // The other packages the pages import (zod, valibot, ...) and their types, as a user installs them: from this
  // repository's node_modules. A block importing one that is not there (an OpenTelemetry SDK) is a fragment.
  for (const name of new Set(blocks.flatMap((b) => imported(b.code)).map(package_of)))
    for (const dep of [name, `@types/${name.replace(/^@/, '').replace('/', '__')}`]) {
      const from = join(ROOT, 'node_modules', dep)
      const to = join(consumer, 'node_modules', dep)
      if (!name.startsWith('fw') && !name.startsWith('node:') && existsSync(from) && !existsSync(to)) {
        mkdirSync(dirname(to), { recursive: true })
        symlinkSync(from, to, 'dir')
      }
    }
  // One module for each, as two of them may bind the same name.
  const inline: DocBlock[] = inline_imports().map((code, i) => ({
    where: `inline import ${i}:0`,
    file: `inline-import-${i}.ts`,
    fragment: false,
    code: `${code}\nexport {}\n`,
  }))
  // Calls the pages describe in prose and tables rather than in a block.
  const described: DocBlock = {
    where: 'described calls:0',
    file: 'described-calls.ts',
    fragment: false,
    code: [
      "import { App, middleware } from 'fw'",
      "import { field, schema } from 'fw/validation'",
      'const app = new App()',
      "app.use('/c', middleware.app.http_cache({ policy: { ttl_ms: 1000 }, max_body_bytes: 1024 }))",
      "app.get('/', (_req, res) => res.json('ok', true))",
      "export const Link = schema({ href: field.string().uri({ schemes: ['http', 'https'], message: 'a web link' }) })",
      '',
    ].join('\n'),
  }
  const all = [...blocks, ...inline, described]
  for (const b of all) writeFileSync(join(consumer, 'src', b.file), b.code)
  writeFileSync(join(consumer, 'blocks.json'), JSON.stringify(all))
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2023',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
      },
      include: ['src'],
    }),
  )
  t.ok(inline.length > 5, `${inline.length} inline imports`)
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test', 'helpers', 'doc-types.ts'), consumer],
    { cwd: ROOT, maxBuffer: 1 << 26 },
  )
  t.same(JSON.parse(stdout), [], `${all.length} blocks`)
})

t.test('a plain .mjs file imports every value the pages import', async (t) => {
  const by_entry = value_imports([...blocks.map((b) => b.code), ...inline_imports()])
  t.same(
    [...by_entry.keys()].filter((e) => !ENTRIES.includes(e)),
    [],
    'every entry the pages import is exported',
  )
  let n = 0
  const lines = [...by_entry].map(
    ([entry, names]) => `import { ${[...names].map((name) => `${name} as v${n++}`).join(', ')} } from '${entry}'`,
  )
  const script = [
    ...lines,
    "import * as fw from 'fw'",
    // The namespaces the pages name: `fw.middleware.auth`, `fw.log`, `fw.openapi`.
    "for (const ns of ['middleware', 'log', 'openapi', 'validation', 'cache']) if (typeof fw[ns] !== 'object') throw new Error(`no fw.${ns}`)",
    "for (const ns of ['app', 'auth', 'security']) if (typeof fw.middleware[ns] !== 'object') throw new Error(`no fw.middleware.${ns}`)",
    "if (typeof fw.middleware.app.http_cache !== 'function') throw new Error('no fw.middleware.app.http_cache')",
    "const app = new fw.App(); app.get('/hello/{name}', (req, res) => res.json('ok', true, 'hello', req.param('name')))",
    "const answer = await app.inject({ url: '/hello/ada' }); process.stdout.write(answer.body)",
    'await app.close()',
    '',
  ].join('\n')
  writeFileSync(join(consumer, 'docs-imports.mjs'), script)
  const { stdout } = await run(process.execPath, ['docs-imports.mjs'], {
    cwd: consumer,
    env: { ...process.env, FW_ACCESS_LOG: 'false', NODE_ENV: 'production' },
  })
  t.equal(stdout, '{"ok":true,"hello":"ada"}')
  t.ok(lines.length >= ENTRIES.length - 1, lines.join('\n'))
})

t.test("require('fw') from CommonJS", async (t) => {
  writeFileSync(
    join(consumer, 'require.cjs'),
    [
      'try {',
      "  const fw = require('fw')",
      "  import('fw').then((esm) =>",
      '    console.log(JSON.stringify({ keys: Object.keys(fw).length, esm_keys: Object.keys(esm).length, same: fw.App === esm.App })),',
      '  )',
      '} catch (err) {',
      '  console.log(JSON.stringify({ code: err.code }))',
      '}',
      '',
    ].join('\n'),
  )
  const child = spawn(process.execPath, ['require.cjs'], { cwd: consumer, stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  await once(child, 'exit')
  const got = JSON.parse(stdout) as { keys?: number; esm_keys?: number; same?: boolean; code?: string }
  // Node 20.19+ and 22.12+ load an ES module graph without top-level await with require(); older ones refuse.
  const require_module = (process.features as { require_module?: boolean }).require_module === true
  if (require_module) t.same(got, { keys: got.esm_keys, esm_keys: got.esm_keys, same: true })
  else t.same(got, { code: 'ERR_REQUIRE_ESM' })
  t.comment(`Node ${process.versions.node}: require('fw') ${require_module ? 'works' : 'throws ERR_REQUIRE_ESM'}`)
})
