import { once } from 'node:events'
import { createReadStream, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { connect, constants as h2_constants, type IncomingHttpHeaders as Http2Headers } from 'node:http2'
import { connect as connect_tcp } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import t from 'tap'
import { http_cache } from '../../../lib/middleware/app/index.js'
import { compression } from '../../../lib/middleware/compression/compression.js'
import { format_event, sse_readable, type SseSink } from '../../../lib/stream/index.js'
import { build, gate, listening } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'

const INTERNAL = { ok: false, error: 'internal_error', message: 'Internal Server Error' }
const tick = (ms = 20): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Opens a GET on a real socket, reads until `until` shows up in the body, then drops the connection. */
function read_then_drop(
  port: number,
  path: string,
  until: string,
  headers: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
        if (body.includes(until)) {
          req.destroy()
          resolve(body)
        }
      })
    })
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)))
  })
}

t.test('Response.stream', async (t) => {
  // How many times the /bad-chunk generator's finally ran.
  let bad_chunk_closed = 0
  const app = build(t, (app) => {
    app.use((_req, res, next) => {
      res.header('x-mw', 'yes')
      return next()
    })
    app.use('/cached', http_cache({ policy: { ttl_ms: 60_000 } }))
    app.get('/gen', (_req, res) =>
      res.stream(
        (async function* () {
          yield 'a,'
          // A view into a larger buffer: only its own bytes are sent.
          yield new Uint8Array([0, 98, 44, 0]).subarray(1, 3)
          yield Buffer.from('c')
        })(),
        'text/csv',
      ),
    )
    app.get('/readable', (_req, res) => res.stream(Readable.from(['x', 'y'])))
    app.get('/fails-first', (_req, res) =>
      res.stream(
        (async function* () {
          await tick(1)
          throw new Error('boom')
          yield ''
        })(),
      ),
    )
    app.get('/cached/s', (_req, res) => res.stream(Readable.from(['s'])))
    app.get('/bad-chunk', (_req, res) =>
      res.stream(
        (async function* () {
          try {
            yield 42 as never
          } finally {
            bad_chunk_closed++
          }
        })(),
      ),
    )
  })

  t.test('streams an async iterable of strings and bytes with the middleware headers', async (t) => {
    const r = await app.inject({ url: '/gen' })
    t.same([r.statusCode, r.body, r.headers['content-type'], r.headers['x-mw']], [200, 'a,b,c', 'text/csv', 'yes'])
  })

  t.test('streams a Readable as application/octet-stream by default', async (t) => {
    const r = await app.inject({ url: '/readable' })
    t.same([r.body, r.headers['content-type']], ['xy', 'application/octet-stream'])
  })

  t.test('answers the usual 500 JSON for an error before the first byte', async (t) => {
    const log = capture_log(t)
    const r = await app.inject({ url: '/fails-first' })
    t.same([r.statusCode, r.json()], [500, INTERNAL])
    t.match(log.text(), /boom/)
  })

  t.test('a chunk that is neither text nor bytes fails the stream and closes its source', async (t) => {
    const log = capture_log(t)
    const r = await app.inject({ url: '/bad-chunk' })
    t.same([r.statusCode, r.json()], [500, INTERNAL])
    t.match(
      log.text(),
      /res\.stream\(\) takes a Readable or an async iterable of string or Uint8Array; got a chunk of type number/,
    )
    for (let i = 0; i < 50 && bad_chunk_closed === 0; i++) await tick(2)
    t.equal(bad_chunk_closed, 1, "the generator's finally ran")
  })

  t.test('http_cache answers bypass and never stores a streamed answer', async (t) => {
    for (let i = 0; i < 2; i++) {
      const r = await app.inject({ url: '/cached/s' })
      t.same([r.body, r.headers['x-fw-cache-status']], ['s', 'bypass'])
    }
  })

  t.test('HEAD sends the headers and lets the source go unread', async (t) => {
    const r = await app.inject({ method: 'HEAD', url: '/gen' })
    t.same([r.statusCode, r.body, r.headers['content-type']], [200, '', 'text/csv'])
    // The GET's length is unknown (it is sent chunked): a HEAD must not claim one (RFC 9110 8.6).
    const get = await app.inject({ url: '/gen' })
    t.same([get.headers['content-length'], r.headers['content-length']], [undefined, undefined])
  })

  t.test('refuses a source that cannot be streamed', async (t) => {
    capture_log(t)
    const bad = build(t, (app) => app.get('/x', (_req, res) => res.stream(42 as never)))
    t.equal((await bad.inject({ url: '/x' })).statusCode, 500)
  })
})

