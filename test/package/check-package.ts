// `npm run check:package`: packs fw as npm would publish it and checks the tarball as its users meet it. The tarball
// carries LICENSE and no source maps; publint and @arethetypeswrong/cli find nothing; a consumer project installs it
// with --engine-strict under Node 24, from the local npm cache where it can (--prefer-offline: the packages are there
// from this repository's own install; npm asks the registry only for metadata the cache lacks); every installed
// package's `engines` admits every Node that fw's `engines` admits; an import of each `exports` entry type-checks with
// skipLibCheck off against @types/node 22, 24 and the latest, each with the latest TypeScript 5 and TypeScript 7, and
// loads, on the machine's Node and on Node 24, an entry that `fw` also exports as a namespace giving the same values.
import { execFile } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import semver from 'semver'
import { node_binaries } from '../../bench/wrk.js'
import { ROOT } from '../helpers/import-graph.js'
import { ENTRIES, FW, installed, pack } from './packing.js'

const run = promisify(execFile)
const problems: string[] = []

/** The @types/node releases the published declarations must compile against, installed under these aliases. */
const TYPES_NODE = { 'types-node-22': '22', 'types-node-24': '24', 'types-node-latest': 'latest' }
/** The TypeScript compilers they must compile with: the latest 5, and 7 (the native compiler). */
const COMPILERS = { 'typescript-5': '5', 'typescript-7': '7' }

/** Runs a command, echoing it; its output is returned, and a failure ends the check with the output shown. */
async function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  console.log(`$ ${cmd} ${args.join(' ')}`)
  try {
    const { stdout } = await run(cmd, args, { cwd: ROOT, maxBuffer: 1 << 26, ...opts })
    return stdout
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string }
    console.log(e.stdout ?? '', e.stderr ?? '')
    problems.push(`${cmd} ${args.join(' ')} failed`)
    return ''
  }
}

const out = mkdtempSync(join(tmpdir(), 'fw-pack-'))
try {
  console.log(`$ npm pack --json --pack-destination ${out}`)
  const { filename, files } = await pack(out)
  const tarball = join(out, filename)
  if (!files.includes('LICENSE')) problems.push('the tarball has no LICENSE')
  const maps = files.filter((f) => f.endsWith('.map'))
  if (maps.length > 0) problems.push(`the tarball ships ${maps.length} source maps without their sources (${maps[0]})`)
  console.log(`${files.length} files in ${filename}`)

  await sh('npx', ['publint', '--strict'])
  // fw is ESM only (no `require` condition): the esm-only profile leaves out the CommonJS resolutions.
  await sh('npx', ['attw', tarball, '--profile', 'esm-only'])

  const consumer = join(out, 'consumer')
  await sh('mkdir', ['-p', consumer])
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'fw-consumer', private: true, type: 'module' }))
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'ES2023',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
      },
      include: ['index.ts'],
    }),
  )
  writeFileSync(
    join(consumer, 'index.ts'),
    ENTRIES.map((e, i) => `import * as e${i} from '${e}'\n`).join('') +
      `export const entries = [${ENTRIES.map((_, i) => `e${i}`).join(', ')}]\n`,
  )
  // Each entry loads, and gives what `fw` exports under the same namespace (test/package/load-entries.mjs).
  copyFileSync(join(ROOT, 'test', 'package', 'load-entries.mjs'), join(consumer, 'load-entries.mjs'))

  const node24 = (await node_binaries()).at(-1)!
  const env = { ...process.env, PATH: `${dirname(node24.path)}:${process.env.PATH ?? ''}` }
  const peers = Object.keys(FW.peerDependencies).map((p) => `${p}@${installed(p)}`)
  await sh(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--engine-strict',
      '--no-audit',
      '--no-fund',
      tarball,
      ...peers,
      ...Object.entries(TYPES_NODE).map(([name, range]) => `${name}@npm:@types/node@${range}`),
      ...Object.entries(COMPILERS).map(([name, range]) => `${name}@npm:typescript@${range}`),
    ],
    { cwd: consumer, env },
  )

  // Every installed package must run on every Node fw says it runs on.
  if (!existsSync(join(consumer, 'package-lock.json'))) throw new Error('the consumer install failed: see above')
  const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } }>
  }
  for (const [path, p] of Object.entries(lock.packages)) {
    const wants = p.engines?.node
    if (path !== '' && wants !== undefined && !semver.subset(FW.engines.node, wants)) {
      problems.push(
        `${path.replace(/^.*node_modules\//, '')}@${p.version} needs Node ${wants}, narrower than fw's ${FW.engines.node}`,
      )
    }
  }
  // The published declarations with skipLibCheck off, under every pair of @types/node and TypeScript: each @types/node
  // is installed under an alias and reached as the type root `node` of its own tsconfig.
  for (const types of Object.keys(TYPES_NODE)) {
    mkdirSync(join(consumer, 'roots', types), { recursive: true })
    symlinkSync(join(consumer, 'node_modules', types), join(consumer, 'roots', types, 'node'))
    const config = join(consumer, `tsconfig.${types}.json`)
    writeFileSync(
      config,
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { typeRoots: [`./roots/${types}`] } }),
    )
    const version = (name: string): string =>
      (JSON.parse(readFileSync(join(consumer, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
        .version
    for (const compiler of Object.keys(COMPILERS)) {
      console.log(`types: @types/node ${version(types)}, TypeScript ${version(compiler)}`)
      await sh(process.execPath, [join(consumer, 'node_modules', compiler, 'bin', 'tsc'), '-p', config])
    }
  }
  for (const node of await node_binaries())
    await sh(node.path, [join(consumer, 'load-entries.mjs'), FW.name, ...ENTRIES], { cwd: consumer })
} finally {
  rmSync(out, { recursive: true, force: true })
}

for (const p of problems) console.log(`problem: ${p}`)
console.log(problems.length === 0 ? 'package check passed' : `package check failed: ${problems.length} problem(s)`)
process.exitCode = problems.length === 0 ? 0 : 1
