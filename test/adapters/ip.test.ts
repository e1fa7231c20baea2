import { connect } from 'node:net'
import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { ip_resolver } from '../../adapters/request-lines.js'
import { adapt_ctx, type App } from '../../index.js'
import { rate_limit } from '../../lib/middleware/security/rate-limit.js'
import type { HostRequest } from '../../lib/request.js'
import { gate, listening } from '../helpers/build.js'
import { send } from '../helpers/http.js'
import { host_request } from '../helpers/host-request.js'

const FORWARDED = { 'x-forwarded-for': '203.0.113.7' }
const REAL = { 'x-real-ip': '198.51.100.9' }

function host(
  peer: string,
  headers: Record<string, string>,
  ip = peer,
): HostRequest & { socket: { remoteAddress: string } } {
  return host_request({ headers, ip, socket: { remoteAddress: peer } })
}

t.test('ip_resolver', async (t) => {
  t.test('returns the host ip when nothing is trusted', async (t) => {
    for (const trust of [false, [] as string[]]) {
      t.equal(ip_resolver(trust)(host('10.0.0.1', { ...REAL })), '10.0.0.1')
    }
  })

  t.test(
    'honours X-Real-IP only from a trusted peer, only when it is an address and X-Forwarded-For is absent',
    async (t) => {
      const resolve = ip_resolver(['10.0.0.0/8'])
      t.equal(resolve(host('10.0.0.1', { 'x-real-ip': ' 198.51.100.9 ' })), '198.51.100.9')
      t.equal(resolve(host('192.0.2.1', { ...REAL })), '192.0.2.1')
      t.equal(resolve(host('10.0.0.1', { 'x-real-ip': 'not-an-ip' })), '10.0.0.1')
      t.equal(resolve(host('10.0.0.1', { ...REAL, ...FORWARDED }, '203.0.113.7')), '203.0.113.7')
      t.equal(ip_resolver(true)(host('192.0.2.1', { ...REAL })), '198.51.100.9')
    },
  )

  t.test('leaves out a port a trusted proxy wrote after the X-Real-IP address, as after X-Forwarded-For', async (t) => {
    // Read as no address, every client behind such a proxy was the proxy itself: one rate-limit bucket for all.
    const resolve = ip_resolver(['10.0.0.0/8'])
    t.equal(resolve(host('10.0.0.1', { 'x-real-ip': '198.51.100.9:50001' })), '198.51.100.9')
    t.equal(resolve(host('10.0.0.1', { 'x-real-ip': '[2001:db8::9]:50001' })), '2001:db8::9')
    t.equal(resolve(host('10.0.0.1', { 'x-real-ip': '198.51.100.9:x' })), '10.0.0.1', 'not an address: the peer')
  })

  t.test('gives an empty address, never undefined, when the socket no longer knows its peer', async (t) => {
    // Fastify's `ip` is the socket's remoteAddress: undefined once the client has gone, unless something read it
    // before.
    const gone = host(undefined as unknown as string, {})
    for (const trust of [false, true, ['10.0.0.0/8']]) {
      t.equal(ip_resolver(trust)(gone), '', JSON.stringify(trust))
      t.equal(ip_resolver(trust)({ ...gone, headers: { ...FORWARDED, ...REAL } }), '', JSON.stringify(trust))
    }
  })
})

t.test('Request.ip of a client that went away before anything read its address', async (t) => {
  for (const trust_proxy of [false, ['127.0.0.1']]) {
    t.test(`is '' and the ip rate limit still runs (trust_proxy ${JSON.stringify(trust_proxy)})`, async (t) => {
      const waiting = gate()
      const reached = gate()
      const seen: string[] = []
      const { port } = await listening(
        t,
        (app) => {
          // Holds the request until its client's socket has closed, as a slow authenticator or store would.
          app.use(async (req, _res, next) => {
            const socket = (req.raw as unknown as FastifyRequest).raw.socket
            const closed = new Promise((resolve) => socket.once('close', resolve))
            waiting.open()
            await closed
            return next()
          })
          app.use(adapt_ctx(rate_limit({ max_requests: 5, window_seconds: 60 })))
          app.get('/ip', (req, res) => {
            seen.push(req.ip())
            reached.open()
            res.text('ok')
          })
        },
        { trust_proxy },
      )
      const client = connect(port, '127.0.0.1', () => client.write('GET /ip HTTP/1.1\r\nHost: x\r\n\r\n'))
      client.on('error', () => undefined)
      await waiting.promise
      client.destroy()
      const timeout = new Promise((resolve) => setTimeout(resolve, 2000, 'timeout'))
      t.not(await Promise.race([reached.promise, timeout]), 'timeout', 'the handler ran')
      t.same(seen, [''])
    })
  }
})

t.test('Request.ip with trust_proxy', async (t) => {
  const setup = (app: App): void => void app.get('/ip', (req, res) => void res.text(req.ip()))
  const ip = async (port: number, headers: Record<string, string>) => (await send(port, { path: '/ip', headers })).body

  t.test('ignores X-Forwarded-For and X-Real-IP when no proxy is trusted', async (t) => {
    const { port } = await listening(t, setup)
    for (const headers of [{}, FORWARDED, REAL, { ...FORWARDED, ...REAL }])
      t.equal(await ip(port, headers), '127.0.0.1', JSON.stringify(headers))
  })

  t.test('ignores them when the peer is not the trusted proxy', async (t) => {
    const { port } = await listening(t, setup, { trust_proxy: ['10.0.0.1'] })
    for (const headers of [FORWARDED, REAL]) t.equal(await ip(port, headers), '127.0.0.1', JSON.stringify(headers))
  })

  t.test('counts them when the peer 127.0.0.1 is trusted', async (t) => {
    const { port } = await listening(t, setup, { trust_proxy: ['127.0.0.1'] })
    t.equal(await ip(port, {}), '127.0.0.1')
    t.equal(await ip(port, FORWARDED), '203.0.113.7')
    t.equal(await ip(port, REAL), '198.51.100.9')
    t.equal(await ip(port, { ...FORWARDED, ...REAL }), '203.0.113.7')
    t.equal(await ip(port, { 'x-forwarded-for': '203.0.113.7, 10.9.9.9' }), '10.9.9.9')
  })

  t.test('walks X-Forwarded-For through every trusted hop', async (t) => {
    const { port } = await listening(t, setup, { trust_proxy: ['127.0.0.1', '10.0.0.0/8'] })
    t.equal(await ip(port, { 'x-forwarded-for': '203.0.113.7, 10.9.9.9' }), '203.0.113.7')
  })
})
