// fw App serving the HTTP scenarios with its defaults; FW_BENCH_LOG_FILE sends its lines (the access log) to that file.
import { App } from '../../index.js'
import type { Middleware } from '../../index.js'
import { configure } from '../../lib/log/index.js'

// Buffered background writes, as Fastify's logger (pino's SonicBoom) writes a file.
if (process.env.FW_BENCH_LOG_FILE) configure({ destination: process.env.FW_BENCH_LOG_FILE, async: true })
const app = new App({ host: '127.0.0.1' })
const noop: Middleware = (_req, _res, next) => next()
for (let i = 0; i < 5; i++) app.use('/mw', noop)
app.get('/hello', (_req, res) => void res.json({ hello: 'world' }))
app.get('/users/{id}', (req, res) => void res.json({ id: req.param('id'), fields: req.query_value('fields', '') }))
app.post('/echo', (req, res) => void res.json(req.json().raw))
app.get('/mw/hello', (_req, res) => void res.json({ hello: 'world' }))
process.stdout.write(`listening ${await app.listen(0)}\n`)
