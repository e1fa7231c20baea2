import { join } from 'node:path'
import t from 'tap'
import { import_graph, loaded_packages } from './helpers/import-graph.js'

/** Packages only some apps use: each loads with the first use of its feature. */
const OPTIONAL = [
  '@fastify/busboy',
  '@fastify/send',
  '@fastify/websocket',
  '@opentelemetry/api',
  'fast-jwt',
  'glob',
  'ioredis',
  'jose',
  'mime',
  'negotiator',
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

  t.test('an App serving requests loads the file sender only when it first sends a file', async (t) => {
    const file = join(t.testdir({ 'a.txt': 'alpha' }), 'a.txt')
    const serve = `
      const app = new m.App({ host: '127.0.0.1' })
      app.get('/json', (_req, res) => void res.json('ok', true))
      app.get('/file', (_req, res) => void res.file(${JSON.stringify(file)}))
      const json = await app.inject('/json')
      if (json.statusCode !== 200) throw new Error('json: ' + json.statusCode)`
    const sent = `
      const file = await app.inject('/file')
      if (file.body !== 'alpha') throw new Error('file: ' + file.statusCode + ' ' + file.body)`
    const after_json = await loaded_packages('index.ts', serve)
    t.ok(after_json.includes('fastify'), 'the lookup sees the packages the app loaded')
    t.notOk(after_json.includes('@fastify/send'), 'not after starting and answering JSON')
    t.ok((await loaded_packages('index.ts', serve + sent)).includes('@fastify/send'), 'after sending a file')
  })

  t.test('never imports ioredis, which only fw/redis uses', async (t) => {
    t.notOk(import_graph('index.ts').packages.includes('ioredis'))
    t.ok(import_graph('lib/redis/index.ts').packages.includes('ioredis'), 'the walk sees ioredis where it is imported')
  })
})
