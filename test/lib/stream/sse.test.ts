import { once } from 'node:events'
import http from 'node:http'
import type { Readable } from 'node:stream'
import t from 'tap'
import { format_event, sse_readable, type Every, type SseProducer, type SseSink } from '../../../lib/stream/index.js'
import { gate, listening } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'

/** Lets every queued tick, microtask and immediate run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** An SSE stream whose heartbeat the test fires by hand. */
function stream_of(producer: SseProducer): { stream: Readable; beat: () => void } {
  let beat = (): void => undefined
  const every: Every = (fn) => {
    beat = fn
    return () => undefined
  }
  return { stream: sse_readable(producer, undefined, 15_000, every), beat: () => beat() }
}

/** Every chunk the stream emits, once it has ended. */
async function chunks_of(stream: Readable): Promise<string[]> {
  const chunks: string[] = []
  stream.on('data', (c: string) => chunks.push(c))
  await once(stream, 'end')
  return chunks
}

const tick_events = (from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, i) => format_event({ data: 'tick', id: String(from + i) })).join('')

t.test('a burst of events goes out as one chunk, in order', async (t) => {
  const { stream } = stream_of(async (sink) => {
    for (let n = 1; n <= 100; n++) await sink.send({ data: 'tick', id: String(n) })
  })
  t.same(await chunks_of(stream), [tick_events(1, 100)])
})

t.test('a long burst is cut into chunks of about 8 KiB, each ending on an event boundary', async (t) => {
  const { stream } = stream_of(async (sink) => {
    for (let n = 1; n <= 2000; n++) await sink.send({ data: 'tick', id: String(n) })
  })
  const chunks = await chunks_of(stream)
  const all = tick_events(1, 2000)
  t.equal(chunks.join(''), all)
  const fewest = Math.ceil(all.length / (8 * 1024 + 32))
  t.ok(chunks.length >= fewest && chunks.length <= fewest + 1, `${chunks.length} chunks`)
  t.ok(chunks.every((c) => c.length < 8 * 1024 + 32 && c.endsWith('\n\n')))
})

t.test('an event goes out as soon as the producer waits, not when the next one comes', async (t) => {
  const held = gate()
  const { stream } = stream_of(async (sink) => {
    await sink.send({ data: 'first' })
    await held.promise
    await sink.send({ data: 'second' })
  })
  const [first] = (await once(stream, 'data')) as [string]
  t.equal(first, 'data: first\n\n')
  held.open()
  t.same(await chunks_of(stream), ['data: second\n\n'])
})

t.test('a client reading slowly makes send() wait; a heartbeat meanwhile loses no wake-up', async (t) => {
  const data = 'x'.repeat(8 * 1024)
  let sent = 0
  const { stream, beat } = stream_of(async (sink) => {
    for (let n = 1; n <= 20; n++) {
      await sink.send({ data })
      sent = n
    }
  })
  await settle()
  t.ok(sent < 10, `the producer waits for the reader (sent ${sent} of 20)`)
  const waiting_at = sent
  beat()
  await settle()
  t.equal(sent, waiting_at, 'the heartbeat does not release the producer')
  const body = (await chunks_of(stream)).join('')
  t.equal(sent, 20, 'reading releases the producer to the end')
  t.equal(body.split(`data: ${data}\n\n`).length - 1, 20)
  t.match(body, /: heartbeat\n\n/)
})

t.test('send() refuses a bad id, event, retry or data with a rejected promise, not a throw', async (t) => {
  const refused: unknown[] = []
  const { stream } = stream_of(async (sink) => {
    const bad = [
      { data: 'x', id: 'a\nb' },
      { data: 'x', event: 'a\rdata: evil' },
      { data: 'x', retry: -1 },
      { data: 'x', retry: 1e21 },
      { data: 1n },
    ]
    // A caller that handles the refusal with .catch(), as the Promise the sink's type promises allows.
    for (const event of bad) await sink.send(event).catch((err: unknown) => void refused.push(err))
    await sink.send({ data: 'after' })
  })
  t.same(await chunks_of(stream), ['data: after\n\n'], 'nothing of the refused events went out, and the stream went on')
  t.match(refused, [
    { code: 'FW_ERR_STREAM_BAD_EVENT' },
    { code: 'FW_ERR_STREAM_BAD_EVENT' },
    { code: 'FW_ERR_STREAM_BAD_EVENT' },
    { code: 'FW_ERR_STREAM_BAD_EVENT', message: /retry must be an integer >= 0; got 1e\+21/ },
    TypeError,
  ])
})

