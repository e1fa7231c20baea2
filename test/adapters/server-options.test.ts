// AppOptions for the server: HTTPS (and reloading its certificate), HTTP/2 with HTTP/1.1 fallback, timeouts, limits.
import { request as h1 } from 'node:https'
import { connect, constants as h2, type ClientHttp2Session } from 'node:http2'
import type { Server } from 'node:http'
import type { TLSSocket } from 'node:tls'
import net from 'node:net'
import tls from 'node:tls'
import { generate } from 'selfsigned'
import t from 'tap'
import { App, stream_body } from '../../index.js'
import { connections_check_ms } from '../../lib/config.js'
import { listening, type Teardown } from '../helpers/build.js'
import { capture_log, logged_client_gone } from '../helpers/log.js'
import { parse_kv } from '../lib/log/capture.js'

async function cert(cn: string): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: cn }], { keySize: 2048 })
  return { key: pems.private, cert: pems.cert }
}

/** GET over HTTPS/1.1 trusting `ca`; resolves with the body and the certificate's CN. */
function get_h1(port: number, ca: string, path = '/x'): Promise<{ body: string; cn: string; alpn: string | false }> {
  return new Promise((resolve, reject) => {
    const req = h1(
      {
        host: '127.0.0.1',
        port,
        path,
        ca,
        servername: 'localhost',
        checkServerIdentity: () => undefined,
        agent: false,
      },
      (res) => {
        let body = ''
        const socket = res.socket as TLSSocket
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () =>
          resolve({ body, cn: String(socket.getPeerCertificate().subject?.CN), alpn: socket.alpnProtocol ?? false }),
        )
      },
    )
    req.on('error', reject)
    req.end()
  })
}

