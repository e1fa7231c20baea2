// Benchmark servers run as JavaScript built the way the package's dist/ is (build.ts: esbuild, comments dropped), not
// TypeScript through tsx: tsx transpiles with esbuild's keepNames, which wraps every named function created per request
// in a `__name` call (Object.defineProperty), 3.4% of fw's POST echo profile that no user pays. fw itself is loaded as
// users load it: the package's entries and chunks, built once per bench process into .bench-build/package/ (with
// source maps, which let the profiles name fw's own files: bench/source-position.ts), every import of an entry's
// source (`../../index.js`) pointed there. Bundled into each server, as until 2026-11-29, fw's code was cut to what
// the server used: a 1 MiB upload's server held 0.6 MB less heap than with the package, and each of its full
// collections took 8.7-8.9 ms where the package's took 9.7-10.0. A server's other code (its own lines, a demo it
// measures) is bundled into one file under .bench-build/bench/servers/, its packages imported from node_modules.
// Type checks are `npm test`'s.
import { readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { entry_sources, ESBUILD_OPTIONS, package_build } from '../build.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const OUT = path.join(ROOT, '.bench-build')
const SERVERS = path.join(ROOT, 'bench', 'servers')
const SERVERS_OUT = path.join(OUT, 'bench', 'servers')
const PACKAGE = path.join(OUT, 'package')

/** Each package entry's source file, by the module the package build makes of it. */
const ENTRIES = new Map(entry_sources().map((file) => [path.join(ROOT, file), file.replace(/\.ts$/, '.js')]))

/**
 * Points an import of a package entry's source at the built package's module, left for Node to load: a path relative
 * to the servers' folder, so that a copy of .bench-build (bench/profile-pair.ts) loads its own package.
 */
const FW_PACKAGE: Plugin = {
  name: 'fw-package',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      const built = ENTRIES.get(path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')))
      if (built === undefined) return undefined
      return { path: path.relative(SERVERS_OUT, path.join(PACKAGE, built)), external: true }
    })
  },
}
let built: Promise<void> | undefined

/** The built path of `bench/<file>.ts` (relative to bench/, a server), building every server first if this process has not. */
export async function compiled(file: string): Promise<string> {
  built ??= build_all()
  await built
  return path.join(OUT, 'bench', file.replace(/\.ts$/, '.js'))
}

/** The package, then every server (a plugin: esbuild's synchronous API takes none). */
async function build_all(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true })
  await build({ ...package_build(PACKAGE), sourcemap: 'linked' })
  await build({
    ...ESBUILD_OPTIONS,
    plugins: [FW_PACKAGE],
    entryPoints: readdirSync(SERVERS)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(SERVERS, f)),
    outdir: SERVERS_OUT,
    sourcemap: 'linked',
  })
}
