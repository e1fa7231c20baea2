// What a module loads: statically (its import graph, read from the sources) and at run time (in a fresh Node process).
// The "loads without fastify" and lazy-loading tests share these two views.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..')

const SPECIFIER = /(?:from|import)\s*\(?\s*'([^']+)'/g
/** Type-only imports are erased from the JavaScript, so they load nothing. */
const TYPE_ONLY = /^import type [^;\n]*?from '[^']+'$/gm

/**
 * Every module `entry` (a path from the root) reaches through imports and re-exports, type-only imports aside: the
 * files (relative to the root) and the bare specifiers, `node:` built-ins aside, both sorted. A dynamic `import('x')`
 * counts.
 */
export function import_graph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const [, spec] of readFileSync(file, 'utf8').replace(TYPE_ONLY, '').matchAll(SPECIFIER)) {
      if (spec === undefined || spec.startsWith('node:')) continue
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')))
      else packages.add(spec)
    }
  }
  visit(join(ROOT, entry))
  return { files: [...files].map((f) => relative(ROOT, f)).sort(), packages: [...packages].sort() }
}

/**
 * The packages a fresh Node process (with tsx) holds after `import(entry)`, by name, sorted: those in its CommonJS
 * module cache, which is where every package fw loads lazily (fast-jwt, prom-client, ioredis...) would show.
 */
export async function loaded_packages(entry: string): Promise<string[]> {
  const TOOLS = ['tsx', 'esbuild']
  const script = `
    const TOOLS = new Set(${JSON.stringify(TOOLS)})
    import { createRequire } from 'node:module'
    await import(${JSON.stringify(join(ROOT, entry))})
    const names = Object.keys(createRequire(import.meta.url).cache)
      .map((f) => /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]).filter((n) => n !== undefined && !TOOLS.has(n))
    console.log(JSON.stringify([...new Set(names)].sort()))
  `
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (err, out) =>
      err ? reject(err) : resolve(out),
    )
  })
  return JSON.parse(stdout) as string[]
}