t.test('Response.stream of a Readable', async (t) => {
  const sources: Readable[] = []
  const app = build(t, (app) => {
    // A middleware with work after next() (a session saved, a counter written): the answer is sent after it.
    app.use(async (_req, _res, next) => {
      await next()
      await tick(30)
    })
    app.get('/missing', (_req, res) => res.stream(createReadStream('/nonexistent/fw-test-file')))
    app.get('/objects', (_req, res) => {
      const source = Readable.from([{ id: 1 }])
      sources.push(source)
      res.stream(source)
    })
    app.get('/strings', (_req, res) => res.stream(Readable.from(['a', new Uint8Array([98]), 'c'])))
  })

  t.test('a file that fails to open before the answer is sent answers 500 JSON, and the process goes on', async (t) => {
    const log = capture_log(t)
    const r = await app.inject({ url: '/missing' })
    t.same([r.statusCode, r.json()], [500, INTERNAL])
    t.match(log.text(), /ENOENT/)
  })

  t.test('an object-mode Readable with a chunk neither text nor bytes fails the stream and is destroyed', async (t) => {
    const log = capture_log(t)
    const r = await app.inject({ url: '/objects' })
    t.same([r.statusCode, r.json()], [500, INTERNAL])
    t.match(log.text(), /got a chunk of type object/)
    for (let i = 0; i < 50 && sources[0]?.destroyed !== true; i++) await tick(2)
    t.equal(sources[0]?.destroyed, true, 'the source was destroyed')
  })

  t.test('an object-mode Readable of strings and bytes streams as before', async (t) => {
    const r = await app.inject({ url: '/strings' })
    t.same([r.statusCode, r.body], [200, 'abc'])
  })
})

t.test('Response.stream sources let go unread', async (t) => {
  const closed: string[] = []
  /** A generator already started (a cursor opened), as a helper returning a prepared iterator gives it. */
  const started = (name: string): AsyncGenerator<string> => {
    const it = (async function* () {
      try {
        yield 'a'
        yield 'b'
      } finally {
        closed.push(name)
      }
    })()
    void it.next()
    return it
  }
  const app = build(t, (app) => {
    app.get('/generator', (_req, res) => res.stream(started('generator')))
    app.get('/web', (_req, res) =>
      res.stream(
        new ReadableStream<Uint8Array>({
          pull: (c) => c.enqueue(new Uint8Array([120])),
          cancel: () => void closed.push('web stream'),
        }),
      ),
    )
    app.get('/rejecting', (_req, res) =>
      res.stream({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.resolve({ done: false, value: 'x' }),
          return: () => (closed.push('rejecting'), Promise.reject(new Error('cannot close'))),
        }),
      }),
    )
    app.get('/replaced', (_req, res) => res.stream(started('replaced')).status(409).json('ok', false))
  })
  const settled = async (n: number): Promise<void> => {
    for (let i = 0; i < 50 && closed.length < n; i++) await tick(2)
  }

  t.test("HEAD closes an async iterable source: a generator's finally runs, a web stream is cancelled", async (t) => {
    for (const url of ['/generator', '/web', '/rejecting']) {
      const r = await app.inject({ method: 'HEAD', url })
      t.same([r.statusCode, r.body], [200, ''], url)
    }
    await settled(3)
    t.same(closed.sort(), ['generator', 'rejecting', 'web stream'])
  })

  t.test('a handler replacing a streamed body closes its async iterable source', async (t) => {
    closed.length = 0
    const r = await app.inject({ url: '/replaced' })
    t.same([r.statusCode, r.json()], [409, { ok: false }])
    await settled(1)
    t.same(closed, ['replaced'])
  })
})

