import { readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import * as cache from '../../../lib/cache/index.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Every module `entry` loads, by following its import and export specifiers. */
function import_graph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>()
  const bare = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    const source = readFileSync(file, 'utf8')
    for (const m of source.matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = m[1]!
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      else bare.add(spec)
    }
  }
  visit(entry)
  return { files, bare }
}

t.test('fw/cache', async (t) => {
  t.test('exports the spec names', async (t) => {
    const names = ['Cache', 'CacheEntry', 'CachePolicy', 'CacheContext', 'RequestOutcome', 'MemoryStore', 'LruMemoryStore',
      'FileStore', 'CacheKey', 'HeaderUtil', 'NetworkProbe', 'contextFromProbe', 'contextFromProbeAndOutcome', 'contextOnline',
      'contextOffline', 'contextNetworkError']
    for (const name of names) t.ok(name in cache, name)
    t.equal(typeof cache.CacheKey.fromRequest, 'function')
  })

  t.test('loads only its own files, the error registry, the option checkers and node built-ins, never fastify', async (t) => {
    const { files, bare } = import_graph(resolve(ROOT, 'lib/cache/index.ts'))
    const outside = [...files].map((f) => relative(ROOT, f)).filter((f) => !f.startsWith('lib/cache/'))
    t.same(outside.sort(), ['lib/errors.ts', 'lib/http-token.ts', 'lib/options.ts'])
    t.same([...bare].filter((s) => !s.startsWith('node:')), [])
    t.ok(files.size >= 14, `follows the whole graph (${files.size} files)`)
  })
})
