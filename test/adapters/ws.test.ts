// WebSocket routes over real sockets: the upgrade runs the route's middleware (refusals answer in HTTP, no socket),
// middleware state reaches the handler, ws enforces frame limits (1009, 1007), and closing the app drains sockets.
import type { IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import fastifyWebsocket from '@fastify/websocket'
import Fastify from 'fastify'
import t from 'tap'
import WebSocket from 'ws'
import { fw_plugin } from '../../adapters/plugin.js'
import * as fw from '../../index.js'
import { JwtClaims } from '../../lib/middleware/auth/index.js'
import { sign_dev_token } from '../../lib/middleware/app/index.js'
import { gate, listening } from '../helpers/build.js'
import { capture_log } from '../helpers/log.js'
import { MemoryStream } from '../lib/log/capture.js'
import { connect, handshake, refused, type Client } from '../helpers/ws.js'

const { adapt_ctx } = fw
const { auth, security } = fw.middleware
const SECRET = 'a-test-secret-of-32-characters!!'

const echo = (ws: fw.websocket.WebSocketConnection): void => void ws.on_message((m) => ws.send(m))
/** Logs each message, and throws on `boom`. */
const log_or_throw = (ws: fw.websocket.WebSocketConnection): void =>
  void ws.on_message((m) => {
    if (m === 'boom') throw new Error('handler exploded')
    fw.log.info('got {}', m)
  })

t.test('App.ws upgrade', async (t) => {
  t.test('runs prefix middleware: no credentials get 401 JSON and no socket', async (t) => {
    let opened = 0
    const { port } = await listening(t, (app) => {
      app.group('/api', (api) => {
        api.use(adapt_ctx(auth.api_key({ allowed_keys: ['k1'] })))
        api.ws('/ws', () => void opened++)
      })
    })
    const r = await refused(port, '/api/ws')
    t.equal(r.status, 401)
    t.match(r.headers['content-type'], /^application\/json/)
    t.equal(r.headers.connection, 'close', 'the socket of a refused upgrade is not kept alive')
    t.same(JSON.parse(r.body), { ok: false, error: 'missing_api_key', message: 'API key required' })
    const bad = await refused(port, '/api/ws', { 'x-api-key': 'nope' })
    t.equal(bad.status, 403)
    t.equal(JSON.parse(bad.body).error, 'invalid_api_key')
    t.equal(opened, 0)
    const c = await connect(port, '/api/ws', { 'x-api-key': 'k1' })
    t.equal(opened, 1)
    c.ws.close()
  })

  t.test('gives the handler the JwtClaims its middleware set', async (t) => {
    const { port } = await listening(t, (app) => {
      app.use(adapt_ctx(auth.jwt({ secret: SECRET })))
      app.ws('/ws/me', (ws, req) => void ws.send({ sub: req.state(JwtClaims)?.subject ?? null }))
    })
    const r = await refused(port, '/ws/me')
    t.equal(r.status, 401)
    t.equal(JSON.parse(r.body).error, 'missing_token')
    const c = await connect(port, '/ws/me', { authorization: `Bearer ${sign_dev_token(SECRET, { sub: 'ada' })}` })
    t.same(JSON.parse(String(await c.next())), { sub: 'ada' })
    c.ws.close()
  })

  t.test(
    "runs the route's own middleware (options.use) on its upgrade alone, after the prefix middleware",
    async (t) => {
      const order: string[] = []
      const { port } = await listening(t, (app) => {
        app.use((_req, _res, next) => (order.push('global'), next()))
        app.ws('/ws/me', (ws, req) => void ws.send({ sub: req.state(JwtClaims)?.subject ?? null }), {
          use: [(_req, _res, next) => (order.push('route'), next()), adapt_ctx(auth.jwt({ secret: SECRET }))],
        })
        app.ws('/ws/open', echo)
      })
      const r = await refused(port, '/ws/me')
      t.same([r.status, JSON.parse(r.body).error], [401, 'missing_token'])
      t.same(order, ['global', 'route'])
      const c = await connect(port, '/ws/me', { authorization: `Bearer ${sign_dev_token(SECRET, { sub: 'ada' })}` })
      t.same(JSON.parse(String(await c.next())), { sub: 'ada' })
      c.ws.close()
      const open = await connect(port, '/ws/open')
      open.ws.send('hi')
      t.equal(String(await open.next()), 'hi', 'another WebSocket route is not covered')
      open.ws.close()
    },
  )

  t.test('answers an IP filter refusal with 403 and a rate limit with 429', async (t) => {
    const { port } = await listening(t, (app) => {
      app.use('/denied', adapt_ctx(security.ip_filter({ deny: ['127.0.0.1'] })))
      app.use('/limited', adapt_ctx(security.rate_limit({ max_requests: 1, window_seconds: 60 })))
      app.ws('/denied/ws', () => {})
      app.ws('/limited/ws', (ws) => ws.close())
    })
    const denied = await refused(port, '/denied/ws')
    t.equal(denied.status, 403)
    t.equal(JSON.parse(denied.body).error, 'ip_denied')
    const first = await connect(port, '/limited/ws')
    await first.closed
    const limited = await refused(port, '/limited/ws')
    t.equal(limited.status, 429)
    t.equal(JSON.parse(limited.body).error, 'rate_limit_exceeded')
    t.ok(limited.headers['retry-after'])
  })

  t.test('refuses an Origin outside origins with 403 origin_forbidden', async (t) => {
    const { port } = await listening(t, (app) => app.ws('/ws', echo, { origins: ['https://chat.example.com'] }))
    const r = await refused(port, '/ws', { origin: 'https://evil.example.com' })
    t.equal(r.status, 403)
    t.same(JSON.parse(r.body), { ok: false, error: 'origin_forbidden', message: 'Origin not allowed' })
    const c = await connect(port, '/ws', { origin: 'https://chat.example.com' })
    c.ws.send('hi')
    t.equal(await c.next(), 'hi')
    c.ws.close()
  })

  t.test('refuses a cross-origin upgrade by default, before any socket exists', async (t) => {
    let opened = 0
    const { port } = await listening(t, (app) => {
      app.ws('/ws', (ws) => void (opened++, echo(ws)))
      app.ws('/listed', echo, { origins: ['https://chat.example.com'] })
    })
    const host = `127.0.0.1:${port}`
    for (const origin of ['https://evil.example.com', `http://127.0.0.1:${port + 1}`, 'http://localhost', 'null']) {
      const r = await refused(port, '/ws', { origin })
      t.equal(r.status, 403, origin)
      t.same(JSON.parse(r.body), { ok: false, error: 'origin_forbidden', message: 'Origin not allowed' }, origin)
    }
    t.equal(opened, 0)
    // Same host (either scheme, as gorilla/websocket compares hosts), and a client that sends no Origin, pass.
    for (const headers of [{ origin: `http://${host}` }, { origin: `https://${host}` }, {}]) {
      const c = await connect(port, '/ws', headers)
      c.ws.send('hi')
      t.equal(await c.next(), 'hi')
      c.ws.close()
    }
    t.equal(opened, 3)
    // A route's origins add to its own host.
    for (const origin of ['https://chat.example.com', `http://${host}`])
      (await connect(port, '/listed', { origin })).ws.close()
    t.equal((await refused(port, '/listed', { origin: 'https://evil.example.com' })).status, 403)
  })

  t.test('answers a plain GET with 426 upgrade_required', async (t) => {
    const { port } = await listening(t, (app) => app.ws('/ws', echo))
    const r = await fetch(`http://127.0.0.1:${port}/ws`)
    t.equal(r.status, 426)
    t.equal(r.headers.get('upgrade'), 'websocket')
    t.same(await r.json(), { ok: false, error: 'upgrade_required', message: 'WebSocket upgrade required' })
  })

  t.test('answers an unsupported Sec-WebSocket-Version with 426, the versions it speaks and a JSON body', async (t) => {
    let opened = 0
    const { port } = await listening(t, (app) => app.ws('/ws', () => void opened++))
    for (const version of ['12', '14', 'thirteen']) {
      const r = await handshake(port, '/ws', { 'sec-websocket-version': version })
      t.equal(r.status, 426, version)
      t.equal(r.headers['sec-websocket-version'], '13, 8')
      t.equal(r.headers.upgrade, 'websocket')
      t.equal(r.headers.connection, 'close')
      t.match(r.headers['content-type'], /^application\/json/)
      t.same(JSON.parse(r.body), { ok: false, error: 'upgrade_required', message: 'WebSocket upgrade required' })
    }
    t.equal((await handshake(port, '/ws')).status, 101)
    t.equal(opened, 1)
  })

  t.test(
    'answers an Upgrade other than websocket with 426 and a bad Sec-WebSocket-Key with 400, in JSON',
    async (t) => {
      let opened = 0
      const { port } = await listening(t, (app) => app.ws('/ws', () => void opened++))
      const other = await handshake(port, '/ws', { upgrade: 'h2c' })
      t.equal(other.status, 426)
      t.equal(other.headers.upgrade, 'websocket')
      t.same(JSON.parse(other.body), { ok: false, error: 'upgrade_required', message: 'WebSocket upgrade required' })
      for (const key of ['', 'short==', 'dGhlIHNhbXBsZSBub25jZQ']) {
        const r = await handshake(port, '/ws', { 'sec-websocket-key': key })
        t.equal(r.status, 400, JSON.stringify(key))
        t.match(r.headers['content-type'], /^application\/json/)
        t.same(JSON.parse(r.body), {
          ok: false,
          error: 'bad_request',
          message: 'Missing or invalid Sec-WebSocket-Key header',
        })
      }
      t.equal(opened, 0)
    },
  )

  t.test('puts the middleware headers on the 101 answer', async (t) => {
    const { port } = await listening(t, (app) => {
      app.use((_req, res, next) => (res.header('x-frame-options', 'DENY'), next()))
      app.ws('/ws', echo)
    })
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { 'x-request-id': 'rid-101' } })
    const res = await new Promise<IncomingMessage>((resolve) => ws.once('upgrade', resolve))
    t.equal(res.headers['x-frame-options'], 'DENY')
    t.equal(res.headers['x-request-id'], 'rid-101')
    ws.close()
  })
})

