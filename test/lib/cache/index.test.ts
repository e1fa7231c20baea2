import t from 'tap'
import * as cache from '../../../lib/cache/index.js'
import { import_graph } from '../../helpers/import-graph.js'

t.test('fw/cache', async (t) => {
  t.test('exports the spec names', async (t) => {
    const names = [
      'Cache',
      'CacheEntry',
      'CachePolicy',
      'CacheContext',
      'RequestOutcome',
      'MemoryStore',
      'LruMemoryStore',
      'FileStore',
      'CacheKey',
      'HeaderUtil',
      'NetworkProbe',
      'contextFromProbe',
      'contextFromProbeAndOutcome',
      'contextOnline',
      'contextOffline',
      'contextNetworkError',
    ]
    for (const name of names) t.ok(name in cache, name)
    t.equal(typeof cache.CacheKey.fromRequest, 'function')
  })

  t.test(
    'loads only its own files, the error registry, the option checkers, the LRU and node built-ins, never fastify',
    async (t) => {
      const { files, packages } = import_graph('lib/cache/index.ts')
      t.same(files.filter((f) => !f.startsWith('lib/cache/')).sort(), [
        'lib/errors.ts',
        'lib/http-token.ts',
        'lib/lru.ts',
        'lib/maybe-promise.ts',
        'lib/options.ts',
      ])
      t.same(packages, [])
      t.ok(files.length >= 14, `follows the whole graph (${files.length} files)`)
    },
  )
})