t.test('the first chunk goes out when the producer first waits: empty if it has no event yet', async (t) => {
  const held = gate()
  const { stream } = stream_of(async (sink) => {
    // Microtasks alone (something already settled) do not let the first chunk out.
    await null
    await Promise.resolve()
    await held.promise
    await sink.send({ data: 'first' })
  })
  const chunks: string[] = []
  stream.on('data', (c: string) => chunks.push(c))
  await settle()
  t.same(chunks, [''], 'an empty chunk, which makes the socket write the status and headers')
  held.open()
  await once(stream, 'end')
  t.same(chunks, ['', 'data: first\n\n'])
})

t.test('a producer failing or ending before it waits on anything pushes no empty chunk', async (t) => {
  const failing = stream_of(async () => {
    await null
    throw new Error('before any wait')
  }).stream
  const chunks: string[] = []
  failing.on('data', (c: string) => chunks.push(c))
  const [err] = (await once(failing, 'error')) as [Error]
  t.same([err.message, chunks], ['before any wait', []])
  t.same(await chunks_of(stream_of(() => {}).stream), [], 'a producer done at once: an empty body, no empty chunk')
})

t.test('a producer awaiting only send() ends once the stream closes, with FW_ERR_STREAM_CLOSED', async (t) => {
  // Bounded only so that the defect shows as a failed count instead of a test spinning forever.
  const SPIN_LIMIT = 100_000
  let after_close = 0
  let ended_with: unknown
  let finally_ran = false
  const { stream } = stream_of(async (sink) => {
    try {
      for (;;) {
        if (sink.closed && ++after_close > SPIN_LIMIT) return
        await sink.send({ data: 'x'.repeat(1024) })
      }
    } catch (err) {
      ended_with = err
    } finally {
      finally_ran = true
    }
  })
  const errors: unknown[] = []
  stream.on('error', (err) => errors.push(err))
  await settle()
  t.equal(finally_ran, false, 'the producer waits for a reader that never comes')
  stream.destroy()
  // A timer firing: the process keeps turning (with the defect, it spins in microtasks up to SPIN_LIMIT first).
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.ok(after_close <= 1, `send() rejects at once after close (${after_close} sends after it)`)
  t.equal(finally_ran, true, "the producer's finally ran")
  t.match(ended_with, { code: 'FW_ERR_STREAM_CLOSED', message: /the stream is closed/ })
  t.same(errors, [], 'the producer ending so is no stream failure')
})

t.test('send() and comment() after close reject, and a rejection left unread is no unhandledRejection', async (t) => {
  const unhandled: unknown[] = []
  const on_unhandled = (reason: unknown): void => void unhandled.push(reason)
  process.on('unhandledRejection', on_unhandled)
  t.teardown(() => void process.off('unhandledRejection', on_unhandled))
  let sink!: SseSink
  const { stream, beat } = stream_of((s) => {
    sink = s
    return gate().promise
  })
  stream.resume()
  await settle()
  stream.destroy()
  await settle()
  t.equal(sink.closed, true)
  void sink.send({ data: 'fire and forget' })
  void sink.comment('fire and forget')
  beat()
  await settle()
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(unhandled, [], 'no unhandled rejection from writes nobody awaited')
  await t.rejects(sink.send({ data: 'awaited' }), { code: 'FW_ERR_STREAM_CLOSED' })
  await t.rejects(sink.comment('awaited'), { code: 'FW_ERR_STREAM_CLOSED' })
  // A bad event is still refused as bad, closed stream or not.
  await t.rejects(sink.send({ data: 'x', id: 'a\nb' }), { code: 'FW_ERR_STREAM_BAD_EVENT' })
})

t.test('Response.sse on a real socket: a producer awaiting only send() stops when its client goes away', async (t) => {
  const log = capture_log(t)
  const SPIN_LIMIT = 200_000
  const seen = { after_close: 0, finally_ran: false, first_sent: gate() }
  const { port } = await listening(t, (app) => {
    app.get('/firehose', (_req, res) =>
      res.sse(async (sink: SseSink) => {
        try {
          for (let n = 1; ; n++) {
            if (sink.closed && ++seen.after_close > SPIN_LIMIT) return
            await sink.send({ data: String(n) })
            if (n === 1) seen.first_sent.open()
          }
        } finally {
          seen.finally_ran = true
        }
      }),
    )
    app.get('/ping', (_req, res) => void res.json('ok', true))
  })
  await new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/firehose', agent: false }, (res) => {
      res.once('data', () => {
        req.destroy()
        resolve()
      })
    })
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)))
  })
  for (let i = 0; i < 250 && !seen.finally_ran; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(seen.finally_ran, true, "the producer's finally ran")
  t.ok(seen.after_close <= 1, `the producer stopped at its first send after close (${seen.after_close})`)
  const ping = await fetch(`http://127.0.0.1:${port}/ping`)
  t.equal(ping.status, 200, 'another request answers')
  t.notMatch(log.text(), /\[error\]|FW_ERR_STREAM_CLOSED/, 'nothing logged for the producer ending so')
})
