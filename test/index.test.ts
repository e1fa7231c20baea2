import t from 'tap'
import { import_graph, loaded_packages } from './helpers/import-graph.js'

/** Packages only some apps use: each loads with the first use of its feature. */
const OPTIONAL = [
  '@fastify/busboy',
  '@fastify/static',
  '@fastify/websocket',
  '@opentelemetry/api',
  'fast-jwt',
  'glob',
  'ioredis',
  'jose',
  'prom-client',
  'tldts',
  'ws',
]

t.test('fw', async (t) => {
  t.test('loads Fastify and pino, and none of the optional packages, until they are used', async (t) => {
    const loaded = await loaded_packages('index.ts')
    t.ok(loaded.includes('fastify') && loaded.includes('pino'), 'the lookup sees the packages the entry loads')
    t.same(
      loaded.filter((name) => OPTIONAL.includes(name)),
      [],
    )
  })

  t.test('never imports ioredis, which only fw/redis uses', async (t) => {
    t.notOk(import_graph('index.ts').packages.includes('ioredis'))
    t.ok(import_graph('lib/redis/index.ts').packages.includes('ioredis'), 'the walk sees ioredis where it is imported')
  })
})
