// Benchmark processes run the JavaScript tsc emits, as users run dist/, not TypeScript through tsx: tsx transpiles with
// esbuild's keepNames, which wraps every named function created per request in a `__name` call (Object.defineProperty),
// 3.4% of fw's POST echo profile that no user pays. The whole tree (library, adapters, bench) is emitted once per
// bench process into .bench-build/, type checks skipped (`npm test` does them).
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const OUT = path.join(ROOT, '.bench-build')
let built = false

/** The compiled path of `bench/<file>.ts` (relative to bench/), emitting the tree first if this process has not. */
export function compiled(file: string): string {
  if (!built) {
    rmSync(OUT, { recursive: true, force: true })
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.bench.json'], { cwd: ROOT, stdio: 'inherit' })
    built = true
  }
  return path.join(OUT, 'bench', file.replace(/\.ts$/, '.js'))
}