t.test('Response.stream on a real socket', async (t) => {
  const state = { finally_ran: 0, file_closed: 0, web_cancelled: 0, objects_closed: 0 }
  const { port } = await listening(t, (app) => {
    app.get('/idle-web', (_req, res) =>
      res.stream(
        new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(Buffer.from('first\n')),
          cancel: () => void state.web_cancelled++,
        }),
      ),
    )
    app.get('/idle-objects', (_req, res) => {
      const source = new Readable({ objectMode: true, read: () => {} })
      source.push('first\n')
      source.on('close', () => state.objects_closed++)
      res.stream(source)
    })
    app.get('/endless', (_req, res) =>
      res.stream(
        (async function* () {
          try {
            for (let i = 0; ; i++) {
              yield `line ${i}\n`
              await tick(1)
            }
          } finally {
            state.finally_ran++
          }
        })(),
      ),
    )
    app.get('/file', (_req, res) => {
      const file = createReadStream('/dev/zero', { highWaterMark: 16 * 1024 })
      file.on('close', () => state.file_closed++)
      res.stream(file)
    })
    app.get('/fails-later', (_req, res) =>
      res.stream(
        (async function* () {
          yield 'first\n'
          await tick(5)
          throw new Error('late failure')
        })(),
      ),
    )
  })

  t.test('a client disconnecting mid-stream ends the generator and closes the file (no leak)', async (t) => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'FSReqCallback' || r === 'FileHandle').length
    await read_then_drop(port, '/endless', 'line 3')
    await read_then_drop(port, '/file', '\0')
    for (let i = 0; i < 250 && (state.finally_ran < 1 || state.file_closed < 1); i++) await tick()
    t.same([state.finally_ran, state.file_closed], [1, 1])
    // An FSReqCallback is an fs call in flight (the file's own close among them): wait for those to settle, so only a
    // handle that stays open counts.
    const open = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === 'FSReqCallback' || r === 'FileHandle').length
    for (let i = 0; i < 50 && open() > before; i++) await tick()
    const after = open()
    t.ok(after <= before, `file handles ${before} -> ${after}`)
  })

  t.test('a client disconnecting while an idle web stream or object-mode Readable waits releases it', async (t) => {
    // A proxied fetch() body or a queue's Readable with nothing to give yet: waiting for its next chunk must not hold
    // it (and the upstream connection behind it) open after the client left.
    await read_then_drop(port, '/idle-web', 'first')
    await read_then_drop(port, '/idle-objects', 'first')
    for (let i = 0; i < 50 && (state.web_cancelled < 1 || state.objects_closed < 1); i++) await tick()
    t.same([state.web_cancelled, state.objects_closed], [1, 1])
  })

  t.test('an error after the first byte ends the stream and is logged', async (t) => {
    const log = capture_log(t)
    const body = await new Promise<string>((resolve) => {
      http
        .get({ host: '127.0.0.1', port, path: '/fails-later', agent: false }, (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('error', () => resolve(text))
          res.on('close', () => resolve(text))
        })
        .on('error', () => undefined)
    })
    t.equal(body, 'first\n')
    for (let i = 0; i < 250 && !log.text().includes('late failure'); i++) await tick()
    t.match(log.text(), /stream failed after the first byte.*late failure/s)
  })
})

t.test('format_event', async (t) => {
  t.test('writes fields, one data line per line, and JSON for non-strings', async (t) => {
    t.equal(
      format_event({ data: 'a\nb\r\nc', event: 'tick', id: '7', retry: 1000 }),
      'event: tick\nid: 7\nretry: 1000\ndata: a\ndata: b\ndata: c\n\n',
    )
    t.equal(format_event({ data: { n: 1 } }), 'data: {"n":1}\n\n')
  })

  t.test('refuses a CR or LF in event or id, and a bad retry (no event injection)', async (t) => {
    t.throws(() => format_event({ data: 'x', event: 'a\ndata: evil' }), { code: 'FW_ERR_STREAM_BAD_EVENT' })
    t.throws(() => format_event({ data: 'x', id: 'a\rb' }), { code: 'FW_ERR_STREAM_BAD_EVENT' })
    t.throws(() => format_event({ data: 'x', retry: -1 }), { code: 'FW_ERR_STREAM_BAD_EVENT' })
  })
})

