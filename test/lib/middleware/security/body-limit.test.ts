import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { adapt_ctx, App } from '../../../../index.js'
import { route_options_of } from '../../../../lib/compose.js'
import { body_limit } from '../../../../lib/middleware/security/body-limit.js'

function limited(t: Test, max_bytes?: number) {
  const app = new App({ access_log: false })
  const seen: number[] = []
  // Marks answers that went through the middleware chain: a refused body still runs it, in place of the handler.
  app.use((_req, res, next) => {
    res.header('x-chain', 'yes')
    return next()
  })
  app.use(adapt_ctx(max_bytes === undefined ? body_limit() : body_limit({ max_bytes })))
  app.post('/echo', (req, res) => {
    seen.push(req.body().length)
    res.json('len', req.body().length)
  })
  app.get('/echo', (req, res) => {
    seen.push(req.body().length)
    res.json('len', req.body().length)
  })
  t.teardown(() => app.close())
  return { app, seen }
}

/** Writes raw bytes to a server and collects what comes back until it closes the connection (or 2 s pass). */
function raw(port: number, chunks: string[]): Promise<string> {
  return new Promise((resolve) => {
    let out = ''
    const socket = connect(port, '127.0.0.1', () => {
      for (const c of chunks) socket.write(c)
    })
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(out + '\n<still open>')
    }, 2000)
    socket.on('data', (d: Buffer) => (out += d.toString()))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
  })
}

/** The status of a POST of `n` bytes of text to `url`. */
async function status_of_post(app: App, url: string, n: number): Promise<number> {
  const r = await app.inject({ method: 'POST', url, payload: 'a'.repeat(n), headers: { 'content-type': 'text/plain' } })
  return r.statusCode
}

const TOO_LARGE = { ok: false, error: 'payload_too_large', message: 'Request body is too large' }

