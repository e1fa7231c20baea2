import http from 'node:http'
import { Readable } from 'node:stream'
import t from 'tap'
import { end_sse, OpenStreams, sse_readable, type SseSink } from '../../../lib/stream/index.js'
import { listening } from '../../helpers/build.js'

const tick = (ms = 20): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A GET on its own connection: resolves with the status, whether the body ended whole, and the body. */
function read_all(
  port: number,
  path: string,
  on_data: (body: string) => void,
): Promise<{ status: number; complete: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => on_data((body += chunk)))
      res.on('error', () => {})
      res.on('close', () => resolve({ status: res.statusCode ?? 0, complete: res.complete, body }))
    })
    req.on('error', reject)
  })
}

t.test('app.close() ends each open SSE answer instead of cutting it', async (t) => {
  const seen: Array<{ aborted: boolean; closed: boolean }> = []
  const { app, port } = await listening(
    t,
    (app) => {
      app.get('/events', (_req, res) =>
        res.sse(async (sink: SseSink) => {
          for (let n = 1; !sink.closed; n++) {
            await sink.send({ data: String(n), id: String(n) })
            // A producer waiting on its own timer: the signal must wake it.
            await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }))
          }
          seen.push({ aborted: sink.signal.aborted, closed: sink.closed })
        }),
      )
    },
    { close_timeout_ms: 20_000 },
  )
  let first!: () => void
  const got_first = new Promise<void>((resolve) => (first = resolve))
  const answers = Promise.all(
    [1, 2].map(() => read_all(port, '/events', (body) => body.includes('data: 1\n') && first())),
  )
  await got_first
  await tick()
  const started = performance.now()
  await app.close()
  const took = performance.now() - started
  t.same(
    await answers,
    [1, 2].map(() => ({ status: 200, complete: true, body: 'id: 1\ndata: 1\n\n' })),
    'each client read a whole body that ends after its last event',
  )
  t.same(
    seen,
    [
      { aborted: true, closed: true },
      { aborted: true, closed: true },
    ],
    'each producer saw its signal fire and its sink closed',
  )
  t.ok(took < 10_000, `close() did not wait for close_timeout_ms (${took.toFixed(0)} ms of 20000)`)
})

t.test('OpenStreams', async (t) => {
  t.test('forgets an answer once it was sent', async (t) => {
    const streams = new OpenStreams()
    let sent!: () => void
    streams.add(
      sse_readable(() => {}, undefined, 0),
      new Promise((resolve) => (sent = resolve)),
    )
    t.equal(streams.size, 1)
    sent()
    await tick(0)
    t.equal(streams.size, 0)
  })

  t.test('waits at most grace_ms for answers that do not finish, and leaves a plain stream alone', async (t) => {
    const streams = new OpenStreams()
    const plain = Readable.from(['a'])
    streams.add(plain, new Promise(() => {}))
    const started = performance.now()
    await streams.end_all(30)
    t.ok(performance.now() - started >= 25, 'it waited for the grace period')
    t.equal(plain.readableEnded || plain.destroyed, false, 'a res.stream() body is not ended')
    t.equal(end_sse(plain), false)
  })

  t.test('ending an SSE stream sends what is queued, then ends it', async (t) => {
    const stream = sse_readable(
      async (sink) => {
        await sink.send({ data: 'last' })
        await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }))
        await sink.send({ data: 'never sent' })
      },
      undefined,
      0,
    )
    await tick(0)
    t.equal(end_sse(stream), true)
    const chunks: string[] = []
    for await (const chunk of stream) chunks.push(chunk as string)
    t.same(chunks, ['data: last\n\n'])
  })
})
