// Fastify serving the body scenarios with its own APIs: a buffer parser, a Readable reply of 64 KiB chunks of one
// buffer, SSE written as a Readable (`n` events, 1,000 unless given 1-100,000).
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import Fastify from 'fastify'

const CHUNK = Buffer.alloc(64 * 1024, 0x61)
async function* chunks(n: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < n; i++) yield CHUNK
}
const app = Fastify({ bodyLimit: 2 * 1024 * 1024 })
app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
app.post('/upload', async (req) => ({ bytes: (req.body as Buffer).length }))
app.get<{ Querystring: { mb?: string } }>('/download', (req, reply) => {
  reply
    .type('application/octet-stream')
    .send(Readable.from(chunks((Number(req.query.mb ?? '10') * 1024 * 1024) / CHUNK.length)))
})
app.get<{ Querystring: { n?: string } }>('/events', (req, reply) => {
  const asked = Number(req.query.n ?? '1000')
  const n = Number.isInteger(asked) && asked > 0 && asked <= 100_000 ? asked : 1000
  async function* events(): AsyncGenerator<string> {
    for (let i = 1; i <= n; i++) yield `id: ${i}\ndata: tick\n\n`
  }
  reply.header('cache-control', 'no-cache').type('text/event-stream; charset=utf-8').send(Readable.from(events()))
})
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`)
