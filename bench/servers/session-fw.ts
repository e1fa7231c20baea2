// fw App serving the session scenario: GET /me behind `session` with `rolling: true`, answering the session's user. The
// session FW_BENCH_SESSION_ID is put in the store before listening, so every request of the run carries a valid cookie.
import { App, adapt_ctx, middleware } from '../../index.js'

const { InMemorySessionStore, Session, session } = middleware.auth

const store = new InMemorySessionStore()
await store.save({ id: process.env.FW_BENCH_SESSION_ID!, data: { user: 'bench-user' } }, 3600)
const app = new App({ host: '127.0.0.1' })
app.use(adapt_ctx(session({ secret: process.env.FW_BENCH_SESSION_SECRET!, store, ttl: 3600, rolling: true })))
app.get('/me', (req, res) => void res.json({ ok: true, user: req.state(Session)!.get('user') }))
process.stdout.write(`listening ${await app.listen(0)}\n`)
