// fw App serving the JWT scenario with its defaults: GET /secure behind `jwt`, answering the token's subject.
import { App, adapt_ctx } from '../../index.js'
import { JwtClaims, jwt } from '../../lib/middleware/auth/index.js'
import { announce } from '../servers.js'

const app = new App({ host: '127.0.0.1' })
app.use('/secure', adapt_ctx(jwt({ secret: process.env.FW_BENCH_JWT_SECRET! })))
app.get('/secure', (req, res) => void res.json({ ok: true, sub: req.state(JwtClaims)!.subject }))
announce(await app.listen(0))
