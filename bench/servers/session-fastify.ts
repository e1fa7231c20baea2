// Fastify with @fastify/cookie and @fastify/session (`rolling: true`) serving the session scenario. Its first session
// gets the id FW_BENCH_SESSION_ID (through `idGenerator`) and is created before listening, so every request of the run
// carries it.
import type { AddressInfo } from 'node:net'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import Fastify from 'fastify'
import { randomBytes } from 'node:crypto'

declare module 'fastify' {
  interface Session {
    user?: string
  }
}

let first = process.env.FW_BENCH_SESSION_ID
const f = Fastify()
await f.register(fastifyCookie)
await f.register(fastifySession, {
  secret: process.env.FW_BENCH_SESSION_SECRET!,
  cookieName: 'sessionId',
  cookie: { secure: false, maxAge: 3_600_000 },
  rolling: true,
  saveUninitialized: false,
  idGenerator: () => {
    const id = first ?? randomBytes(24).toString('base64url')
    first = undefined
    return id
  },
})
f.get('/login', async (req) => {
  req.session.user = 'bench-user'
  return { ok: true }
})
f.get('/me', async (req) => ({ ok: true, user: req.session.user }))
await f.ready()
await f.inject({ url: '/login' })
await f.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(f.server.address() as AddressInfo).port}\n`)
