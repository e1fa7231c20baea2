// Express 5 with express-jwt serving the JWT scenario.
import type { AddressInfo } from 'node:net'
import express from 'express'
import { expressjwt, type Request } from 'express-jwt'

const app = express()
app.disable('x-powered-by')
app.get('/secure', expressjwt({ secret: process.env.FW_BENCH_JWT_SECRET!, algorithms: ['HS256'] }), (req, res) => {
  res.json({ ok: true, sub: (req as Request).auth?.sub })
})
const server = app.listen(0, '127.0.0.1', () =>
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`),
)
