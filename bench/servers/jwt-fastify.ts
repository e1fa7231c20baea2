// Fastify with @fastify/jwt serving the JWT scenario.
import fastifyJwt from '@fastify/jwt'
import Fastify from 'fastify'
import { announce } from '../servers.js'

const f = Fastify()
await f.register(fastifyJwt, { secret: process.env.FW_BENCH_JWT_SECRET!, verify: { algorithms: ['HS256'] } })
f.get('/secure', { onRequest: async (req) => void (await req.jwtVerify()) }, async (req) => ({
  ok: true,
  sub: (req.user as { sub: string }).sub,
}))
await f.listen({ port: 0, host: '127.0.0.1' })
announce((f.server.address() as { port: number }).port)