t.test('App.ws subprotocols', async (t) => {
  /** A route whose handler sends the subprotocol it was given, and the request's offer as its handler reads it. */
  const tells_protocol = (ws: fw.websocket.WebSocketConnection, req: fw.Request): void =>
    void ws.send({ protocol: ws.protocol, offered: req.header('sec-websocket-protocol') })

  t.test("selects the first protocol in the client's order that the route speaks, not ws's first offer", async (t) => {
    const { port } = await listening(t, (app) => {
      app.ws('/graphql', tells_protocol, { protocols: ['graphql-transport-ws'] })
      app.ws('/versions', tells_protocol, { protocols: ['v2', 'v1'] })
    })
    const c = await connect(port, '/graphql', {}, ['chat', 'graphql-transport-ws'])
    t.equal(c.ws.protocol, 'graphql-transport-ws', 'the 101 names the protocol the route speaks')
    t.same(JSON.parse(String(await c.next())), {
      protocol: 'graphql-transport-ws',
      offered: 'chat,graphql-transport-ws',
    })
    c.ws.close()
    // The client's order decides between two protocols the route speaks (RFC 6455 section 4.1: ordered by preference).
    const v = await connect(port, '/versions', {}, ['v1', 'v2'])
    t.equal(v.ws.protocol, 'v1')
    t.equal(JSON.parse(String(await v.next())).protocol, 'v1')
    v.ws.close()
    // Several header lines are one list (Node joins them); whitespace around each name is not part of it.
    const joined = await handshake(port, '/versions', { 'sec-websocket-protocol': [' chat ,\tv3', 'v2 , v1'] })
    t.equal(joined.status, 101)
    t.equal(joined.headers['sec-websocket-protocol'], 'v2')
  })

  t.test("refuses with 400 an upgrade that offers none of the route's protocols, or none at all", async (t) => {
    let opened = 0
    const { port } = await listening(t, (app) =>
      app.ws('/graphql', () => void opened++, { protocols: ['graphql-transport-ws', 'graphql-ws'] }),
    )
    for (const offer of [{ 'sec-websocket-protocol': 'chat, graphql' }, {}]) {
      const r = await handshake(port, '/graphql', offer)
      t.equal(r.status, 400, JSON.stringify(offer))
      t.match(r.headers['content-type'], /^application\/json/)
      t.equal(r.headers['sec-websocket-protocol'], 'graphql-transport-ws, graphql-ws', 'the protocols it speaks')
      t.equal(r.headers.connection, 'close')
      t.same(JSON.parse(r.body), {
        ok: false,
        error: 'bad_request',
        message: 'Missing or unsupported Sec-WebSocket-Protocol header',
      })
    }
    // A real client offering a protocol the route does not speak never opens a socket.
    t.equal((await refused(port, '/graphql')).status, 400)
    t.equal(opened, 0)
  })

  t.test('a route without protocols echoes the first offer, as ws does, and none when none is offered', async (t) => {
    const { port } = await listening(t, (app) => app.ws('/ws', tells_protocol))
    const c = await connect(port, '/ws', {}, ['chat', 'superchat'])
    t.equal(c.ws.protocol, 'chat')
    t.same(JSON.parse(String(await c.next())), { protocol: 'chat', offered: 'chat,superchat' })
    c.ws.close()
    const none = await connect(port, '/ws')
    t.equal(none.ws.protocol, '')
    t.same(JSON.parse(String(await none.next())), { protocol: '', offered: '' })
    none.ws.close()
  })

  t.test('answers a malformed Sec-WebSocket-Protocol with 400 in JSON, with or without protocols', async (t) => {
    let opened = 0
    const { port } = await listening(t, (app) => {
      app.ws('/any', () => void opened++)
      app.ws('/strict', () => void opened++, { protocols: ['chat'] })
    })
    for (const path of ['/any', '/strict'])
      for (const offer of ['', 'chat,,x', 'chat x', 'chat, chat', 'chat;v=1', 'cha"t']) {
        const r = await handshake(port, path, { 'sec-websocket-protocol': offer })
        t.equal(r.status, 400, `${path} ${JSON.stringify(offer)}`)
        t.match(r.headers['content-type'], /^application\/json/)
        t.same(JSON.parse(r.body), {
          ok: false,
          error: 'bad_request',
          message: 'Invalid Sec-WebSocket-Protocol header',
        })
      }
    t.equal(opened, 0)
  })
})

