// fw App serving the JWT scenario: GET /secure behind `jwt`, answering the token's subject. With its defaults for
// HS256; with FW_BENCH_JWT_ALG (RS256, ES256) it verifies against FW_BENCH_JWT_PUBLIC_KEY with its token cache off, so
// every request checks the signature as @fastify/jwt's (uncached by default) does.
import { App, adapt_ctx, middleware } from '../../index.js'

const { JwtClaims, jwt } = middleware.auth

const alg = process.env.FW_BENCH_JWT_ALG as middleware.auth.JwtAlgorithm | undefined
const app = new App({ host: '127.0.0.1' })
const verify =
  alg === undefined
    ? jwt({ secret: process.env.FW_BENCH_JWT_SECRET! })
    : jwt({ public_key: process.env.FW_BENCH_JWT_PUBLIC_KEY!, algorithms: [alg], cache_size: 0 })
app.use('/secure', adapt_ctx(verify))
app.get('/secure', (req, res) => void res.json({ ok: true, sub: req.state(JwtClaims)!.subject }))
process.stdout.write(`listening ${await app.listen(0)}\n`)