t.test('Response.sse', async (t) => {
  const app = build(t, (app) => {
    app.use((_req, res, next) => {
      res.header('access-control-allow-origin', '*')
      return next()
    })
    app.get('/events', (_req, res) =>
      res.sse(async (sink) => {
        await sink.send({ data: `resume after ${sink.last_event_id ?? 'none'}`, id: '1' })
        await sink.comment('hello')
        await sink.send({ data: { n: 2 }, event: 'count', id: '2' })
      }),
    )
    app.get('/fails', (_req, res) =>
      res.sse(() => {
        throw new Error('no events')
      }),
    )
  })

  t.test('sends events with SSE headers and the middleware headers, ending when the producer settles', async (t) => {
    const r = await app.inject({ url: '/events', headers: { 'last-event-id': '41' } })
    t.same(
      [
        r.statusCode,
        r.headers['content-type'],
        r.headers['cache-control'],
        r.headers['x-accel-buffering'],
        r.headers['access-control-allow-origin'],
      ],
      [200, 'text/event-stream; charset=utf-8', 'no-cache', 'no', '*'],
    )
    t.equal(r.body, 'id: 1\ndata: resume after 41\n\n: hello\n\nevent: count\nid: 2\ndata: {"n":2}\n\n')
  })

  t.test('a producer failing before the first event answers 500 JSON', async (t) => {
    capture_log(t)
    const r = await app.inject({ url: '/fails' })
    t.same([r.statusCode, r.json()], [500, INTERNAL])
  })

  t.test('sends a heartbeat comment on the timer, and stops it when the stream ends', async (t) => {
    let beat: (() => void) | undefined
    let stopped = false
    const every = (fn: () => void): (() => void) => {
      beat = fn
      return () => (stopped = true)
    }
    const held = gate()
    const stream = sse_readable(async () => held.promise, undefined, 15_000, every)
    const chunks: string[] = []
    stream.on('data', (c: Buffer) => chunks.push(c.toString()))
    beat!()
    held.open()
    await new Promise((resolve) => stream.on('end', resolve))
    t.same([chunks, stopped], [[': heartbeat\n\n'], true])
  })
})

t.test('Response.sse on a real socket', async (t) => {
  const seen: { aborted: boolean; closed: boolean }[] = []
  const { port } = await listening(t, (app) => {
    app.get('/events', (_req, res) =>
      res.sse(async (sink: SseSink) => {
        for (let n = 1; !sink.closed; n++) {
          await sink.send({ data: String(n), id: String(n) })
          await tick(2)
        }
        seen.push({ aborted: sink.signal.aborted, closed: sink.closed })
      }),
    )
    app.get('/last-id', (_req, res) =>
      res.sse(async (sink: SseSink) => {
        await sink.send({ data: JSON.stringify(sink.last_event_id ?? null) })
      }),
    )
  })

  t.test('a repeated Last-Event-ID hands the producer the first one, not the values joined', async (t) => {
    // Node joins repeated unknown headers with ", ": "7, 9" is no id the server ever sent.
    const cases: [string[], string][] = [
      [['Last-Event-ID: 7', 'last-event-id: 9'], '"7"'],
      [['Last-Event-ID: 7'], '"7"'],
      [['Last-Event-ID: 1, 2'], '"1, 2"'],
      [[], 'null'],
    ]
    for (const [lines, data] of cases) {
      const socket = connect_tcp(port, '127.0.0.1')
      socket.write(['GET /last-id HTTP/1.1', 'Host: x', 'Connection: close', ...lines, '', ''].join('\r\n'))
      let answer = ''
      socket.setEncoding('utf8').on('data', (c: string) => (answer += c))
      await once(socket, 'close')
      t.match(answer, new RegExp(`^HTTP/1\\.1 200 [^]*\\r\\n\\r\\n[^]*data: ${data}\n`), lines.join(' | ') || 'none')
    }
  })

  t.test('a client going away fires the signal and ends the producer (no timer or listener left)', async (t) => {
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const before = timers()
    const body = await read_then_drop(port, '/events', 'data: 3\n')
    t.match(body, /^id: 1\ndata: 1\n\n/)
    for (let i = 0; i < 250 && seen.length === 0; i++) await tick()
    t.same(seen, [{ aborted: true, closed: true }])
    await tick()
    t.ok(timers() <= before, `timers ${before} -> ${timers()}`)
  })
})