t.test('WebSocketConnection messages', async (t) => {
  t.test('echoes text as text, binary as binary and values as JSON', async (t) => {
    const { port } = await listening(t, (app) =>
      app.ws('/ws', (ws) => {
        ws.send({ hello: 'world' })
        ws.on_message((m) => ws.send(m))
      }),
    )
    const c = await connect(port, '/ws')
    t.equal(await c.next(), '{"hello":"world"}')
    c.ws.send('héllo')
    t.equal(await c.next(), 'héllo')
    c.ws.send(Buffer.from([0, 1, 255]))
    t.same(await c.next(), Buffer.from([0, 1, 255]))
    c.ws.close()
  })

  t.test(
    'ws.close refuses a bad code or a reason over 123 bytes with FW_ERR_WS_BAD_OPTION, and stays open',
    async (t) => {
      const { port } = await listening(t, (app) =>
        app.ws(
          '/ws',
          (ws) =>
            void ws.on_message((m) => {
              const [code, reason] = JSON.parse(String(m)) as [number, string | undefined]
              try {
                ws.close(code, reason)
              } catch (err) {
                ws.send({ code: (err as { code?: unknown }).code, message: (err as Error).message, open: ws.open })
              }
            }),
        ),
      )
      const c = await connect(port, '/ws')
      const bad: Array<[unknown, unknown, string]> = [1005, 1006, 1004, 1015, 999, 2000, 5000, 1000.5, '1000'].map(
        (code) => [code, 'bye', `code must be 1000-1003, 1007-1014 or 3000-4999; got ${JSON.stringify(code)}`],
      )
      const too_long = 'reason must be a string of at most 123 bytes in UTF-8; got'
      bad.push([1000, 'é'.repeat(62), `${too_long} "${'é'.repeat(62)}"`], [1000, 42, `${too_long} 42`])
      for (const [code, reason, message] of bad) {
        c.ws.send(JSON.stringify([code, reason]))
        const answer = await c.poll(2000)
        t.same(
          answer === undefined ? answer : JSON.parse(String(answer)),
          { code: 'FW_ERR_WS_BAD_OPTION', message: `ws.close: ${message}`, open: true },
          `${JSON.stringify(code)} ${JSON.stringify(reason)}`,
        )
      }
      // 123 bytes: 61 two-byte characters and one byte.
      c.ws.send(JSON.stringify([4000, `${'é'.repeat(61)}!`]))
      t.same(await c.closed, { code: 4000, reason: `${'é'.repeat(61)}!` })
    },
  )

  t.test('closes an oversized message with 1009', async (t) => {
    const { port } = await listening(t, (app) => {
      app.ws('/small', echo, { max_payload: 16 })
      app.ws('/large', echo, { max_payload: 1024 })
    })
    for (const path of ['/small', '/large']) {
      const c = await connect(port, path)
      c.ws.send('x'.repeat(path === '/small' ? 17 : 1025))
      t.equal((await c.closed).code, 1009, path)
    }
    const ok = await connect(port, '/small')
    ok.ws.send('x'.repeat(16))
    t.equal(await ok.next(), 'x'.repeat(16))
    ok.ws.close()
  })

  t.test("refuses a frame over its route's max_payload from its header, under a larger route's limit", async (t) => {
    const { port } = await listening(t, (app) => {
      app.ws('/small', echo, { max_payload: 16 })
      app.ws('/large', echo, { max_payload: 16 * 1024 * 1024 })
    })
    const c = await connect(port, '/small')
    t.teardown(() => c.ws.terminate())
    // A masked binary frame announcing 8 MiB, of which only a few bytes are sent: the server must not wait for (and
    // buffer) the rest before refusing it.
    const header = Buffer.alloc(14)
    header[0] = 0x82
    header[1] = 0x80 | 127
    header.writeBigUInt64BE(BigInt(8 * 1024 * 1024), 2)
    ;(c.ws as unknown as { _socket: Socket })._socket.write(Buffer.concat([header, Buffer.alloc(64)]))
    const late = new Promise((resolve) => setTimeout(() => resolve('still waiting for the payload'), 1000).unref())
    t.match(await Promise.race([c.closed, late]), { code: 1009 })
  })

  t.test('closes a text frame of invalid UTF-8 with 1007', async (t) => {
    let got = 0
    const { port } = await listening(t, (app) => app.ws('/ws', (ws) => void ws.on_message(() => void got++)))
    const c = await connect(port, '/ws')
    c.ws.send(Buffer.from([0x68, 0xc3, 0x28]), { binary: false })
    t.equal((await c.closed).code, 1007)
    t.equal(got, 0)
  })

  t.test('closes a client over its message rate limit with 1008', async (t) => {
    let got = 0
    const { port } = await listening(t, (app) =>
      app.ws('/ws', (ws) => void ws.on_message(() => void got++), {
        rate_limit: { max_messages: 5, window_ms: 60_000 },
      }),
    )
    const c = await connect(port, '/ws')
    for (let i = 0; i < 50; i++) c.ws.send(`m${i}`)
    t.same(await c.closed, { code: 1008, reason: 'message rate limit exceeded' })
    t.equal(got, 5)
  })

  t.test(
    'runs message handlers in the upgrade request log context; a throw closes with 1011 and is logged',
    async (t) => {
      const out = capture_log(t)
      const { port } = await listening(t, (app) => app.ws('/ws', log_or_throw))
      const c = await connect(port, '/ws', { 'x-request-id': 'rid-ws-1' })
      c.ws.send('hello')
      c.ws.send('boom')
      t.same(await c.closed, { code: 1011, reason: 'internal error' })
      t.match(out.text(), /\[info\] got hello rid=rid-ws-1/)
      t.match(out.text(), /\[error\] ws handler failed rid=rid-ws-1 .*path=\/ws err="Error: handler exploded/)
      const again = await connect(port, '/ws')
      again.ws.send('boom')
      t.equal((await again.closed).code, 1011, 'the server goes on')
    },
  )

  t.test('handles nothing a client sends once the server closed it (1009, 1011, 1008 past its window)', async (t) => {
    const out = capture_log(t)
    const got: string[] = []
    const keep = (ws: fw.websocket.WebSocketConnection): void =>
      void ws.on_message((m) => {
        got.push(String(m).slice(0, 20))
        if (m === 'boom') throw new Error('handler exploded')
      })
    const { port } = await listening(t, (app) => {
      app.ws('/small', keep, { max_payload: 16 })
      app.ws('/rate', keep, { rate_limit: { max_messages: 2, window_ms: 50 } })
    })
    // A client that does not read the server's close frame yet, and keeps sending meanwhile.
    const deaf = async (path: string): Promise<{ c: Client; socket: Socket }> => {
      const c = await connect(port, path)
      const socket = (c.ws as unknown as { _socket: Socket })._socket
      socket.pause()
      t.teardown(() => c.ws.terminate())
      return { c, socket }
    }
    const big = await deaf('/small')
    big.c.ws.send('x'.repeat(17))
    big.c.ws.send('after 1009')
    const failed = await deaf('/small')
    failed.c.ws.send('boom')
    failed.c.ws.send('after 1011')
    const limited = await deaf('/rate')
    for (const m of ['1', '2', '3']) limited.c.ws.send(m)
    // Past the rate window: the count starts again, but the socket is closing.
    await new Promise((resolve) => setTimeout(resolve, 80))
    limited.c.ws.send('after 1008')
    // Reading again, each client answers the close frame; the server reads that answer after the messages before it.
    const codes: number[] = []
    for (const { c, socket } of [big, failed, limited]) {
      socket.resume()
      codes.push((await c.closed).code)
    }
    t.same(codes, [1009, 1011, 1008])
    t.same(got, ['boom', '1', '2'])
    t.equal(out.lines().filter((l) => l.includes('ws handler failed')).length, 1)
  })

  t.test("writes a message handler's lines to its App's own logger, with the upgrade's id", async (t) => {
    const shared = capture_log(t)
    const own = new MemoryStream()
    const { port } = await listening(t, (app) => app.ws('/ws', log_or_throw), {
      logger: { destination: own, level: 'info' },
    })
    const c = await connect(port, '/ws', { 'x-request-id': 'rid-ws-2' })
    c.ws.send('hello')
    c.ws.send('boom')
    t.same(await c.closed, { code: 1011, reason: 'internal error' })
    t.match(own.lines(), [/\[info\] got hello rid=rid-ws-2$/, /\[error\] ws handler failed rid=rid-ws-2 /])
    t.same(
      shared.lines().filter((l) => l.includes('rid-ws-2')),
      [],
      'none of them reaches the process-wide destination',
    )
  })

  t.test('negotiates permessage-deflate only where per_message_deflate is on', async (t) => {
    const { port } = await listening(t, (app) => {
      app.ws('/plain', echo)
      app.ws('/deflate', echo, { per_message_deflate: true })
    })
    const plain = await connect(port, '/plain')
    t.equal(plain.ws.extensions, '')
    const deflate = await connect(port, '/deflate')
    t.match(deflate.ws.extensions, /permessage-deflate/)
    plain.ws.close()
    deflate.ws.close()
  })

  t.test('answers a malformed Sec-WebSocket-Extensions with 400 in JSON where per_message_deflate is on', async (t) => {
    let opened = 0
    const { port } = await listening(t, (app) => {
      app.ws('/plain', () => void opened++)
      app.ws('/deflate', () => void opened++, { per_message_deflate: true })
    })
    const malformed = [
      '',
      'permessage-deflate,',
      'permessage-deflate;',
      'permessage-deflate; client_max_window_bits = 10',
      'permessage-deflate; server_max_window_bits=99',
      'permessage-deflate; server_max_window_bits',
      'permessage-deflate; server_no_context_takeover=1',
      'permessage-deflate; client_max_window_bits=10; client_max_window_bits=11',
      'permessage-deflate; unknown',
      'x-other; a="b c"',
      'x-other; a=b\\c',
    ]
    for (const extensions of malformed) {
      const r = await handshake(port, '/deflate', { 'sec-websocket-extensions': extensions })
      t.equal(r.status, 400, JSON.stringify(extensions))
      t.match(r.headers['content-type'], /^application\/json/)
      t.equal(r.headers.connection, 'close')
      t.same(JSON.parse(r.body), {
        ok: false,
        error: 'bad_request',
        message: 'Invalid Sec-WebSocket-Extensions header',
      })
    }
    t.equal(opened, 0)
    // A route that keeps compression off reads no extension offer: it opens as before.
    t.equal((await handshake(port, '/plain', { 'sec-websocket-extensions': 'permessage-deflate;' })).status, 101)
    for (const extensions of [
      'permessage-deflate; client_max_window_bits',
      'permessage-deflate; client_max_window_bits="10"; server_no_context_takeover, permessage-deflate',
      'x-webkit-deflate-frame, permessage-deflate ;\tserver_max_window_bits=15',
    ]) {
      const r = await handshake(port, '/deflate', { 'sec-websocket-extensions': extensions })
      t.equal(r.status, 101, JSON.stringify(extensions))
      t.match(r.headers['sec-websocket-extensions'], /^permessage-deflate/)
    }
  })
})

t.test('A handler that awaits before on_message', async (t) => {
  /** The close codes the server side of a connection hears: `watch(ws)` in the handler, `heard()` once it closed. */
  const server_closes = () => {
    const closed = gate()
    const codes: number[] = []
    return {
      watch: (ws: { on_close(fn: (code: number) => unknown): unknown }) =>
        ws.on_close((code) => {
          codes.push(code)
          closed.open()
        }),
      heard: async (): Promise<number[]> => (await closed.promise, codes),
    }
  }
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

  t.test('gets the messages the client sent meanwhile, in order', async (t) => {
    const { port } = await listening(t, (app) =>
      app.ws('/chat', async (ws) => {
        await sleep(50) // loading the user
        ws.on_message((m) => ws.send(`echo ${String(m)}`))
      }),
    )
    const c = await connect(port, '/chat')
    for (const m of ['one', 'two', 'three']) c.ws.send(m)
    t.same([await c.poll(1000), await c.poll(1000), await c.poll(1000)], ['echo one', 'echo two', 'echo three'])
    c.ws.close()
    t.equal((await c.closed).code, 1005)
  })

  t.test('delivers the held messages before one sent after on_message was registered', async (t) => {
    const { port } = await listening(t, (app) =>
      app.ws('/chat', async (ws) => {
        await sleep(50)
        ws.on_message((m) => ws.send(`echo ${String(m)}`))
        ws.send('ready')
      }),
    )
    const c = await connect(port, '/chat')
    c.ws.send('a')
    c.ws.send('b')
    t.equal(await c.poll(1000), 'ready')
    c.ws.send('c')
    t.same([await c.poll(1000), await c.poll(1000), await c.poll(1000)], ['echo a', 'echo b', 'echo c'])
    c.ws.close()
    await c.closed
  })

  t.test(
    'drops what arrives once a handler that registered no on_message resolved; the close still works',
    async (t) => {
      let resolved = false
      const server = server_closes()
      const { port } = await listening(t, (app) =>
        app.ws('/ws', async (ws) => {
          server.watch(ws)
          await sleep(30)
          ws.send('done')
          resolved = true
        }),
      )
      const c = await connect(port, '/ws')
      c.ws.send('early')
      t.equal(await c.poll(1000), 'done')
      t.ok(resolved)
      c.ws.send('late')
      t.equal(await c.poll(100), undefined, 'nothing answered either message')
      c.ws.close(1000, 'bye')
      t.same(await c.closed, { code: 1000, reason: 'bye' })
      t.same(await server.heard(), [1000])
    },
  )

  t.test('keeps a connection paused longer than heartbeat_ms while its handler awaits', async (t) => {
    const { port } = await listening(t, (app) =>
      app.ws(
        '/ws',
        async (ws) => {
          await sleep(200)
          ws.on_message((m) => ws.send(`echo ${String(m)}`))
        },
        // Two 3-byte messages pass max_payload: the socket is paused, and reads no pong.
        { heartbeat_ms: 20, max_payload: 4 },
      ),
    )
    const c = await connect(port, '/ws')
    c.ws.send('x-1')
    c.ws.send('x-2')
    t.same([await c.poll(1000), await c.poll(1000)], ['echo x-1', 'echo x-2'])
    // Resumed, the heartbeat runs as before: the client answers its pings.
    await sleep(100)
    c.ws.send('y')
    t.equal(await c.poll(1000), 'echo y')
    c.ws.close()
    t.equal((await c.closed).code, 1005)
  })

  t.test('hears a client close at once while a push-only handler awaits without on_message', async (t) => {
    const server = server_closes()
    const { port } = await listening(t, (app) =>
      app.ws('/ws', async (ws) => {
        server.watch(ws)
        ws.send('first')
        await new Promise(() => {})
      }),
    )
    const c = await connect(port, '/ws')
    t.equal(await c.poll(1000), 'first')
    const started = Date.now()
    c.ws.close(1000, 'bye')
    t.same(await c.closed, { code: 1000, reason: 'bye' })
    t.same(await server.heard(), [1000])
    t.ok(Date.now() - started < 1000, 'nothing held, nothing paused: the close frame was read')
  })

  t.test('closes a paused connection at once when the App closes, handling nothing it held', async (t) => {
    const held = gate()
    let got = 0
    const { app, port } = await listening(
      t,
      (app) =>
        app.ws(
          '/ws',
          async (ws) => {
            await held.promise
            ws.on_message(() => void got++)
          },
          { max_payload: 4 },
        ),
      { close_timeout_ms: 5000 },
    )
    const c = await connect(port, '/ws')
    c.ws.send('h-1')
    c.ws.send('h-2')
    await sleep(20)
    const started = Date.now()
    await app.close()
    t.ok(Date.now() - started < 1000, 'the peer answered the 1001: the socket was read again')
    t.same(await c.closed, { code: 1001, reason: 'server shutting down' })
    held.open()
    await sleep(10)
    t.equal(got, 0)
  })

  t.test('closes with 1011 a handler that rejects before on_message, and handles nothing', async (t) => {
    capture_log(t)
    let got = 0
    const { port } = await listening(t, (app) =>
      app.ws('/ws', async (ws) => {
        await sleep(30)
        if (got === 0) throw new Error('no such user')
        ws.on_message(() => void got++)
      }),
    )
    const c = await connect(port, '/ws')
    c.ws.send('early')
    t.same(await c.closed, { code: 1011, reason: 'internal error' })
    t.equal(got, 0)
  })
})

t.test('App.close with open WebSockets', async (t) => {
  t.test('sends 1001 and waits for the peers to close', async (t) => {
    const { app, port } = await listening(t, (app) => app.ws('/ws', echo))
    const a = await connect(port, '/ws')
    const b = await connect(port, '/ws')
    await app.close()
    t.same(await a.closed, { code: 1001, reason: 'server shutting down' })
    t.equal((await b.closed).code, 1001)
  })

  t.test('cuts a peer that does not answer the close frame after close_timeout_ms', async (t) => {
    let server_side: number | undefined
    const { app, port } = await listening(
      t,
      (app) => app.ws('/ws', (ws) => void ws.on_close((code) => (server_side = code))),
      { close_timeout_ms: 200 },
    )
    const c = await connect(port, '/ws')
    // A peer that never reads: its socket is paused, so the close frame gets no answer.
    const raw = (c.ws as unknown as { _socket: { pause(): void } })._socket
    raw.pause()
    const started = Date.now()
    await app.close()
    t.ok(Date.now() - started < 2000, 'closed within the grace period')
    t.equal(server_side, 1006, 'cut without a close handshake')
    c.ws.terminate()
  })
  t.test('closes with 1001 an upgrade whose middleware was still running when close() began', async (t) => {
    const held = gate()
    const entered = gate()
    const server_side: number[] = []
    const { app, port } = await listening(
      t,
      (app) => {
        app.use(async (req, _res, next) => {
          if (req.header('x-hold') === '1') {
            entered.open()
            await held.promise
          }
          return next()
        })
        app.ws('/ws', (ws) => void ws.on_close((code) => void server_side.push(code)))
      },
      { close_timeout_ms: 1000 },
    )
    // A peer that never reads keeps the drain waiting for close_timeout_ms.
    const stuck = await connect(port, '/ws')
    ;(stuck.ws as unknown as { _socket: Socket })._socket.pause()
    t.teardown(() => stuck.ws.terminate())
    const late = connect(port, '/ws', { 'x-hold': '1' })
    await entered.promise
    const closing = app.close().then(() => [...server_side])
    await new Promise((resolve) => setTimeout(resolve, 50))
    held.open()
    t.same(await (await late).closed, { code: 1001, reason: 'server shutting down' })
    t.same((await closing).sort(), [1001, 1006], 'close() resolved after both on_close ran: the late one answered')
  })
})

t.test('1,000 connections opened and dropped abruptly leave nothing behind', async (t) => {
  let opened = 0
  let closed = 0
  const { app, port } = await listening(t, (app) =>
    app.ws('/ws/{room}', (ws, req) => {
      opened++
      ws.join(req.param('room')).join('all')
      ws.on_close(() => void closed++)
    }),
  )
  for (let batch = 0; batch < 10; batch++) {
    const clients = await Promise.all(Array.from({ length: 100 }, (_, i) => connect(port, `/ws/r${i % 7}`)))
    for (const c of clients) c.ws.terminate()
  }
  const endpoint = app.compile().ws[0]!.endpoint
  for (let i = 0; i < 200 && closed < 1000; i++) await new Promise((r) => setTimeout(r, 25))
  t.equal(opened, 1000)
  t.equal(closed, 1000)
  t.equal(endpoint.connections.size, 0)
  t.same(app.rooms.names(), [])
  t.equal(app.rooms.members('all').length, 0)
  t.equal(app.fastify.server.listenerCount('upgrade'), 1)
})

t.test('App.ws mounted in a host Fastify app', async (t) => {
  for (const host_has_plugin of [false, true]) {
    t.test(
      host_has_plugin ? 'uses the websocket plugin the host registered' : 'registers the websocket plugin itself',
      async (t) => {
        const host = Fastify()
        if (host_has_plugin) await host.register(fastifyWebsocket)
        const app = new fw.App({ access_log: false })
        app.use(adapt_ctx(auth.api_key({ allowed_keys: ['k1'] })))
        app.ws('/ws/{room}', (ws, req) => void ws.send(req.param('room')))
        await host.register(fw_plugin, { app, prefix: '/fw' })
        t.teardown(() => host.close())
        await host.listen({ port: 0, host: '127.0.0.1' })
        const port = (host.server.address() as AddressInfo).port
        t.equal((await refused(port, '/fw/ws/lobby')).status, 401)
        const c = await connect(port, '/fw/ws/lobby', { 'x-api-key': 'k1' })
        t.equal(await c.next(), 'lobby')
        c.ws.close()
        await c.closed
      },
    )
    t.test(
      `selects a route's subprotocol ${host_has_plugin ? "through the host's plugin" : 'through its own plugin'}`,
      async (t) => {
        const host = Fastify()
        if (host_has_plugin) await host.register(fastifyWebsocket)
        const app = new fw.App({ access_log: false })
        app.ws('/graphql', (ws) => void ws.send(ws.protocol), { protocols: ['graphql-transport-ws'] })
        app.ws('/any', (ws) => void ws.send(ws.protocol))
        await host.register(fw_plugin, { app, prefix: '/fw' })
        t.teardown(() => host.close())
        await host.listen({ port: 0, host: '127.0.0.1' })
        const port = (host.server.address() as AddressInfo).port
        const c = await connect(port, '/fw/graphql', {}, ['chat', 'graphql-transport-ws'])
        t.equal(c.ws.protocol, 'graphql-transport-ws')
        t.equal(await c.next(), 'graphql-transport-ws')
        t.equal((await handshake(port, '/fw/graphql', { 'sec-websocket-protocol': 'chat' })).status, 400)
        const any = await connect(port, '/fw/any', {}, ['chat', 'graphql-transport-ws'])
        t.equal(any.ws.protocol, 'chat', "ws's default, unchanged")
        t.equal(await any.next(), 'chat')
        c.ws.close()
        any.ws.close()
        await Promise.all([c.closed, any.closed])
      },
    )
    t.test(
      host_has_plugin
        ? "closing the host sends 1001 to fw's sockets, not the plugin's code-less close"
        : 'closing the host sends 1001 to open sockets',
      async (t) => {
        const host = Fastify()
        if (host_has_plugin) await host.register(fastifyWebsocket)
        const app = new fw.App({ access_log: false })
        let server_side: number | undefined
        app.ws('/ws', (ws) => void ws.on_close((code) => (server_side = code)))
        await host.register(fw_plugin, { app, prefix: '/fw' })
        await host.listen({ port: 0, host: '127.0.0.1' })
        const port = (host.server.address() as AddressInfo).port
        const c = await connect(port, '/fw/ws')
        await host.close()
        t.same(await c.closed, { code: 1001, reason: 'server shutting down' })
        t.equal(server_side, 1001)
      },
    )
  }
})

t.test('App.ws in a host whose websocket plugin keeps no client list (clientTracking: false)', async (t) => {
  const host = Fastify()
  await host.register(fastifyWebsocket, { options: { clientTracking: false } })
  const app = new fw.App({ access_log: false })
  app.ws('/ws', echo)
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())
  await host.listen({ port: 0, host: '127.0.0.1' })
  const port = (host.server.address() as AddressInfo).port
  const c = await connect(port, '/fw/ws')
  c.ws.send('hi')
  t.equal(await c.poll(1000), 'hi', 'the socket is served, not cut')
  await host.close()
  t.same(await c.closed, { code: 1001, reason: 'server shutting down' })
})

