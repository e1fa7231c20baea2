// Fastify serving the security chain: @fastify/cors, @fastify/rate-limit (never triggered), @fastify/helmet, a 1 MiB
// body limit, an API key hook (SHA-256 digests compared in constant time, as fw's api_key does), GET /api/data as JSON.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import cors from '@fastify/cors'
import helmet from '@fastify/helmet'
import rateLimit from '@fastify/rate-limit'
import Fastify from 'fastify'

const KEY_DIGEST = createHash('sha256').update('bench-api-key-0123456789').digest()
const key_ok = (key: unknown): boolean =>
  typeof key === 'string' && timingSafeEqual(createHash('sha256').update(key).digest(), KEY_DIGEST)
const f = Fastify({ bodyLimit: 1024 * 1024 })
await f.register(cors, { origin: ['http://localhost:5173'], credentials: true })
await f.register(rateLimit, { max: 1_000_000_000, timeWindow: 60_000 })
await f.register(helmet)
f.addHook('onRequest', async (req, reply) => {
  if (!key_ok(req.headers['x-api-key'])) return reply.code(401).send({ ok: false, error: 'missing_api_key' })
})
f.get('/api/data', async () => ({ ok: true, data: { id: 1, name: 'Ada' } }))
await f.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(f.server.address() as AddressInfo).port}\n`)
