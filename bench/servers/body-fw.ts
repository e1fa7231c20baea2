// fw App serving the body scenarios: a binary upload echoing its length, a streamed download of 64 KiB chunks of one
// buffer, an SSE burst of `n` events (1,000 unless given 1-100,000).
import { App } from '../../index.js'

const CHUNK = Buffer.alloc(64 * 1024, 0x61)
async function* chunks(n: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < n; i++) yield CHUNK
}
const app = new App({ host: '127.0.0.1', body_limit: 2 * 1024 * 1024 })
app.post('/upload', (req, res) => res.json('bytes', req.bytes().length))
app.get('/download', (req, res) =>
  res.stream(chunks((Number(req.query_value('mb', '10')) * 1024 * 1024) / CHUNK.length)),
)
app.get('/events', (req, res) =>
  res.sse(async (sink) => {
    // Counted once, as the Fastify server does.
    const n = Number(req.query_value('n', '1000'))
    const count = Number.isInteger(n) && n > 0 && n <= 100_000 ? n : 1000
    for (let i = 1; i <= count && !sink.closed; i++) await sink.send({ data: 'tick', id: String(i) })
  }),
)
process.stdout.write(`listening ${await app.listen(0)}\n`)