t.test('AppOptions server options', async (t) => {
  const first = await cert('first')

  t.test('serves HTTPS, and reload_tls swaps the certificate for new connections', async (t) => {
    const app = new App({ https: first, access_log: false })
    app.get('/x', (_req, res) => void res.text('secure'))
    t.teardown(() => app.close())
    const port = await app.listen(0)
    t.equal(app.url(), `https://127.0.0.1:${port}`)
    const a = await get_h1(port, first.cert)
    t.same([a.body, a.cn], ['secure', 'first'])
    const second = await cert('second')
    app.reload_tls(second)
    const b = await get_h1(port, second.cert)
    t.same([b.body, b.cn], ['secure', 'second'])
  })

  t.test('serves HTTP/2 over TLS, and HTTP/1.1 to a client without h2', async (t) => {
    const app = new App({ https: first, http2: true, access_log: false })
    app.get('/x', (_req, res) => void res.text('both'))
    t.teardown(() => app.close())
    const port = await app.listen(0)
    const session = connect(`https://127.0.0.1:${port}`, { ca: first.cert, checkServerIdentity: () => undefined })
    const body = await new Promise<string>((resolve, reject) => {
      const s = session.request({ ':path': '/x' })
      let text = ''
      s.on('response', (h) => (text += `${String(h[':status'])} `))
      s.on('data', (d: Buffer) => (text += d.toString()))
      s.on('end', () => resolve(text))
      s.on('error', reject)
    })
    session.close()
    t.equal(body, '200 both', 'an HTTP/2 client is answered in HTTP/2')
    const fallback = await get_h1(port, first.cert)
    t.same([fallback.body, fallback.alpn], ['both', false], 'a client offering no ALPN gets HTTP/1.1')
  })

  t.test('gives the HTTP/2 client address to req.ip() and to the access line alike', async (t) => {
    const out = capture_log(t)
    const app = new App({ https: first, http2: true, access_log: 'info' })
    app.get('/ip', (req, res) => void res.text(req.ip()))
    t.teardown(() => app.close())
    const port = await app.listen(0)
    const session = connect(`https://127.0.0.1:${port}`, { ca: first.cert, checkServerIdentity: () => undefined })
    t.teardown(() => session.close())
    const body = await new Promise<string>((resolve, reject) => {
      const s = session.request({ ':path': '/ip', 'x-request-id': 'h2-ip' })
      let text = ''
      s.on('data', (d: Buffer) => (text += d.toString()))
      s.on('end', () => resolve(text))
      s.on('error', reject)
    })
    t.equal(body, '127.0.0.1', 'req.ip()')
    // The access line is written once the stream has closed.
    let line: string | undefined
    while ((line = out.lines().find((l) => l.includes('rid=h2-ip'))) === undefined)
      await new Promise((resolve) => setTimeout(resolve, 5))
    t.equal(Object.fromEntries(parse_kv(line).pairs).ip, '127.0.0.1', 'the access line')
  })

  for (const tls of [true, false]) {
    const name = tls ? 'an HTTP/2 request' : 'an h2c request'
    t.test(`close() cuts ${name} still open after close_timeout_ms`, async (t) => {
      const app = new App({ ...(tls ? { https: first } : {}), http2: true, access_log: false, close_timeout_ms: 100 })
      let arrived!: () => void
      const in_flight = new Promise<void>((resolve) => (arrived = resolve))
      app.get('/never', async () => {
        arrived()
        await new Promise(() => {})
      })
      t.teardown(() => app.close())
      const port = await app.listen(0)
      const session = tls
        ? connect(`https://127.0.0.1:${port}`, { ca: first.cert, checkServerIdentity: () => undefined })
        : connect(`http://127.0.0.1:${port}`)
      session.on('error', () => {})
      const stream = session.request({ ':path': '/never' })
      let responded = false
      stream.on('response', () => (responded = true))
      const ended = new Promise<string>((resolve) => {
        stream.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
        stream.on('close', () => resolve('closed'))
      })
      await in_flight
      const started = performance.now()
      await app.close()
      const took = performance.now() - started
      t.ok(took >= 90 && took < 2000, `closed after ${Math.round(took)} ms`)
      t.same([await ended, responded], ['closed', false], 'the stream was cut without an answer')
      t.ok(session.destroyed || session.closed, 'the session is gone')
    })
  }

  t.test('serves cleartext HTTP/2 (h2c) when http2 is set without https, and closes with a session open', async (t) => {
    const app = new App({ http2: true, access_log: false, drain_ms: 0, close_timeout_ms: 10_000 })
    let arrived!: () => void
    const in_flight = new Promise<void>((resolve) => (arrived = resolve))
    let finish!: () => void
    app.get('/x', (req, res) => void res.text(`h2c ${req.ip()}`))
    app.get('/slow', async (_req, res) => {
      arrived()
      await new Promise<void>((resolve) => (finish = resolve))
      res.text('finished')
    })
    t.teardown(() => app.close())
    const port = await app.listen(0)
    t.equal(app.url(), `http://127.0.0.1:${port}`)
    const session = connect(`http://127.0.0.1:${port}`)
    session.on('error', () => {})
    const get = (path: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const s = session.request({ ':path': path })
        let text = ''
        s.on('response', (h) => (text += `${String(h[':status'])} `))
        s.on('data', (d: Buffer) => (text += d.toString()))
        s.on('end', () => resolve(text))
        s.on('error', reject)
      })
    t.equal(await get('/x'), '200 h2c 127.0.0.1', 'an h2c client is answered in HTTP/2')
    const slow = get('/slow')
    await in_flight
    const started = performance.now()
    const closed = app.close()
    await new Promise((resolve) => setTimeout(resolve, 50))
    finish()
    t.equal(await slow, '200 finished', 'the request in flight when close() began is answered')
    await closed
    const took = performance.now() - started
    t.ok(took < 2000, `close() did not wait for close_timeout_ms with the session open (${Math.round(took)} ms)`)
    t.ok(session.closed || session.destroyed, 'the session was ended by the server')
  })

  t.test('answers 501 to a method Node does not know over HTTP/2, and logs no route table for it', async (t) => {
    const out = capture_log(t)
    const app = new App({ http2: true, access_log: false })
    app.get('/x', (_req, res) => void res.text('x'))
    t.teardown(() => app.close())
    const session = connect(`http://127.0.0.1:${await app.listen(0)}`)
    t.teardown(() => session.close())
    out.clear()
    const answers: string[] = []
    for (const method of ['FOO', 'BREW']) {
      answers.push(
        await new Promise<string>((resolve, reject) => {
          const s = session.request({ ':method': method, ':path': '/x' })
          let text = ''
          s.on('response', (h) => (text += `${String(h[':status'])} ${String(h['x-request-id'] !== undefined)} `))
          s.on('data', (d: Buffer) => (text += d.toString()))
          s.on('end', () => resolve(text)).on('error', reject)
        }),
      )
    }
    const body = '{"ok":false,"error":"not_implemented","message":"Method not implemented"}'
    t.same(answers, [`501 true ${body}`, `501 true ${body}`])
    t.same(out.lines(), [], 'no warning, no route table')
    // Fastify's other warnings still reach the log.
    app.fastify.log.warn('a warning of its own')
    t.match(out.lines(), [/a warning of its own/])
  })

  t.test('sets the timeouts and the connection limit on the server', async (t) => {
    const app = new App({
      keep_alive_timeout_ms: 5000,
      request_timeout_ms: 7000,
      headers_timeout_ms: 6000,
      max_connections: 50,
    })
    t.teardown(() => app.close())
    const s = app.fastify.server as Server
    t.same([s.keepAliveTimeout, s.requestTimeout, s.headersTimeout, s.maxConnections], [5000, 7000, 6000, 50])
  })

  t.test('rejects bad values with their name, never quoting a key', async (t) => {
    t.throws(() => new App({ headers_timeout_ms: -1 }), {
      code: 'FW_ERR_CONFIG_BAD_VALUE',
      message: /FW_HEADERS_TIMEOUT_MS/,
    })
    t.throws(() => new App({ https: { key: 'secret-key-material', cert: 'x' } }), {
      code: 'FW_ERR_CONFIG_BAD_VALUE',
      message: /^https must be/,
    })
    try {
      new App({ https: { key: 'secret-key-material', cert: 'x' } })
    } catch (err) {
      t.notMatch((err as Error).message, /secret-key-material/)
    }
    t.throws(() => new App().reload_tls(first), { code: 'FW_ERR_CONFIG_BAD_VALUE' })
  })

  t.test('writes an IPv6 host in brackets in its URL', async (t) => {
    const app = new App({ host: '::1' })
    t.teardown(() => app.close())
    t.equal(app.url(), 'http://[::1]:0')
  })
})

