// Raw Fastify serving the HTTP scenarios; FW_BENCH_LOG_FILE turns its logger on (level info), writing to that file.
// For bench/parts.ts: FW_BENCH_CONTEXT=1 holds one AsyncLocalStorage context for the whole process, and
// FW_BENCH_ECHO_ID=1 draws a UUID per request and echoes it in x-request-id, as fw does by default.
import type { AddressInfo } from 'node:net'
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'

if (process.env.FW_BENCH_CONTEXT) new AsyncLocalStorage<object>().enterWith({})
const file = process.env.FW_BENCH_LOG_FILE
const echo_id = process.env.FW_BENCH_ECHO_ID !== undefined
const f = Fastify({
  logger: file ? { level: 'info', file } : false,
  ...(echo_id ? { genReqId: () => randomUUID() } : {}),
})
/** Echoes the request id when FW_BENCH_ECHO_ID is set, in the handler, so no hook is added to measure it. */
const echo = (req: FastifyRequest, reply: FastifyReply): void => {
  if (echo_id) reply.header('x-request-id', req.id)
}
f.get('/hello', async (req, reply) => {
  echo(req, reply)
  return { hello: 'world' }
})
f.get<{ Params: { id: string }; Querystring: { fields?: string } }>('/users/:id', async (req, reply) => {
  echo(req, reply)
  return { id: req.params.id, fields: req.query.fields ?? '' }
})
f.post('/echo', async (req, reply) => {
  echo(req, reply)
  return req.body
})
f.register(async (mw) => {
  for (let i = 0; i < 5; i++) mw.addHook('onRequest', (_req, _reply, done) => done())
  mw.get('/mw/hello', async () => ({ hello: 'world' }))
})
await f.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(f.server.address() as AddressInfo).port}\n`)
