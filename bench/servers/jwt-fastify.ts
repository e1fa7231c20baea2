// Fastify with @fastify/jwt serving the JWT scenario: HS256 with FW_BENCH_JWT_SECRET, or with FW_BENCH_JWT_ALG (RS256,
// ES256) the public key FW_BENCH_JWT_PUBLIC_KEY.
import type { AddressInfo } from 'node:net'
import fastifyJwt from '@fastify/jwt'
import Fastify from 'fastify'

const alg = process.env.FW_BENCH_JWT_ALG as 'RS256' | 'ES256' | undefined
const f = Fastify()
await f.register(
  fastifyJwt,
  alg === undefined
    ? { secret: process.env.FW_BENCH_JWT_SECRET!, verify: { algorithms: ['HS256'] } }
    : { secret: { public: process.env.FW_BENCH_JWT_PUBLIC_KEY! }, verify: { algorithms: [alg] } },
)
f.get('/secure', { onRequest: async (req) => void (await req.jwtVerify()) }, async (req) => ({
  ok: true,
  sub: (req.user as { sub: string }).sub,
}))
await f.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(f.server.address() as AddressInfo).port}\n`)