/** Opens a connection to 127.0.0.1:`port` and calls `ready` once it can be written to. */
type Open = (port: number, ready: () => void) => net.Socket

const plain: Open = (port, ready) => net.connect(port, '127.0.0.1', ready)

/**
 * Opens a raw connection, writes `head`, then one byte of `trickle` every `every_ms` (a client too slow to finish its
 * request; an empty `trickle` sends nothing more); resolves once the server closed it, with what it answered and when
 * (or after 5 s, when the client gives up).
 */
function trickle(
  port: number,
  head: string,
  trickle: string,
  every_ms = 100,
  open: Open = plain,
): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let i = 0
    let timer: NodeJS.Timeout | undefined
    const s = open(port, () => {
      s.write(head)
      if (trickle !== '') timer = setInterval(() => s.writable && s.write(trickle[i++ % trickle.length]!), every_ms)
    })
    let answer = ''
    s.setEncoding('utf8').on('data', (d: string) => (answer += d))
    s.on('error', reject)
    const give_up = setTimeout(() => s.destroy(), 5000)
    s.on('close', () => {
      clearInterval(timer)
      clearTimeout(give_up)
      resolve({ answer, ms: performance.now() - started })
    })
  })
}

t.test('AppOptions server timeouts', async (t) => {
  const TIMEOUT = { ok: false, error: 'request_timeout', message: 'Request timeout' }
  const options = { headers_timeout_ms: 500, request_timeout_ms: 1000 }
  const body_of = (answer: string): unknown => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
  const stalled_post = 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\na'
  const echo = (app: App): void => void app.post('/x', (req, res) => void res.text(req.body()))

  t.test('checks the timeouts every tenth of the smaller one, at most every second', async (t) => {
    t.equal(connections_check_ms(options), 50)
    t.equal(connections_check_ms({ headers_timeout_ms: 60_000, request_timeout_ms: 300_000 }), 1000)
    t.equal(connections_check_ms({ headers_timeout_ms: 2000, request_timeout_ms: 0 }), 200)
    t.equal(connections_check_ms({ headers_timeout_ms: 0, request_timeout_ms: 0 }), 1000)
  })

  t.test('checks them at most every 50 ms, however small a timeout is', async (t) => {
    // Each check walks every open connection: `headers_timeout_ms: 5` checked them every millisecond.
    t.equal(connections_check_ms({ headers_timeout_ms: 5, request_timeout_ms: 0 }), 50)
    t.equal(connections_check_ms({ headers_timeout_ms: 1, request_timeout_ms: 1 }), 50)
    t.equal(connections_check_ms({ headers_timeout_ms: 60_000, request_timeout_ms: 499 }), 50)
    const app = new App({ headers_timeout_ms: 5 })
    t.teardown(() => app.close())
    const s = app.fastify.server as Server & { connectionsCheckingInterval: number }
    t.same([s.headersTimeout, s.connectionsCheckingInterval], [5, 50])
  })

  t.test(
    'lowers a headers timeout above the request timeout to it, on HTTP/1.1 and HTTP/2 over TLS alike',
    async (t) => {
      const timeouts = (app: App): number[] => {
        const s = app.fastify.server as Server & { connectionsCheckingInterval: number }
        return [s.requestTimeout, s.headersTimeout, s.connectionsCheckingInterval]
      }
      const h1 = new App({ request_timeout_ms: 1000 })
      const h2 = new App({ request_timeout_ms: 1000, https: await cert('localhost'), http2: true })
      t.teardown(() => Promise.all([h1.close(), h2.close()]))
      t.same(timeouts(h1), [1000, 1000, 100])
      t.same(timeouts(h2), [1000, 1000, 100])
    },
  )

  t.test('cuts a client sending its headers too slowly within headers_timeout_ms plus 1 s', async (t) => {
    const { port } = await listening(t, (app) => app.get('/x', (_req, res) => void res.text('x')), options)
    const r = await trickle(port, 'GET /x HTTP/1.1\r\nHost: x\r\n', 'X-Slow: aaaa\r\n')
    t.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    t.same(body_of(r.answer), TIMEOUT)
    t.ok(r.ms >= 450 && r.ms < 1500, `cut after ${r.ms.toFixed(0)} ms`)
  })

  t.test('answers 408 to a slowloris sending its headers a byte a second after headers_timeout_ms', async (t) => {
    const { port } = await listening(t, (app) => app.get('/x', (_req, res) => void res.text('x')), {
      headers_timeout_ms: 2000,
    })
    const r = await trickle(port, 'G', 'ET /x HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaa', 1000)
    t.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    t.same(body_of(r.answer), TIMEOUT)
    t.ok(r.ms >= 1950 && r.ms < 3000, `cut after ${r.ms.toFixed(0)} ms`)
  })

  t.test('cuts a client sending its body too slowly within request_timeout_ms plus 1 s', async (t) => {
    const { port } = await listening(t, echo, options)
    const head = 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n'
    const r = await trickle(port, head, 'a')
    t.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    t.same(body_of(r.answer), TIMEOUT)
    t.ok(r.ms >= 950 && r.ms < 2000, `cut after ${r.ms.toFixed(0)} ms`)
  })

  t.test('answers 408 to a body that stops after its first byte, headers_timeout_ms left at its default', async (t) => {
    // Node swaps a headers timeout above the request timeout with it: this body was cut after the 60 s of headers.
    const { port } = await listening(t, echo, { request_timeout_ms: 1000 })
    const r = await trickle(port, stalled_post, '')
    t.ok(r.ms >= 950 && r.ms < 2000, `cut after ${r.ms.toFixed(0)} ms`)
    t.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    t.same(body_of(r.answer), TIMEOUT)
  })

  t.test('logs a body cut by the request timeout as the client gone, not as a failure of the server', async (t) => {
    const out = capture_log(t)
    const { port } = await listening(t, echo, { request_timeout_ms: 1000, access_log: 'info' })
    const r = await trickle(port, stalled_post, '')
    t.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    await new Promise((resolve) => setTimeout(resolve, 50))
    logged_client_gone(t, out.lines())
  })

  t.test('ends an h2c session whose first request has not arrived whole within headers_timeout_ms', async (t) => {
    const { port } = await listening(t, (app) => app.get('/x', (_req, res) => void res.text('x')), {
      headers_timeout_ms: 300,
      http2: true,
    })
    // The client preface, an empty SETTINGS frame, and the HEADERS frame of stream 1 without END_HEADERS: a header
    // block that never ends, as a client trickling CONTINUATION frames holds it.
    const socket = net.connect(port, '127.0.0.1')
    t.teardown(() => socket.destroy())
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())))
    const started = performance.now()
    socket.write(
      Buffer.concat([
        Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
        Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
        Buffer.from([0, 0, 1, 1, 0, 0, 0, 0, 1, 0x82]),
      ]),
    )
    socket.resume()
    const ms = (await Promise.race([closed, new Promise<number>((r) => setTimeout(r, 3000, Infinity))])) - started
    t.ok(ms >= 250 && ms < 2000, `the session ended after ${ms.toFixed(0)} ms`)
    // A session whose first request came in time is not ended by it, however long it then stays idle.
    const session = connect(`http://127.0.0.1:${port}`)
    t.teardown(() => session.close())
    const get = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const s = session.request({ ':path': '/x' })
        s.on('response', (h) => resolve(Number(h[':status'])))
        s.on('error', reject)
        s.resume()
      })
    t.equal(await get(), 200)
    await new Promise((resolve) => setTimeout(resolve, 500))
    t.equal(await get(), 200, 'the same session, idle past headers_timeout_ms')
    t.notOk(session.destroyed)
  })

  t.test('answers 408 to a stalled body on the HTTP/1.1 fallback of HTTP/2 over TLS', async (t) => {
    // That server checked every 30 s with a request timeout of 300 s, whatever the options.
    const ca = await cert('localhost')
    const { port } = await listening(t, echo, { request_timeout_ms: 1000, https: ca, http2: true })
    const open: Open = (port, ready) =>
      tls.connect(
        { host: '127.0.0.1', port, ca: ca.cert, ALPNProtocols: ['http/1.1'], checkServerIdentity: () => undefined },
        ready,
      )
    const r = await trickle(port, stalled_post, '', 0, open)
    t.ok(r.ms >= 950 && r.ms < 2000, `cut after ${r.ms.toFixed(0)} ms`)
    t.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    t.same(body_of(r.answer), TIMEOUT)
  })

  for (const secure of [true, false]) {
    const kind = secure ? 'HTTP/2 over TLS' : 'h2c'
    /** A session to an App listening with `request_timeout_ms: 300`, with a route answering after 600 ms. */
    const h2_session = async (t: Teardown, setup: (app: App) => void): Promise<ClientHttp2Session> => {
      const ca = await cert('localhost')
      const { port } = await listening(
        t,
        (app) => {
          setup(app)
          app.post('/late', async (req, res) => {
            await new Promise((resolve) => setTimeout(resolve, 600))
            res.text(`late ${String(req.body())}`)
          })
        },
        { request_timeout_ms: 300, http2: true, ...(secure ? { https: ca } : {}) },
      )
      const session = secure
        ? connect(`https://127.0.0.1:${port}`, { ca: ca.cert, checkServerIdentity: () => undefined })
        : connect(`http://127.0.0.1:${port}`)
      session.on('error', () => {})
      t.teardown(() => session.destroy())
      return session
    }
    /** Opens a POST stream declaring 100 bytes of body, sends `sent` of it and nothing more. */
    const stalled = (session: ClientHttp2Session, path: string, sent: string) => {
      const started = performance.now()
      const s = session.request({
        ':method': 'POST',
        ':path': path,
        'content-type': 'text/plain',
        'content-length': '100',
      })
      s.write(sent)
      let status = 0
      let body = ''
      s.on('response', (h) => (status = Number(h[':status'])))
      s.on('data', (d: Buffer) => (body += d.toString()))
      s.on('error', () => {})
      const give_up = setTimeout(() => s.close(h2.NGHTTP2_NO_ERROR), 5000)
      return new Promise<{ status: number; body: string; rst: number; ms: number }>((resolve) =>
        s.on('close', () => {
          clearTimeout(give_up)
          resolve({ status, body, rst: s.rstCode ?? -1, ms: performance.now() - started })
        }),
      )
    }
    /** A well-behaved POST sending its whole body at once. */
    const post = (session: ClientHttp2Session, path: string, body: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const s = session.request({ ':method': 'POST', ':path': path, 'content-type': 'text/plain' })
        let text = ''
        s.on('response', (h) => (text += `${String(h[':status'])} `))
        s.on('data', (d: Buffer) => (text += d.toString()))
        s.on('end', () => resolve(text))
        s.on('error', reject)
        s.end(body)
      })

    t.test(`answers 408 to an ${kind} stream whose body stalls, other streams of its session unaffected`, async (t) => {
      const session = await h2_session(t, echo)
      const [cut, fine] = await Promise.all([stalled(session, '/x', 'a'), post(session, '/late', 'ok')])
      t.equal(cut.status, 408, 'the stalled stream is answered 408')
      t.same(JSON.parse(cut.body), TIMEOUT)
      t.ok(cut.ms >= 250 && cut.ms < 1300, `answered after ${cut.ms.toFixed(0)} ms`)
      t.equal(fine, '200 late ok', 'the stream whose body was received completes after request_timeout_ms')
      t.equal(await post(session, '/x', 'again'), '200 again', 'the session serves new streams')
    })

    t.test(`resets an ${kind} stream answered before its stalled body arrived (NGHTTP2_CANCEL)`, async (t) => {
      const session = await h2_session(t, (app) => {
        app.use('/raw', stream_body())
        app.post(
          '/raw',
          (_req, res) =>
            void res.stream(
              (async function* () {
                yield 'started'
                await new Promise(() => {})
              })(),
            ),
        )
      })
      const [cut, fine] = await Promise.all([stalled(session, '/raw', 'a'), post(session, '/late', 'ok')])
      t.same([cut.status, cut.body, cut.rst], [200, 'started', h2.NGHTTP2_CANCEL], 'answered, then reset')
      t.ok(cut.ms >= 250 && cut.ms < 1300, `reset after ${cut.ms.toFixed(0)} ms`)
      t.equal(fine, '200 late ok', 'the other stream completes')
    })

    t.test(`never hands a handler the part of an ${kind} body that came before its stream was cut`, async (t) => {
      // Node's HTTP/2 compatibility layer ends a request's body cleanly when its stream closes, where an HTTP/1.1
      // request fails with ECONNRESET: a body cut short must fail the same way, not read as a whole body of 1 byte.
      const out = capture_log(t)
      const seen: string[] = []
      const session = await h2_session(t, (app) => {
        app.post('/whole', (req, res) => void (seen.push(`whole ${String(req.body())}`), res.text('ok')))
        app.use('/streamed', stream_body())
        app.post('/streamed', async (req, res) => {
          let text = ''
          try {
            for await (const chunk of req.stream()) text += String(chunk)
            seen.push(`streamed ${text}`)
          } catch (err) {
            seen.push(`streamed ${String((err as NodeJS.ErrnoException).code)}`)
          }
          res.text('ok')
        })
      })
      const reset = (path: string): Promise<void> => {
        const s = session.request({
          ':method': 'POST',
          ':path': path,
          'content-type': 'text/plain',
          'content-length': '100',
        })
        s.on('error', () => {})
        s.write('a')
        setTimeout(() => s.close(h2.NGHTTP2_CANCEL), 100)
        return new Promise((resolve) => s.on('close', resolve))
      }
      await Promise.all([reset('/whole'), reset('/streamed')])
      const timed_out = await Promise.all([stalled(session, '/whole', 'b'), stalled(session, '/streamed', 'b')])
      t.same(
        timed_out.map((r) => r.status),
        [408, 408],
      )
      await new Promise((resolve) => setTimeout(resolve, 200))
      t.same(seen, ['streamed ECONNRESET', 'streamed ECONNRESET'], 'no handler took a partial body as whole')
      t.equal(await post(session, '/whole', 'fine'), '200 ok', 'a whole body still reaches the handler')
      t.same(seen.at(-1), 'whole fine')
      const lines = out.lines()
      t.same(
        lines.filter((l) => l.includes('[error]')),
        [],
        'a stream cut short is the client gone, not a failure of the server',
      )
      t.ok(
        lines.some((l) => l.includes('client went away before its body was read')),
        lines.join(' | '),
      )
    })
  }

  t.test('closes an idle keep-alive connection about keep_alive_timeout_ms plus 1 s after its answer', async (t) => {
    const { port } = await listening(t, (app) => app.get('/x', (_req, res) => void res.text('x')), {
      keep_alive_timeout_ms: 1000,
    })
    const r = await trickle(port, 'GET /x HTTP/1.1\r\nHost: x\r\n\r\n', '')
    t.match(r.answer, /^HTTP\/1\.1 200 OK\r\n/)
    t.match(r.answer, /\r\nKeep-Alive: timeout=1\r\n/i)
    t.notMatch(r.answer, /408/, 'closed without another answer')
    t.ok(r.ms >= 950 && r.ms < 3000, `closed after ${r.ms.toFixed(0)} ms`)
  })
})
