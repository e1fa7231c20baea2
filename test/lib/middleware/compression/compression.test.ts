import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { get } from 'node:http'
import { brotliDecompressSync, createGunzip, gunzipSync, inflateSync } from 'node:zlib'
import t from 'tap'
import type { App } from '../../../../index.js'
import { compression } from '../../../../lib/middleware/compression/compression.js'
import { etag } from '../../../../lib/middleware/etag/etag.js'
import { http_cache } from '../../../../lib/cache/http/http-cache.js'
import { build, gate, listening, type Teardown } from '../../../helpers/build.js'

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A gzip GET of an SSE answer: `first` resolves once the first event is decoded, `answer` once the response is over
 * with the decoded text and whether it ended whole; `drop()` leaves as a client going away does.
 */
function sse_gzip(port: number): {
  first: Promise<void>
  answer: Promise<{ text: string; complete: boolean }>
  drop: () => void
} {
  const seen = gate()
  let text = ''
  const req = get({ port, host: '127.0.0.1', path: '/events', headers: { 'accept-encoding': 'gzip' }, agent: false })
  const answer = new Promise<{ text: string; complete: boolean }>((resolve) => {
    req.on('response', (res) => {
      const body = res.pipe(createGunzip())
      body.on('data', (c: Buffer) => {
        text += c.toString()
        if (text.includes('\n\n')) seen.open()
      })
      body.on('error', () => undefined)
      res.on('close', () => setImmediate(() => resolve({ text, complete: res.complete })))
    })
  })
  req.on('error', () => undefined)
  return { first: seen.promise, answer, drop: () => req.destroy() }
}

/** An App compressing one SSE answer whose producer sends an event, then waits for its signal and records it. */
async function sse_app(t: Teardown, aborted: string[]) {
  return listening(
    t,
    (app) => {
      app.use(compression())
      app.get(
        '/events',
        (_req, res) =>
          void res.sse(
            async (sink) => {
              await sink.send({ data: 'hello' })
              await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }))
              aborted.push(`aborted, closed: ${sink.closed}`)
            },
            { heartbeat_ms: 0 },
          ),
      )
    },
    { close_timeout_ms: 5000 },
  )
}

