// Hono's jwt middleware on @hono/node-server serving the JWT scenario.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { jwt } from 'hono/jwt'

const app = new Hono()
app.use('/secure', jwt({ secret: process.env.FW_BENCH_JWT_SECRET!, alg: 'HS256' }))
app.get('/secure', (c) => c.json({ ok: true, sub: (c.get('jwtPayload') as { sub: string }).sub }))
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`))