/**
 * A GET on its own connection: `head` resolves with the status and headers as soon as they arrive (or rejects after
 * `wait_ms`), `answer` once the response is over with its body (gunzipped when gzip was asked) and whether it ended
 * whole.
 */
function sse_get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  wait_ms = 2000,
): {
  head: Promise<{ status: number; headers: http.IncomingHttpHeaders }>
  answer: Promise<{ body: string; complete: boolean }>
} {
  let got_head!: (head: { status: number; headers: http.IncomingHttpHeaders }) => void
  let no_head!: (err: Error) => void
  const head = new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    got_head = resolve
    no_head = reject
  })
  const timer = setTimeout(() => no_head(new Error(`no status line and headers within ${wait_ms} ms`)), wait_ms)
  const answer = new Promise<{ body: string; complete: boolean }>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      clearTimeout(timer)
      got_head({ status: res.statusCode ?? 0, headers: res.headers })
      let body = ''
      const text = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res
      text.on('data', (c: Buffer) => (body += c.toString()))
      text.on('error', () => undefined)
      res.on('error', () => undefined)
      // A whole answer is read once the gunzip has given its last bytes; a cut one ends the gunzip never.
      res.on('close', () =>
        res.complete && !text.readableEnded
          ? text.once('end', () => resolve({ body, complete: true }))
          : resolve({ body, complete: res.complete }),
      )
    })
    req.on('error', () => resolve({ body: '', complete: false }))
  })
  return { head, answer }
}

t.test('Response.sse sends its status and headers before the first event', async (t) => {
  const held = { plain: gate(), gzip: gate(), fails: gate() }
  const { port } = await listening(t, (app) => {
    app.use((_req, res, next) => {
      res.header('access-control-allow-origin', '*')
      return next()
    })
    app.use('/gzip', compression())
    app.get('/plain', (_req, res) =>
      res.sse(async (sink) => {
        await held.plain.promise
        await sink.send({ data: 'first' })
      }),
    )
    app.get('/gzip/events', (_req, res) =>
      res.sse(async (sink) => {
        await held.gzip.promise
        await sink.send({ data: 'first' })
      }),
    )
    app.get('/fails', (_req, res) =>
      res.sse(async () => {
        await held.fails.promise
        throw new Error('late producer failure')
      }),
    )
    app.get('/empty', (_req, res) => res.sse(() => {}))
    app.get('/empty-later', (_req, res) => res.sse(() => tick(5)))
  })

  t.test('the head arrives while the producer waits for its first event', async (t) => {
    const client = sse_get(port, '/plain')
    const head = await client.head.finally(() => held.plain.open())
    t.same(
      [
        head.status,
        head.headers['content-type'],
        head.headers['cache-control'],
        head.headers['x-accel-buffering'],
        head.headers['access-control-allow-origin'],
      ],
      [200, 'text/event-stream; charset=utf-8', 'no-cache', 'no', '*'],
    )
    t.same(await client.answer, { body: 'data: first\n\n', complete: true })
  })

  t.test('so does a compressed answer', async (t) => {
    const client = sse_get(port, '/gzip/events', { 'accept-encoding': 'gzip' })
    const head = await client.head.finally(() => held.gzip.open())
    t.same(
      [head.status, head.headers['content-type'], head.headers['content-encoding'], head.headers.vary],
      [200, 'text/event-stream; charset=utf-8', 'gzip', 'Accept-Encoding'],
    )
    t.same(await client.answer, { body: 'data: first\n\n', complete: true })
  })

  t.test('a producer failing after the head, before any event, cuts the stream and is logged', async (t) => {
    const log = capture_log(t)
    const client = sse_get(port, '/fails')
    const head = await client.head.finally(() => held.fails.open())
    t.equal(head.status, 200)
    t.same(await client.answer, { body: '', complete: false })
    for (let i = 0; i < 250 && !log.text().includes('late producer failure'); i++) await tick()
    t.match(log.text(), /stream failed after the first byte.*late producer failure/s)
  })

  t.test('a producer that ends without an event sends an empty, whole answer', async (t) => {
    for (const path of ['/empty', '/empty-later']) {
      const client = sse_get(port, path)
      t.equal((await client.head).status, 200, path)
      t.same(await client.answer, { body: '', complete: true }, path)
    }
  })
})