t.test('App.ws in a host whose websocket plugin has its own handleProtocols', async (t) => {
  /**
   * How the host's function is given: in the plugin's options, assigned to the server before or after listen, or with
   * the host's plugin registered after fw's.
   */
  const ways = ['plugin options', 'assigned after fw mounted', 'assigned after listen', 'plugin after fw'] as const
  /** The host's answers: the name fw chose, none, and one the client offered that the fw route does not speak. */
  const answers = ['graphql-transport-ws', false, 'chat'] as const
  for (const way of ways)
    for (const answer of answers)
      t.test(`${way}, returning ${JSON.stringify(answer)}`, async (t) => {
        const seen: Array<{ url: string | undefined; offer: string[] }> = []
        const host_protocols = (offer: Set<string>, raw: IncomingMessage): string | false => {
          seen.push({ url: raw.url, offer: [...offer] })
          return answer
        }
        const host = Fastify()
        const assign = (): void => void (host.websocketServer.options.handleProtocols = host_protocols)
        const app = new fw.App({ access_log: false })
        app.ws('/graphql', (ws) => void ws.send(ws.protocol), { protocols: ['graphql-transport-ws'] })
        app.ws('/any', (ws) => void ws.send(ws.protocol))
        if (way === 'plugin after fw') await host.register(fw_plugin, { app, prefix: '/fw' })
        await host.register(
          fastifyWebsocket,
          way === 'plugin options' || way === 'plugin after fw' ? { options: { handleProtocols: host_protocols } } : {},
        )
        host.get('/host', { websocket: true }, (socket) => socket.send(`host ${socket.protocol}`))
        if (way !== 'plugin after fw') await host.register(fw_plugin, { app, prefix: '/fw' })
        if (way === 'assigned after fw mounted') assign()
        t.teardown(() => host.close())
        await host.listen({ port: 0, host: '127.0.0.1' })
        if (way === 'assigned after listen') assign()
        const port = (host.server.address() as AddressInfo).port
        /** The protocol the 101 selected and the handler's first message, or the client's failure. */
        const open = async (path: string, offer: string[]): Promise<unknown> => {
          try {
            const c = await connect(port, path, {}, offer)
            const answered = { protocol: c.ws.protocol, sent: await c.next() }
            c.ws.close()
            await c.closed
            return answered
          } catch (err) {
            return (err as Error).message
          }
        }
        // fw's route with `protocols`: fw's choice, the host's function not asked.
        t.same(await open('/fw/graphql', ['chat', 'graphql-transport-ws']), {
          protocol: 'graphql-transport-ws',
          sent: 'graphql-transport-ws',
        })
        t.same(seen, [], "the host's function is not called for it")
        // Registered after fw's, the host's plugin is a second server: fw found none and serves its routes on its own.
        if (way === 'plugin after fw') return
        // fw's route without `protocols` and the host's own route: the host's function, given the whole offer, decides.
        // None selected fails a client that offered some (as browsers do): that is the host's answer to give.
        const offer = ['graphql-transport-ws', 'chat']
        t.same(
          await open('/fw/any', offer),
          answer === false ? 'Server sent no subprotocol' : { protocol: answer, sent: answer },
        )
        t.same(
          await open('/host', offer),
          answer === false ? 'Server sent no subprotocol' : { protocol: answer, sent: `host ${answer}` },
        )
        t.same(seen, [
          { url: '/fw/any', offer },
          { url: '/host', offer },
        ])
      })
})

// Last in the file: follow_context() keeps every request's context for its async work from then on, in this process.
t.test("a followed message handler's lines after an await carry its own connection's id", async (t) => {
  const out = capture_log(t)
  fw.log.follow_context()
  const { port } = await listening(t, (app) =>
    app.ws(
      '/ws',
      (ws) =>
        void ws.on_message(async (m) => {
          await new Promise((resolve) => setImmediate(resolve))
          fw.log.info('late {}', m)
          ws.send(`done ${String(m)}`)
        }),
    ),
  )
  const a = await connect(port, '/ws', { 'x-request-id': 'rid-a' })
  const b = await connect(port, '/ws', { 'x-request-id': 'rid-b' })
  for (const [c, m] of [
    [a, 'a1'],
    [b, 'b1'],
    [a, 'a2'],
  ] as const)
    c.ws.send(m)
  t.same([await a.next(), await a.next(), await b.next()], ['done a1', 'done a2', 'done b1'])
  const late = out
    .lines()
    .filter((l) => l.includes('late'))
    .sort()
  t.match(late, [/late a1 rid=rid-a$/, /late a2 rid=rid-a$/, /late b1 rid=rid-b$/])
  a.ws.close()
  b.ws.close()
  await Promise.all([a.closed, b.closed])
})
