// What a module loads: statically (its import graph, read from the sources) and at run time (in a fresh Node process).
// The "loads without fastify", lazy-loading and import-circle tests share them.
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
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
 * The packages a fresh Node process (with tsx) holds after `import(entry)` and then `then` (code run with the module as
 * `m`), by name, sorted: those in its CommonJS module cache, which is where every package fw loads lazily (fast-jwt,
 * prom-client, ioredis...) would show.
 */
export async function loaded_packages(entry: string, then = ''): Promise<string[]> {
  const TOOLS = ['tsx', 'esbuild']
  return (await in_fresh_process(
    entry,
    then,
    `(() => {
      const TOOLS = new Set(${JSON.stringify(TOOLS)})
      const names = Object.keys(createRequire(import.meta.url).cache)
        .map((f) => /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]).filter((n) => n !== undefined && !TOOLS.has(n))
      return [...new Set(names)].sort()
    })()`,
  )) as string[]
}

/**
 * The dependencies bundled in Node itself (`undici`, `acorn`...) that a fresh Node process (with tsx) has loaded after
 * `import(entry)` and `then`, by name, sorted: Node loads each on first use, from its own modules' code.
 */
export async function loaded_node_deps(entry: string, then = ''): Promise<string[]> {
  const deps = (await in_fresh_process(
    entry,
    then,
    `process.moduleLoadList.filter((m) => m.startsWith('NativeModule internal/deps/'))`,
  )) as string[]
  return [...new Set(deps.map((m) => m.slice('NativeModule internal/deps/'.length).split('/')[0]!))].sort()
}

/** The JSON of `report` (an expression), evaluated in a fresh Node process (with tsx) after `import(entry)` and `then`. */
async function in_fresh_process(entry: string, then: string, report: string): Promise<unknown> {
  const script = `
    import { createRequire } from 'node:module'
    const m = await import(${JSON.stringify(join(ROOT, entry))})
    ${then}
    console.log(JSON.stringify(${report}))
  `
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (err, out) =>
      err ? reject(err) : resolve(out),
    )
  })
  // The report is the last line: `then` may log before it.
  return JSON.parse(stdout.trim().split('\n').at(-1)!)
}

/** The TypeScript files under `dir` (declarations aside), as absolute paths. */
function ts_files(dir: string): string[] {
  if (!statSync(dir).isDirectory()) return [dir]
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return ts_files(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The files `file` imports or re-exports by a relative specifier, type-only imports and `import('x')` included. */
function local_imports(file: string): string[] {
  const specs = [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map(([, spec]) => spec ?? '')
  return specs.filter((s) => s.startsWith('.')).map((s) => join(dirname(file), s.replace(/\.js$/, '.ts')))
}

/**
 * The import circles among the TypeScript files under `roots` (files or folders, paths from `base`), type-only imports
 * and dynamic `import()` included, since either can close a circle: one per strongly connected group of files, as the
 * shortest path from its first file (by name) back to itself, `['a.ts', 'b.ts', 'a.ts']`, paths relative to `base`.
 * Imports of files outside `roots` are left out.
 */
export function import_cycles(roots: readonly string[], base = ROOT): string[][] {
  const files = roots.flatMap((r) => ts_files(join(base, r)))
  const known = new Set(files)
  const edges = new Map(files.map((f) => [f, [...new Set(local_imports(f))].filter((to) => known.has(to))]))
  return strong_groups(files, edges)
    .filter((group) => group.length > 1 || edges.get(group[0]!)!.includes(group[0]!))
    .map((group) => shortest_circle(group.sort(), edges).map((f) => relative(base, f)))
    .sort((a, b) => a[0]!.localeCompare(b[0]!))
}

/** Tarjan's strongly connected components of the graph. */
function strong_groups(nodes: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on_stack = new Set<string>()
  const groups: string[][] = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    on_stack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on_stack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const group: string[] = []
    let w: string
    do {
      w = stack.pop()!
      on_stack.delete(w)
      group.push(w)
    } while (w !== v)
    groups.push(group)
  }
  for (const v of nodes) if (!index.has(v)) visit(v)
  return groups
}

/** The shortest path from the group's first file back to it, through files of the group (breadth first). */
function shortest_circle(group: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[] {
  const start = group[0]!
  const inside = new Set(group)
  const came_from = new Map<string, string>()
  const queue = [start]
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w) || came_from.has(w)) continue
      came_from.set(w, v)
      if (w === start) {
        const path: string[] = []
        for (let at = v; at !== start; at = came_from.get(at)!) path.unshift(at)
        return [start, ...path, start]
      }
      queue.push(w)
    }
  }
  return [start, start]
}