t.test('Response.sse still answers 500 JSON for a producer failing before it waits on anything', async (t) => {
  const app = build(t, (app) => {
    app.get('/async-throw', (_req, res) =>
      res.sse(async () => {
        throw new Error('at once')
      }),
    )
    app.get('/after-microtasks', (_req, res) =>
      res.sse(async () => {
        await null
        await Promise.resolve()
        throw new Error('after microtasks')
      }),
    )
    app.get('/handler-throws', (_req, res) => {
      res.sse(() => {})
      throw new Error('the handler failed after res.sse()')
    })
  })
  for (const url of ['/async-throw', '/after-microtasks', '/handler-throws']) {
    capture_log(t)
    const r = await app.inject({ url })
    t.same([r.statusCode, r.headers['content-type'], r.json()], [500, 'application/json; charset=utf-8', INTERNAL], url)
  }
})

t.test('Response.sse sends its head before the first event over cleartext HTTP/2 too', async (t) => {
  const held = gate()
  const { port } = await listening(
    t,
    (app) =>
      app.get('/events', (_req, res) =>
        res.sse(async (sink) => {
          await held.promise
          await sink.send({ data: 'first' })
        }),
      ),
    { http2: true, access_log: false },
  )
  const session = connect(`http://127.0.0.1:${port}`)
  session.on('error', () => {})
  t.teardown(() => session.close())
  const s = session.request({ ':path': '/events' })
  let body = ''
  s.setEncoding('utf8').on('data', (c: string) => (body += c))
  const ended = new Promise((resolve) => s.on('close', resolve))
  const head = await Promise.race([
    new Promise<Http2Headers>((resolve) => s.once('response', resolve)),
    tick(2000).then(() => undefined),
  ]).finally(() => held.open())
  t.same([head?.[':status'], head?.['content-type']], [200, 'text/event-stream; charset=utf-8'])
  await ended
  t.equal(body, 'data: first\n\n')
})

t.test('a stream failing after its first byte over HTTP/2 resets the stream, never a clean end', async (t) => {
  const { port } = await listening(
    t,
    (app) => {
      app.use('/gz', compression())
      const failing = async function* (): AsyncGenerator<string> {
        yield 'first\n'
        await tick(5)
        throw new Error('late failure')
      }
      app.get('/fails-later', (_req, res) => res.stream(failing()))
      app.get('/gz/fails-later', (_req, res) => res.stream(failing(), 'text/plain'))
      app.get('/sse-fails-later', (_req, res) =>
        res.sse(async (sink) => {
          await sink.send({ data: 'first' })
          await tick(5)
          throw new Error('late failure')
        }),
      )
    },
    { http2: true, access_log: false },
  )
  const session = connect(`http://127.0.0.1:${port}`)
  session.on('error', () => {})
  t.teardown(() => session.close())
  for (const path of ['/fails-later', '/gz/fails-later', '/sse-fails-later']) {
    const log = capture_log(t)
    const s = session.request({ ':path': path, 'accept-encoding': 'gzip' })
    s.on('error', () => {})
    let got_data = false
    let ended = false
    s.on('data', () => (got_data = true))
    s.on('end', () => (ended = true))
    await new Promise((resolve) => s.on('close', resolve))
    // A body that ends (END_STREAM, or a reset saying NO_ERROR) reads as a complete answer.
    t.same([got_data, ended, s.rstCode], [true, false, h2_constants.NGHTTP2_INTERNAL_ERROR], path)
    for (let i = 0; i < 50 && !log.text().includes('late failure'); i++) await tick()
    t.equal(log.text().match(/stream failed after the first byte/g)?.length, 1, `${path}: logged once`)
  }
})