t.test('body_limit', async (t) => {
  t.test('asks the adapter for a route body limit, also through adapt_ctx', async (t) => {
    t.same(route_options_of(body_limit({ max_bytes: 10 }))?.body_limit, 10)
    t.same(route_options_of(adapt_ctx(body_limit()))?.body_limit, 1024 * 1024)
  })

  t.test('accepts a body up to the limit and refuses one byte more with 413 payload_too_large', async (t) => {
    const { app, seen } = limited(t, 100)
    const ok = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: 'a'.repeat(100),
      headers: { 'content-type': 'text/plain' },
    })
    t.equal(ok.statusCode, 200)
    t.same(ok.json(), { len: 100 })
    const r = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: 'a'.repeat(101),
      headers: { 'content-type': 'text/plain' },
    })
    t.equal(r.statusCode, 413)
    t.same(r.json(), TOO_LARGE)
    t.equal(r.headers['x-chain'], 'yes', 'the middleware ran for the 413, so its headers (CORS...) are on it')
    t.same(seen, [100], 'the handler did not run for the refused body')
  })

  t.test('defaults to 1 MiB', async (t) => {
    const { app } = limited(t)
    const MiB = 1024 * 1024
    const headers = { 'content-type': 'application/octet-stream' }
    t.equal((await app.inject({ method: 'POST', url: '/echo', payload: Buffer.alloc(MiB), headers })).statusCode, 200)
    t.equal(
      (await app.inject({ method: 'POST', url: '/echo', payload: Buffer.alloc(MiB + 1), headers })).statusCode,
      413,
    )
  })

  t.test('takes the smallest limit of the middleware on a route', async (t) => {
    const app = new App({ access_log: false, body_limit: 1000 })
    app.use(adapt_ctx(body_limit({ max_bytes: 500 })))
    app.use('/small', adapt_ctx(body_limit({ max_bytes: 10 })))
    app.post('/small/x', (_req, res) => void res.json('ok', true))
    app.post('/big', (_req, res) => void res.json('ok', true))
    t.teardown(() => app.close())
    const post = (url: string, n: number) => status_of_post(app, url, n)
    t.same([await post('/small/x', 10), await post('/small/x', 11)], [200, 413])
    t.same([await post('/big', 500), await post('/big', 501)], [200, 413])
  })

  t.test('warns, once per middleware, when a limit above the App option cannot raise it', async (t) => {
    const seen: Array<Error & { code?: string }> = []
    const listener = (w: Error): void => void seen.push(w)
    process.on('warning', listener)
    t.teardown(() => void process.off('warning', listener))
    const app = new App({ access_log: false, body_limit: 1000 })
    app.use('/up', adapt_ctx(body_limit({ max_bytes: 5000 })))
    app.use('/api', adapt_ctx(body_limit({ max_bytes: 1000 })))
    app.post('/up/a', (_req, res) => void res.json('ok', true))
    app.post('/up/b', (_req, res) => void res.json('ok', true))
    app.post('/api/c', (_req, res) => void res.json('ok', true))
    t.teardown(() => app.close())
    const post = (url: string, n: number) => status_of_post(app, url, n)
    t.same([await post('/up/a', 1000), await post('/up/a', 1001)], [200, 413], 'the App option still bounds it')
    await new Promise((resolve) => setImmediate(resolve))
    t.same(
      seen.map((w) => [w.code, w.message]),
      [
        [
          'FW_ERR_APP_BODY_LIMIT_IGNORED',
          "POST /up/a: body_limit({ max_bytes: 5000 }) is above the App's body_limit (1000) and cannot raise it: " +
            "raise the App's body_limit option (FW_BODY_LIMIT) to the most any route takes",
        ],
      ],
      'one warning for the middleware, naming the first route it covers; none for a limit at the App option',
    )
  })

  t.test('refuses a Content-Length over the limit itself where the adapter reads no body', async (t) => {
    const { app, seen } = limited(t, 100)
    const r = await app.inject({
      method: 'GET',
      url: '/echo',
      headers: { 'content-length': '101' },
      payload: 'a'.repeat(101),
    })
    t.equal(r.statusCode, 413)
    t.same(r.json(), TOO_LARGE)
    t.equal(r.headers['x-chain'], 'yes', 'answered by the middleware chain, not the body parser')
    t.same(seen, [])
  })

  t.test('answers 413 on a real socket from the Content-Length alone, before any body byte is sent', async (t) => {
    const { app, seen } = limited(t, 100)
    const port = await app.listen(0)
    const out = await raw(port, [
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10485760\r\n\r\n',
    ])
    t.match(out, /^HTTP\/1\.1 413 Payload Too Large\r\n/)
    t.same(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)), TOO_LARGE)
    t.same(seen, [])
  })

  t.test('answers 413 on a real socket when a chunked body grows over the limit', async (t) => {
    const { app, seen } = limited(t, 100)
    const port = await app.listen(0)
    const chunk = `40\r\n${'a'.repeat(64)}\r\n`
    const out = await raw(port, [
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunk,
      chunk,
      chunk,
      '0\r\n\r\n',
    ])
    t.match(out, /^HTTP\/1\.1 413 Payload Too Large\r\n/)
    t.same(seen, [])
  })

  t.test('reads no more than a lying Content-Length on a real socket and refuses the rest', async (t) => {
    const { app, seen } = limited(t, 100)
    const port = await app.listen(0)
    const out = await raw(port, [
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n' + 'a'.repeat(300),
    ])
    t.match(out, /HTTP\/1\.1 400 Bad Request\r\n/, 'the extra bytes are no valid request')
    t.notMatch(out, /"len":(?![0-5]\b)/)
    t.ok(
      seen.every((n) => n <= 5),
      `the handler saw ${JSON.stringify(seen)}`,
    )
  })

  t.test('takes no body at all with a limit of 0, from the middleware or the App option', async (t) => {
    const apps = [limited(t, 0).app, new App({ access_log: false, body_limit: 0 })]
    apps[1]!.post('/echo', (req, res) => res.json('len', req.body().length))
    t.teardown(() => apps[1]!.close())
    for (const app of apps) {
      t.equal((await app.inject({ method: 'POST', url: '/echo' })).statusCode, 200, 'a POST without a body passes')
      const r = await app.inject({
        method: 'POST',
        url: '/echo',
        payload: 'a',
        headers: { 'content-type': 'text/plain' },
      })
      t.same([r.statusCode, r.json()], [413, TOO_LARGE], 'one byte is too many')
      const port = await app.listen(0)
      const out = await raw(port, [
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n',
        '1\r\na\r\n0\r\n\r\n',
      ])
      t.match(out, /^HTTP\/1\.1 413 Payload Too Large\r\n/, 'a chunked byte too')
    }
  })

  t.test('throws at creation for a bad max_bytes', async (t) => {
    t.throws(() => body_limit({ max_bytes: -1 }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'body_limit: max_bytes must be an integer >= 0; got -1',
    })
  })
})
