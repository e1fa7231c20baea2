// Express 5 serving the security chain: cors, express-rate-limit (never triggered), helmet, a 1 MiB JSON body limit, an
// API key check (SHA-256 digests compared in constant time, as fw's api_key does), GET /api/data as JSON.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import cors from 'cors'
import express from 'express'
import { rateLimit } from 'express-rate-limit'
import helmet from 'helmet'

const KEY_DIGEST = createHash('sha256').update('bench-api-key-0123456789').digest()
const key_ok = (key: unknown): boolean =>
  typeof key === 'string' && timingSafeEqual(createHash('sha256').update(key).digest(), KEY_DIGEST)
const app = express()
app.disable('x-powered-by')
app.use(cors({ origin: ['http://localhost:5173'], credentials: true }))
app.use(rateLimit({ windowMs: 60_000, limit: 1_000_000_000, legacyHeaders: true, standardHeaders: false }))
app.use(helmet())
app.use(express.json({ limit: 1024 * 1024 }))
app.use((req, res, next) => (key_ok(req.headers['x-api-key']) ? next() : void res.status(401).json({ ok: false })))
app.get('/api/data', (_req, res) => void res.json({ ok: true, data: { id: 1, name: 'Ada' } }))
const server = app.listen(0, '127.0.0.1', () =>
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`),
)
