// fw App for the http_cache bench: a handler that busy-waits 1 ms (standing for rendering or serialising) and answers
// JSON, at /work and behind http_cache at /cached/work; GET /calls says how often the handler ran behind the cache.
import { App, middleware, type Handler } from '../../index.js'

const app = new App({ host: '127.0.0.1' })
let cached_calls = 0
const work =
  (count: boolean): Handler =>
  (_req, res) => {
    const until = performance.now() + 1
    while (performance.now() < until);
    if (count) cached_calls++
    res.json('ok', true)
  }
app.use('/cached', middleware.app.http_cache({ policy: { ttl_ms: 3_600_000 } }))
app.get('/work', work(false))
app.get('/cached/work', work(true))
app.get('/calls', (_req, res) => void res.json('calls', cached_calls))
process.stdout.write(`listening ${await app.listen(0)}\n`)
