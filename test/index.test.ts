import { join } from 'node:path'
import t from 'tap'
import { import_graph, loaded_node_deps, loaded_packages } from './helpers/import-graph.js'

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
  'light-my-request',
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

  t.test("loads none of Node's bundled undici, even serving a request", async (t) => {
    // Where node:http has a WebSocket getter (Node 24), an ESM import of it loads undici: 1.4 MB of heap for nothing fw
    // uses. fw reads node:http as CommonJS (lib/http-error.ts), and a lint rule keeps it so.
    const serve = `
      const app = new m.App()
      app.get('/x', (_req, res) => void res.json('ok', true))
      const r = await app.inject('/x')
      if (r.statusCode !== 200) throw new Error('answered ' + r.statusCode)
      await app.close()`
    const deps = await loaded_node_deps('index.ts', serve)
    t.notOk(deps.includes('undici'), `loaded: ${deps.join(', ') || 'none'}`)
    if ('WebSocket' in process.getBuiltinModule('node:http')) {
      const after = await loaded_node_deps('index.ts', `await import('node:http')`)
      t.ok(after.includes('undici'), 'the lookup sees undici once node:http is imported as ESM')
    }
  })

  t.test('never imports ioredis, which only fw/redis uses', async (t) => {
    t.notOk(import_graph('index.ts').packages.includes('ioredis'))
    t.ok(import_graph('lib/redis/index.ts').packages.includes('ioredis'), 'the walk sees ioredis where it is imported')
  })
})
