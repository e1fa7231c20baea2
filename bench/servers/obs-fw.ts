// fw App with its defaults for the observability bench (which sets FW_LOG_LEVEL=off). MODE: plain, metrics, tracing (API
// only, no SDK), compress.
import { App, middleware } from '../../index.js'

const mode = process.env.MODE ?? 'plain'
const app = new App({ host: '127.0.0.1' })
if (mode === 'metrics') app.metrics()
if (mode === 'tracing') app.tracing()
if (mode === 'compress') app.use(middleware.app.compression())
const big = JSON.stringify({
  items: Array.from({ length: 320 }, (_, i) => ({ id: i, name: `item number ${i}`, ok: i % 2 === 0 })),
})
app.get('/users/{id}', (req, res) => void res.json({ id: req.param('id') }))
app.get('/big', (_req, res) => void res.header('content-type', 'application/json; charset=utf-8').send(big))
// Two more routes in every mode, as any real API has: a process serving two fw routes runs the measured one cheaper
// (about 300 B and a few percent of CPU a request on Node 20) than one serving three or more, so without them the
// route app.metrics() adds would be counted as a cost of metrics (bench/notes.ts).
app.get('/users', (_req, res) => void res.json([]))
app.post('/users', (req, res) => void res.status(201).json(req.json().raw))
process.stdout.write(`listening ${await app.listen(0)}\n`)
