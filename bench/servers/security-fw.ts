// fw App serving the security chain with its defaults: CORS, a rate limit that never triggers, security headers, a 1 MiB
// body limit, an API key, and GET /api/data answering JSON.
import { App, adapt_ctx, middleware } from '../../index.js'

const { cors, rate_limit, security_headers, body_limit } = middleware.security
const app = new App({ host: '127.0.0.1' })
app.use(adapt_ctx(cors({ origins: ['http://localhost:5173'], allow_credentials: true })))
app.use(adapt_ctx(rate_limit({ max_requests: 1_000_000_000, window_seconds: 60 })))
app.use(adapt_ctx(security_headers()))
app.use(adapt_ctx(body_limit({ max_bytes: 1024 * 1024 })))
app.use(adapt_ctx(middleware.auth.api_key({ allowed_keys: ['bench-api-key-0123456789'] })))
app.get('/api/data', (_req, res) => void res.json({ ok: true, data: { id: 1, name: 'Ada' } }))
process.stdout.write(`listening ${await app.listen(0)}\n`)
