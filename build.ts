// `npm run build`: the package's `dist/` as npm publishes it. tsc writes the declarations (`@internal` members
// stripped, tsconfig.build.json); esbuild writes the JavaScript, one module per package entry (package.json `exports`)
// and the code entries share in chunks (`dist/chunks/`), so `fw` and `fw/middleware` hold one instance of each class
// and of each module's state. Loading fw as about 20 modules instead of 150 takes about 1 MB less heap, which every full
// collection marks (docs/decisions.md, "The package"). The bench builds its servers with the same options
// (bench/compiled.ts).
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { buildSync, type BuildOptions } from 'esbuild'

const ROOT = fileURLToPath(new URL('.', import.meta.url))
const DIST = path.join(ROOT, 'dist')

/**
 * How esbuild turns fw's TypeScript into what runs: bundled, ES modules for Node, every package left to be imported
 * from node_modules, comments dropped. No `keepNames`: its wrappers cost a call for every function made at run time, so
 * a name the bundle holds twice gets a suffix (`cors2`): seen in stack traces; fw's messages never read `Function.name`.
 */
export const ESBUILD_OPTIONS: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  packages: 'external',
  target: 'es2023',
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: ROOT,
}

/** The source file of each package entry: `./dist/lib/log/index.js` is built from `lib/log/index.ts`. */
export function entry_sources(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>
  }
  return Object.values(pkg.exports).map((e) => e.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'))
}

/**
 * How the package's JavaScript is built into `outdir`: one module per entry, at the entry's path (`lib/log/index.js`),
 * and the code entries share in `chunks/`. The bench builds the same into its own folder (bench/compiled.ts).
 */
export function package_build(outdir: string): BuildOptions {
  return {
    ...ESBUILD_OPTIONS,
    entryPoints: entry_sources(),
    splitting: true,
    outdir,
    outbase: ROOT,
    chunkNames: 'chunks/[name]-[hash]',
  }
}

/** Writes `dist/`: declarations, then the entries and their shared chunks. */
export function build_package(): void {
  rmSync(DIST, { recursive: true, force: true })
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' })
  buildSync(package_build(DIST))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) build_package()
