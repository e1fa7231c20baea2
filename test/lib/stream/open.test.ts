import http from 'node:http'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { end_sse, OpenStreams, sse_readable, type SseSink } from '../../../lib/stream/index.js'
import { listening } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'

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

t.test('app.close() sends every queued event to a slow client when the producer rejects on its signal', async (t) => {
  const log = capture_log(t)
  let sent = 0
  let rejected = false
  const { app, port } = await listening(t, (app) => {
    app.get('/events', (_req, res) =>
      res.sse(async (sink: SseSink) => {
        // Events of 1 MiB, so the socket stops taking them and some wait in the answer.
        const data = 'x'.repeat(1024 * 1024)
        for (let n = 1; ; n++) {
          await sink.send({ data, id: String(n) })
          sent = n
          // The documented way to wait: a timer given the signal, which rejects (AbortError) when the App closes.
          await sleep(5, undefined, { signal: sink.signal }).catch((err: unknown) => {
            rejected = true
            throw err
          })
        }
      }),
    )
  })
  let resume!: () => void
  const answer = new Promise<{ complete: boolean; events: number }>((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/events', agent: false }, (res) => {
      res.pause()
      resume = () => void res.resume()
      let events = 0
      res.setEncoding('latin1').on('data', (chunk: string) => (events += chunk.split('\n\n').length - 1))
      res.on('error', () => {})
      res.on('close', () => resolve({ complete: res.complete, events }))
    })
  })
  // The client reads nothing until the producer is held back by it.
  for (let last = -1; last !== sent; await tick(100)) last = sent
  const closing = app.close()
  for (let i = 0; i < 250 && !rejected; i++) await tick(2)
  resume()
  await closing
  t.same(await answer, { complete: true, events: sent }, 'the client read every event sent and a whole body')
  t.notMatch(log.text(), /stream failed/, 'the rejection the shutdown caused is not logged')
})

t.test('an SSE answer whose client left before it was sent starts nothing and does not hold app.close()', async (t) => {
  const log = capture_log(t)
  let started = 0
  const { app, port } = await listening(
    t,
    (app) => {
      // A middleware still at work after next() (a session saved): the client leaves meanwhile.
      app.use(async (_req, _res, next) => {
        await next()
        await tick(100)
      })
      app.get('/events', (_req, res) =>
        res.sse(async (sink: SseSink) => {
          started++
          await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }))
        }),
      )
    },
    { close_timeout_ms: 20_000 },
  )
  const req = http.get({ host: '127.0.0.1', port, path: '/events', agent: false })
  req.on('error', () => {})
  await tick(30)
  req.destroy()
  await tick(150)
  const began = performance.now()
  await app.close()
  const took = performance.now() - began
  t.ok(took < 5_000, `close() did not wait for close_timeout_ms (${took.toFixed(0)} ms of 20000)`)
  t.equal(started, 0, 'the producer never ran for a client already gone')
  t.notMatch(log.text(), /stream failed|request failed/)
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