t.test('Response.file cut short after its first byte fails as a stream does', async (t) => {
  // A file shrinking while it is sent (a log rotated, truncated): fs.ReadStream reads that as an early end, not an
  // error, so the answer would end short of its Content-Length and look complete.
  const dir = mkdtempSync(join(tmpdir(), 'fw-file-short-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const SIZE = 16 << 20
  const path = join(dir, 'big.bin')
  const h1 = await listening(t, (app) => app.get('/big', (_req, res) => res.file(path)))
  const h2 = await listening(t, (app) => app.get('/big', (_req, res) => res.file(path)), { http2: true })

  /** Reads the file's answer, truncating the file once the first chunk came: what the client saw. */
  const read_truncated = (
    start: (
      on_chunk: (n: number, pause: () => void, resume: () => void) => void,
      on_done: (ended: boolean, rst?: number) => void,
    ) => void,
  ) =>
    new Promise<{ got: number; ended: boolean; rst: number | undefined }>((resolve) => {
      writeFileSync(path, Buffer.alloc(SIZE, 97))
      let got = 0
      const timer = setTimeout(() => resolve({ got, ended: false, rst: -1 }), 3000)
      start(
        (n, pause, resume) => {
          if (got === 0) {
            // Paused, so the server is still reading the file when it shrinks.
            pause()
            truncateSync(path, 0)
            setTimeout(resume, 50)
          }
          got += n
        },
        (ended, rst) => {
          clearTimeout(timer)
          resolve({ got, ended, rst })
        },
      )
    })

  t.test('over HTTP/1 the connection is cut before Content-Length bytes, and the failure logged', async (t) => {
    const log = capture_log(t)
    let length = -1
    const seen = await read_truncated((on_chunk, on_done) => {
      http
        .get({ host: '127.0.0.1', port: h1.port, path: '/big', agent: false }, (res) => {
          length = Number(res.headers['content-length'])
          res.on('data', (c: Buffer) =>
            on_chunk(
              c.length,
              () => res.pause(),
              () => res.resume(),
            ),
          )
          res.on('error', () => {})
          res.on('close', () => on_done(res.complete))
        })
        .on('error', () => undefined)
    })
    t.equal(length, SIZE)
    t.ok(seen.got > 0 && seen.got < SIZE, `got ${seen.got} of ${SIZE} bytes`)
    t.same([seen.ended, seen.rst], [false, undefined], 'the connection closed at once, the body incomplete')
    for (let i = 0; i < 50 && !log.text().includes('file'); i++) await tick()
    t.match(log.text(), /stream failed after the first byte.*file ended after \d+ of 16777216 bytes/s)
  })

  t.test('over HTTP/2 the stream is reset with INTERNAL_ERROR, and the failure logged', async (t) => {
    const log = capture_log(t)
    const session = connect(`http://127.0.0.1:${h2.port}`)
    session.on('error', () => {})
    t.teardown(() => session.close())
    const seen = await read_truncated((on_chunk, on_done) => {
      const s = session.request({ ':path': '/big' })
      s.on('error', () => {})
      let ended = false
      s.on('data', (c: Buffer) =>
        on_chunk(
          c.length,
          () => s.pause(),
          () => s.resume(),
        ),
      )
      s.on('end', () => (ended = true))
      s.on('close', () => on_done(ended, s.rstCode))
    })
    t.ok(seen.got > 0 && seen.got < SIZE, `got ${seen.got} of ${SIZE} bytes`)
    t.same([seen.ended, seen.rst], [false, h2_constants.NGHTTP2_INTERNAL_ERROR])
    for (let i = 0; i < 50 && !log.text().includes('file'); i++) await tick()
    t.equal(log.text().match(/stream failed after the first byte.*file ended after/g)?.length, 1, 'logged once')
  })
})
