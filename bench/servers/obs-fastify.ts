// Fastify with @fastify/compress answering the same 20 KiB JSON as obs-fw's /big.
import type { AddressInfo } from 'node:net'
import compress from '@fastify/compress'
import Fastify from 'fastify'

const app = Fastify()
await app.register(compress)
const big = JSON.stringify({
  items: Array.from({ length: 320 }, (_, i) => ({ id: i, name: `item number ${i}`, ok: i % 2 === 0 })),
})
app.get('/big', (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(big))
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`)
