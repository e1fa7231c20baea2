// Raw Fastify serving the HTTP scenarios; FW_BENCH_LOG_FILE turns its logger on (level info), writing to that file.
import Fastify from 'fastify'
import { announce } from '../servers.js'

const file = process.env.FW_BENCH_LOG_FILE
const f = Fastify({ logger: file ? { level: 'info', file } : false })
f.get('/hello', async () => ({ hello: 'world' }))
f.get<{ Params: { id: string }; Querystring: { fields?: string } }>('/users/:id', async (req) => ({
  id: req.params.id,
  fields: req.query.fields ?? '',
}))
f.post('/echo', async (req) => req.body)
f.register(async (mw) => {
  for (let i = 0; i < 5; i++) mw.addHook('onRequest', (_req, _reply, done) => done())
  mw.get('/mw/hello', async () => ({ hello: 'world' }))
})
await f.listen({ port: 0, host: '127.0.0.1' })
announce((f.server.address() as { port: number }).port)
