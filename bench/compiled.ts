// Benchmark servers run as JavaScript built the way the package's dist/ is (build.ts: esbuild, bundled, comments
// dropped), not TypeScript through tsx: tsx transpiles with esbuild's keepNames, which wraps every named function created
// per request in a `__name` call (Object.defineProperty), 3.4% of fw's POST echo profile that no user pays; and fw loaded
// as its 150 source modules held about 1 MB more heap than the bundle users load. Each server is one file with
// fw's code in it and its packages imported from node_modules, built with every other server once per bench process
// into .bench-build/; its source map lets the profiles name fw's own files (bench/source-position.ts). Type checks are
// `npm test`'s.
import { readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { ESBUILD_OPTIONS } from '../build.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const OUT = path.join(ROOT, '.bench-build')
const SERVERS = path.join(ROOT, 'bench', 'servers')
let built = false

/** The built path of `bench/<file>.ts` (relative to bench/, a server), building every server first if this process has not. */
export function compiled(file: string): string {
  if (!built) {
    rmSync(OUT, { recursive: true, force: true })
    buildSync({
      ...ESBUILD_OPTIONS,
      entryPoints: readdirSync(SERVERS)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(SERVERS, f)),
      outdir: path.join(OUT, 'bench', 'servers'),
      sourcemap: 'linked',
    })
    built = true
  }
  return path.join(OUT, 'bench', file.replace(/\.ts$/, '.js'))
}
