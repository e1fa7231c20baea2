// Committing a Response over real sockets: what a handler's headers may not do to the framing of the answer.
import { connect } from 'node:http2'
import { connect as connect_tcp } from 'node:net'
import t from 'tap'
import { listening } from '../helpers/build.js'
import { h2_request, parse, raw } from '../helpers/http.js'

/** Writes `bytes` on one connection and resolves with all it reads until the server closes it. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect_tcp(port, '127.0.0.1', () => socket.write(bytes))
    let text = ''
    const timer = setTimeout(() => socket.destroy(), 2000)
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(text)
    })
  })
}

/** The connection-specific fields RFC 9113 8.2.2 forbids in an HTTP/2 message (Node throws on each). */
const CONNECTION_SPECIFIC: ReadonlyArray<readonly [string, string]> = [
  ['connection', 'keep-alive'],
  ['keep-alive', 'timeout=5'],
  ['proxy-connection', 'keep-alive'],
  ['transfer-encoding', 'chunked'],
  ['upgrade', 'websocket'],
  ['te', 'gzip'],
]

t.test('a Transfer-Encoding set by a handler never frames a buffered body beside its Content-Length', async (t) => {
  const { port } = await listening(t, (app) => {
    app.get('/te', (_req, res) => void res.header('transfer-encoding', 'chunked').text('hello'))
    app.get('/te-error', (_req, res) => void res.header('Transfer-Encoding', 'gzip').error(400, 'bad', 'Bad'))
  })
  const r = await raw(port, 'GET /te HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  // RFC 9112 6.1: a sender MUST NOT send Content-Length in a message with Transfer-Encoding.
  t.same(
    [r.status, r.headers['transfer-encoding'], r.headers['content-length'], r.body],
    [200, undefined, '5', 'hello'],
  )
  const e = await raw(port, 'GET /te-error HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.same([e.status, e.headers['transfer-encoding']], [400, undefined])
  t.same(JSON.parse(e.body), { ok: false, error: 'bad', message: 'Bad' })
})

t.test('connection-specific headers a handler sets are left out over HTTP/2, and the answer goes out', async (t) => {
  const { port } = await listening(
    t,
    (app) => {
      for (const [name, value] of CONNECTION_SPECIFIC)
        app.get(`/h/${name}`, (_req, res) => void res.header(name, value).header('x-kept', '1').text('hello'))
      app.get('/thrown', (_req, res) => {
        res.header('connection', 'close')
        throw new Error('boom')
      })
    },
    { http2: true, logger: { level: 'off' } },
  )
  const session = connect(`http://127.0.0.1:${port}`)
  session.on('error', () => {})
  t.teardown(() => session.close())
  const get = async (path: string) => {
    const r = await h2_request(session, { ':path': path })
    return { status: r.status, kept: r.headers['x-kept'], body: r.body }
  }
  for (const [name] of CONNECTION_SPECIFIC)
    t.same(await get(`/h/${name}`), { status: 200, kept: '1', body: 'hello' }, name)
  const thrown = await get('/thrown')
  t.same(
    [thrown.status, JSON.parse(thrown.body)],
    [500, { ok: false, error: 'internal_error', message: 'Internal Server Error' }],
  )
})

t.test('a Content-Length set by a handler never frames a streamed body: it goes out chunked', async (t) => {
  const { port } = await listening(t, (app) => {
    const hello = async function* (): AsyncGenerator<string> {
      yield 'hello'
    }
    app.get('/short', (_req, res) => void res.header('content-length', '2').stream(hello(), 'text/plain'))
    app.get('/long', (_req, res) => void res.header('Content-Length', '100').stream(hello(), 'text/plain'))
    app.get('/sse', (_req, res) => {
      res.header('content-length', '2').sse(async (sink) => {
        await sink.send({ data: 'x' })
      })
    })
    app.get('/next', (_req, res) => void res.text('next'))
  })
  for (const path of ['/short', '/long', '/sse']) {
    // Two requests on one keep-alive connection: a length that lies would run one answer into the other.
    const text = await exchange(
      port,
      `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    )
    const first = parse(text)
    t.same(
      [first.status, first.headers['content-length'], first.headers['transfer-encoding']],
      [200, undefined, 'chunked'],
      path,
    )
    const second = text.slice(text.indexOf('0\r\n\r\n') + 5)
    t.same([parse(second).status, parse(second).body], [200, 'next'], path)
  }
  const head = await raw(port, 'HEAD /short HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.same([head.status, head.headers['content-length'], head.body], [200, undefined, ''])
})