const BIG = JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i}` })) })

function app_with(t: Teardown, setup?: (app: App) => void) {
  return build(t, (app) => {
    app.use(compression())
    setup?.(app)
    app.get('/big', (_req, res) => void res.header('content-type', 'application/json; charset=utf-8').send(BIG))
    app.get('/small', (_req, res) => void res.json('ok', true))
    app.get('/png', (_req, res) => void res.header('content-type', 'image/png').send(Buffer.alloc(4096, 1)))
    app.get(
      '/nt',
      (_req, res) => void res.header('cache-control', 'no-transform').header('content-type', 'text/plain').send(BIG),
    )
    app.get('/random', (_req, res) => void res.header('content-type', 'text/plain').send(randomBytes(2048)))
  })
}

t.test('compression', async (t) => {
  t.test('picks br, gzip or deflate by q-values, and sets Vary', async (t) => {
    const app = app_with(t)
    const cases: Array<[string, string, (b: Buffer) => Buffer]> = [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip;q=1, br;q=0.5', 'gzip', gunzipSync],
      ['deflate', 'deflate', inflateSync],
      ['*', 'br', brotliDecompressSync],
      // RFC 9110 8.4.1.3: x-gzip is gzip.
      ['x-gzip', 'gzip', gunzipSync],
      ['X-GZIP;q=0.9, deflate;q=0.5', 'gzip', gunzipSync],
    ]
    for (const [accept, enc, decode] of cases) {
      const r = await app.inject({ url: '/big', headers: { 'accept-encoding': accept } })
      t.equal(r.headers['content-encoding'], enc, accept)
      t.equal(r.headers.vary, 'Accept-Encoding')
      t.equal(decode(r.rawPayload).toString(), BIG)
      t.ok(Number(r.headers['content-length']) < BIG.length)
    }
  })

  t.test('sends the body as it is for identity, identity;q=0 alone, garbage, or no header', async (t) => {
    const app = app_with(t)
    for (const accept of ['identity', 'identity;q=0', 'gzip;q=0, br;q=0', ';;;==,,q=x', undefined]) {
      const r = await app.inject({ url: '/big', headers: accept === undefined ? {} : { 'accept-encoding': accept } })
      t.equal(r.statusCode, 200)
      t.equal(r.headers['content-encoding'], undefined, String(accept))
      t.equal(r.body, BIG)
      t.equal(r.headers.vary, 'Accept-Encoding')
    }
  })

  t.test('skips small bodies, compressed types, no-transform, and bodies that would grow', async (t) => {
    const app = app_with(t)
    const h = { 'accept-encoding': 'gzip' }
    const small = await app.inject({ url: '/small', headers: h })
    t.equal(small.headers['content-encoding'], undefined)
    t.equal(small.body, '{"ok":true}')
    const png = await app.inject({ url: '/png', headers: h })
    t.equal(png.headers['content-encoding'], undefined)
    t.equal(png.headers.vary, undefined)
    t.equal((await app.inject({ url: '/nt', headers: h })).headers['content-encoding'], undefined)
    const random = await app.inject({ url: '/random', headers: h })
    t.equal(random.headers['content-encoding'], undefined, 'a compressed body larger than the original is not sent')
    t.equal(random.rawPayload.length, 2048)
  })

  t.test("leaves a handler's partial answer (206, Content-Range) as it is", async (t) => {
    const part = BIG.slice(0, 2000)
    const app = app_with(t, (app) =>
      app.get('/part', (_req, res) => {
        res.status(206).header('content-type', 'application/json').header('content-range', `bytes 0-1999/${BIG.length}`)
        res.send(part)
      }),
    )
    const r = await app.inject({ url: '/part', headers: { 'accept-encoding': 'gzip' } })
    t.equal(r.statusCode, 206)
    t.equal(r.headers['content-encoding'], undefined)
    t.equal(r.headers['content-range'], `bytes 0-1999/${BIG.length}`)
    t.equal(r.body, part, 'the bytes the range names')
  })

  t.test('reads the Content-Type past leading whitespace and parameters, and compresses ndjson', async (t) => {
    const app = app_with(t, (app) =>
      app.get('/typed', (req, res) => void res.header('content-type', String(req.query().type)).send(BIG)),
    )
    for (const type of [
      ' text/html',
      '\ttext/plain; charset=utf-8',
      'application/json ;charset=utf-8',
      'TEXT/CSV',
      'application/x-ndjson',
      'application/ndjson; charset=utf-8',
    ]) {
      const r = await app.inject({
        url: `/typed?type=${encodeURIComponent(type)}`,
        headers: { 'accept-encoding': 'gzip' },
      })
      t.same([r.headers['content-encoding'], r.headers.vary], ['gzip', 'Accept-Encoding'], JSON.stringify(type))
      if (r.headers['content-encoding'] === 'gzip') t.equal(gunzipSync(r.rawPayload).toString(), BIG)
    }
    for (const type of ['image/png', 'application/octet-stream', 'application/zip', 'x text/html']) {
      const r = await app.inject({
        url: `/typed?type=${encodeURIComponent(type)}`,
        headers: { 'accept-encoding': 'gzip' },
      })
      t.equal(r.headers['content-encoding'], undefined, JSON.stringify(type))
    }
  })

  t.test('keeps the strong ETag of a partial answer (206): it is a part of the identity representation', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-compression-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'big.json'), BIG)
    const app = app_with(t, (app) => {
      app.use(etag())
      app.get('/file', (_req, res) => void res.header('content-type', 'application/json').file(join(dir, 'big.json')))
      app.get('/part', (_req, res) => {
        res.status(206).header('content-type', 'application/json').header('etag', '"v1"')
        res.header('content-range', `bytes 0-1999/${BIG.length}`).send(BIG.slice(0, 2000))
      })
    })
    const gzip = { 'accept-encoding': 'gzip' }
    const part = await app.inject({ url: '/part', headers: gzip })
    t.same([part.statusCode, part.headers['content-encoding'], part.headers.etag], [206, undefined, '"v1"'])
    t.equal(part.body, BIG.slice(0, 2000))
    const whole = await app.inject({ url: '/file' })
    t.equal(whole.statusCode, 200)
    const range = await app.inject({ url: '/file', headers: { ...gzip, range: 'bytes=0-99' } })
    t.equal(range.statusCode, 206)
    t.equal(range.headers['content-encoding'], undefined)
    t.equal(range.headers['content-range'], `bytes 0-99/${BIG.length}`)
    t.equal(range.body, BIG.slice(0, 100))
    // The file's tag is @fastify/send's own (weak by default, size and mtime), given to the range as to the whole.
    t.equal(range.headers.etag, whole.headers.etag, 'the tag of the whole file')
  })

  t.test('keeps Vary on a 304 and makes a strong ETag weak on a compressed answer', async (t) => {
    const app = app_with(t, (app) => app.use(etag()))
    const first = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip' } })
    t.match(first.headers.etag, /^W\/"/)
    const again = await app.inject({
      url: '/big',
      headers: { 'accept-encoding': 'gzip', 'if-none-match': String(first.headers.etag) },
    })
    t.equal(again.statusCode, 304)
    t.equal(again.headers.vary, 'Accept-Encoding')
    t.equal(again.body, '')
  })

  t.test('gives the 304 of a type it never compresses no Vary, as its 200 has none (RFC 9110 15.4.5)', async (t) => {
    const app = app_with(t, (app) => app.use(etag()))
    const h = { 'accept-encoding': 'gzip' }
    const first = await app.inject({ url: '/png', headers: h })
    t.same([first.statusCode, first.headers.vary], [200, undefined])
    const again = await app.inject({ url: '/png', headers: { ...h, 'if-none-match': String(first.headers.etag) } })
    t.same([again.statusCode, again.headers['content-type'], again.headers.vary], [304, undefined, undefined])
    const own = build(t, (app) => {
      app.use(compression())
      app.get('/x', (_req, res) => void res.status(304).header('etag', '"v1"').send(''))
    })
    const typeless = await own.inject({ url: '/x', headers: h })
    t.same([typeless.statusCode, typeless.headers.vary], [304, 'Accept-Encoding'], 'a 304 of unknown type keeps Vary')
  })

  t.test('gives a 304 the same tag as its 200, compressed or not', async (t) => {
    const app = app_with(t, (app) => app.use(etag()))
    for (const accept of ['gzip', 'br;q=1, gzip;q=0.5', 'identity']) {
      const first = await app.inject({ url: '/big', headers: { 'accept-encoding': accept } })
      t.equal(first.statusCode, 200)
      t.match(first.headers.etag, accept === 'identity' ? /^"/ : /^W\/"/, accept)
      for (const sent of [String(first.headers.etag), String(first.headers.etag).replace(/^W\//, '')]) {
        const again = await app.inject({ url: '/big', headers: { 'accept-encoding': accept, 'if-none-match': sent } })
        t.equal(again.statusCode, 304, `${accept} ${sent}`)
        t.equal(again.headers.etag, first.headers.etag, `${accept} ${sent}`)
      }
    }
  })

  t.test('serves a cached entry compressed when asked and plain when not', async (t) => {
    let runs = 0
    const app = app_with(t, (app) => {
      app.use(http_cache())
      app.get('/cached', (_req, res) => void (runs++, res.header('content-type', 'text/plain').send(BIG)))
    })
    await app.inject('/cached')
    const zipped = await app.inject({ url: '/cached', headers: { 'accept-encoding': 'gzip' } })
    t.equal(zipped.headers['x-fw-cache-status'], 'hit')
    t.equal(gunzipSync(zipped.rawPayload).toString(), BIG)
    const plain = await app.inject('/cached')
    t.equal(plain.body, BIG)
    t.equal(runs, 1)
  })

  t.test('refuses at startup an http_cache that runs before compression, where it would store nothing', async (t) => {
    for (const split of [false, true]) {
      const app = build(t, (app) => {
        // Split: the cache on a prefix, compression everywhere, registered later: the order on the route is the same.
        if (split) app.use('/cached', http_cache())
        else app.use(http_cache())
        app.use(compression())
        app.get('/cached', (_req, res) => void res.header('content-type', 'text/plain').send(BIG))
      })
      await t.rejects(app.inject('/cached'), {
        code: 'FW_ERR_APP_CACHE_ORDER',
        message: /^GET \/cached: http_cache runs before compression, .*register compression before http_cache/,
      })
    }
    const route_level = build(t, (app) => {
      app.use(compression())
      app.get('/r', { use: http_cache() }, (_req, res) => void res.header('content-type', 'text/plain').send(BIG))
    })
    t.equal((await route_level.inject('/r')).statusCode, 200, "a route's own cache runs after the App's compression")
  })

  t.test('rejects bad options', async (t) => {
    t.throws(() => compression({ threshold: -1 }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
    t.throws(() => compression({ encodings: ['zstd' as 'br'] }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
  })

  t.test('compresses a streamed body as it goes: it decompresses to the original and carries Vary', async (t) => {
    const chunks = Array.from({ length: 50 }, (_, i) => `line ${i} ${'x'.repeat(40)}\n`)
    const app = app_with(t, (app) => {
      app.get(
        '/stream',
        (_req, res) =>
          void res.stream(
            (async function* () {
              yield* chunks
            })(),
            'text/plain; charset=utf-8',
          ),
      )
      app.get(
        '/bytes',
        (_req, res) =>
          void res.stream(
            (async function* () {
              yield Buffer.from(BIG)
            })(),
          ),
      )
    })
    for (const [accept, decode] of [
      ['gzip', gunzipSync],
      ['br', brotliDecompressSync],
      ['deflate', inflateSync],
    ] as const) {
      const r = await app.inject({ url: '/stream', headers: { 'accept-encoding': accept } })
      t.equal(r.headers['content-encoding'], accept)
      t.equal(r.headers.vary, 'Accept-Encoding')
      t.equal(r.headers['content-length'], undefined)
      t.equal(decode(r.rawPayload).toString(), chunks.join(''))
    }
    const plain = await app.inject('/stream')
    t.equal(plain.headers['content-encoding'], undefined)
    t.equal(plain.body, chunks.join(''))
    const octets = await app.inject({ url: '/bytes', headers: { 'accept-encoding': 'gzip' } })
    t.equal(octets.headers['content-encoding'], undefined, 'application/octet-stream is not compressed')
  })

  t.test('answers a compressed stream that fails before its first byte with a plain 500 JSON body', async (t) => {
    const app = app_with(t, (app) => {
      app.get(
        '/fails',
        (_req, res) =>
          void res.stream(
            (async function* () {
              yield* []
              throw new Error('the source broke')
            })(),
            'text/plain; charset=utf-8',
          ),
      )
      app.get(
        '/sse-fails',
        (_req, res) =>
          void res.sse(async () => {
            throw new Error('the producer broke')
          }),
      )
    })
    for (const url of ['/fails', '/sse-fails']) {
      const r = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } })
      t.same(
        [r.statusCode, r.headers['content-encoding'], r.headers['content-type'], r.json()],
        [
          500,
          undefined,
          'application/json; charset=utf-8',
          { ok: false, error: 'internal_error', message: 'Internal Server Error' },
        ],
        url,
      )
    }
  })

  t.test('flushes each server-sent event: the first reaches the client while the producer still waits', async (t) => {
    const hold = gate()
    const { port } = await listening(t, (app) => {
      app.use(compression())
      app.get(
        '/events',
        (_req, res) =>
          void res.sse(async (sink) => {
            await sink.send({ event: 'tick', data: { n: 1 } })
            await hold.promise
            await sink.send({ event: 'tick', data: { n: 2 } })
          }),
      )
    })
    const text = await new Promise<string>((resolve, reject) => {
      get({ port, host: '127.0.0.1', path: '/events', headers: { 'accept-encoding': 'gzip' } }, (res) => {
        t.equal(res.headers['content-encoding'], 'gzip')
        t.equal(res.headers.vary, 'Accept-Encoding')
        let seen = ''
        const body = res.pipe(createGunzip())
        body.on('data', (c: Buffer) => {
          seen += c.toString()
          if (seen.includes('"n":1') && !seen.includes('"n":2')) hold.open()
        })
        body.on('end', () => resolve(seen))
        body.on('error', reject)
      }).on('error', reject)
    })
    t.equal(text, 'event: tick\ndata: {"n":1}\n\nevent: tick\ndata: {"n":2}\n\n')
  })

  t.test('a client leaving a compressed SSE answer fires the producer signal at once', async (t) => {
    const aborted: string[] = []
    const { port } = await sse_app(t, aborted)
    const client = sse_gzip(port)
    await client.first
    client.drop()
    for (let i = 0; i < 50 && aborted.length === 0; i++) await tick(20)
    t.same(aborted, ['aborted, closed: true'], 'the producer stopped within a second')
  })

  t.test('app.close() ends a compressed SSE answer as it ends a plain one', async (t) => {
    const aborted: string[] = []
    const { app, port } = await sse_app(t, aborted)
    const client = sse_gzip(port)
    await client.first
    const started = performance.now()
    await Promise.race([app.close(), tick(3000)])
    const took = performance.now() - started
    t.ok(took < 2000, `close() did not wait for close_timeout_ms (${took.toFixed(0)} ms of 5000)`)
    const cut = tick(1000).then(() => ({ text: 'still open 1 s later', complete: false }))
    t.same(await Promise.race([client.answer, cut]), { text: 'data: hello\n\n', complete: true }, 'a whole body')
    t.same(aborted, ['aborted, closed: true'], 'the producer saw its signal')
  })
})
