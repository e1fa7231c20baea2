// fw App serving the body scenarios: a binary upload echoing its length, a streamed download, an SSE burst.
import { App } from '../../index.js'
import { announce } from '../servers.js'
import { CHUNK, chunks, sse_count } from './body-shared.js'

const app = new App({ host: '127.0.0.1', request_id: false, access_log: false, body_limit: 2 * 1024 * 1024 })
app.post('/upload', (req, res) => res.json('bytes', req.bytes().length))
app.get('/download', (req, res) =>
  res.stream(chunks((Number(req.query_value('mb', '10')) * 1024 * 1024) / CHUNK.length)),
)
app.get('/events', (req, res) =>
  res.sse(async (sink) => {
    // Counted once, as the Fastify server does.
    const count = sse_count(req.query_value('n', '1000'))
    for (let n = 1; n <= count && !sink.closed; n++) await sink.send({ data: 'tick', id: String(n) })
  }),
)
announce(await app.listen(0))
