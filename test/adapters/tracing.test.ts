// app.tracing with the OpenTelemetry SDK and an in-memory exporter: span names, attributes, traceparent, log ids.
import { propagation, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { request } from 'node:http'
import { connect, type ClientHttp2Session } from 'node:http2'
import Fastify from 'fastify'
import { generate } from 'selfsigned'
import t from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'
import { info } from '../../lib/log/index.js'
import { in_span, type Metrics } from '../../lib/observability/index.js'
import { heap_monitor } from '../helpers/load.js'
import { http_cache } from '../../lib/cache/http/http-cache.js'
import { RedisCacheStore } from '../../lib/redis/index.js'
import { build, gate, listening } from '../helpers/build.js'
import { closing_app, sent_while_closing } from '../helpers/closing.js'
import { h2_request, raw, send } from '../helpers/http.js'
import { start_redis } from '../helpers/redis-server.js'
import { capture_log } from '../helpers/log.js'
import { parse_kv } from '../lib/log/capture.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
trace.setGlobalTracerProvider(provider)
propagation.setGlobalPropagator(new W3CTraceContextPropagator())

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = '00f067aa0ba902b7'

function traced(t: Parameters<typeof build>[0]) {
  return build(t, (app) => {
    app.tracing()
    app.get('/users/{id}', (_req, res) => {
      info('loading user')
      res.json('ok', true)
    })
    app.get('/boom', () => {
      throw new Error('boom')
    })
  })
}

t.test('App.tracing', async (t) => {
  t.beforeEach(() => exporter.reset())

  t.test('makes one server span per request named by method and route template, with semconv attributes', async (t) => {
    const app = traced(t)
    await app.inject({ url: '/users/42?x=1', headers: { 'user-agent': 'probe/1' } })
    const [span] = exporter.getFinishedSpans()
    t.equal(exporter.getFinishedSpans().length, 1)
    t.equal(span!.name, 'GET /users/{id}')
    t.equal(span!.kind, 1, 'SpanKind.SERVER')
    t.match(span!.attributes, {
      'http.request.method': 'GET',
      'http.route': '/users/{id}',
      'url.path': '/users/42',
      'url.query': 'x=1',
      'http.response.status_code': 200,
      'user_agent.original': 'probe/1',
      'client.address': '127.0.0.1',
    })
  })

  t.test('names the span of a request no route matched by its method alone, without http.route', async (t) => {
    const app = traced(t)
    const r = await app.inject('/nowhere/42')
    t.equal(r.statusCode, 404)
    const [span] = exporter.getFinishedSpans()
    t.equal(span!.name, 'GET', 'OpenTelemetry: {method} when there is no route')
    t.equal(span!.attributes['http.route'], undefined, 'no route to name')
    t.match(span!.attributes, { 'url.path': '/nowhere/42', 'http.response.status_code': 404 })
  })

  t.test('keeps secret query parameters out of url.query, as the access line does', async (t) => {
    const app = traced(t)
    await app.inject('/users/42?api_key=s3cr3t&page=2&ACCESS_TOKEN=tok&api%5Fkey=s2')
    const [span] = exporter.getFinishedSpans()
    t.equal(span!.attributes['url.query'], 'api_key=[redacted]&page=2&ACCESS_TOKEN=[redacted]&api%5Fkey=[redacted]')
    t.equal(span!.attributes['url.path'], '/users/42')
  })

  t.test("keeps the App's own secret query parameters out of url.query too", async (t) => {
    const app = build(
      t,
      (app) => {
        app.tracing()
        app.get('/users/{id}', (_req, res) => void res.json('ok', true))
      },
      { secret_query_params: ['ticket'] },
    )
    await app.inject('/users/42?ticket=t0k&page=2')
    const [span] = exporter.getFinishedSpans()
    t.equal(span!.attributes['url.query'], 'ticket=[redacted]&page=2')
  })

  t.test('continues the caller’s trace from traceparent', async (t) => {
    const app = traced(t)
    await app.inject({ url: '/users/1', headers: { traceparent: `00-${TRACE}-${PARENT}-01` } })
    const [span] = exporter.getFinishedSpans()
    t.equal(span!.spanContext().traceId, TRACE)
    t.equal(span!.parentSpanContext?.spanId, PARENT)
  })

  t.test('starts a new trace for a malformed or all-zero traceparent', async (t) => {
    const app = traced(t)
    for (const tp of [
      'garbage',
      `00-${'0'.repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${PARENT}-01x`,
    ]) {
      exporter.reset()
      await app.inject({ url: '/users/1', headers: { traceparent: tp } })
      const [span] = exporter.getFinishedSpans()
      t.not(span!.spanContext().traceId, TRACE, tp)
      t.not(span!.spanContext().traceId, '0'.repeat(32))
      t.equal(span!.parentSpanContext, undefined, tp)
    }
  })

  t.test('marks a 5xx answer as an error', async (t) => {
    const app = traced(t)
    await app.inject('/boom')
    t.equal(exporter.getFinishedSpans()[0]!.status.code, 2, 'SpanStatusCode.ERROR')
  })

  t.test('sets error.type to the status code of a 5xx answer, and leaves it out of a 4xx', async (t) => {
    const app = traced(t)
    await app.inject('/boom')
    await app.inject('/nowhere')
    const [failed, missing] = exporter.getFinishedSpans()
    t.match(
      failed!.attributes,
      { 'http.response.status_code': 500, 'error.type': '500' },
      'semconv: conditionally required',
    )
    t.equal(missing!.attributes['http.response.status_code'], 404)
    t.equal(missing!.attributes['error.type'], undefined, 'a 4xx is the client’s: no error')
  })

  t.test('gives url.path only the path of an absolute-form target: no scheme, host or userinfo', async (t) => {
    const { port } = await listening(t, (app) => {
      app.tracing()
      app.get('/users/{id}', (_req, res) => res.json('ok', true))
    })
    const targets = ['http://user:pass@example.com/users/1?token=t&page=2', 'HTTPS://example.com:8443/users/2']
    for (const target of targets) {
      exporter.reset()
      const r = await raw(port, `GET ${target} HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n`)
      t.equal(r.status, 200, 'the router routes it by its path')
      for (let i = 0; i < 200 && exporter.getFinishedSpans().length === 0; i++) await new Promise(setImmediate)
      const [span] = exporter.getFinishedSpans()
      t.equal(span?.name, 'GET /users/{id}')
      t.equal(span?.attributes['url.path'], target.startsWith('http:') ? '/users/1' : '/users/2', target)
      t.equal(span?.attributes['url.query'], target.startsWith('http:') ? 'token=[redacted]&page=2' : undefined)
    }
  })

  t.test('puts trace_id and span_id on the request’s log lines', async (t) => {
    const out = capture_log(t)
    const app = traced(t)
    await app.inject({ url: '/users/1', headers: { traceparent: `00-${TRACE}-${PARENT}-01` } })
    const span = exporter.getFinishedSpans()[0]!
    const line = out.lines().find((l) => l.includes('loading user'))!
    t.match(Object.fromEntries(parse_kv(line).pairs), { trace_id: TRACE, span_id: span.spanContext().spanId })
  })

  t.test('keeps each request’s trace ids when two concurrent requests send the same x-request-id', async (t) => {
    const out = capture_log(t)
    const both = gate()
    let arrived = 0
    const app = build(
      t,
      (app) => {
        app.tracing()
        app.get('/slow', async (req, res) => {
          if (++arrived === 2) both.open()
          await both.promise
          info('served {}', req.header('traceparent').slice(3, 11))
          res.json('ok', true)
        })
      },
      { access_log: 'info' },
    )
    const other = 'aaaaaaaabbbbbbbbccccccccdddddddd'
    await Promise.all(
      [TRACE, other].map((id) =>
        app.inject({ url: '/slow', headers: { 'x-request-id': 'same-id', traceparent: `00-${id}-${PARENT}-01` } }),
      ),
    )
    for (const id of [TRACE, other]) {
      const served = out.lines().filter((l) => l.includes(`served ${id.slice(0, 8)}`))
      t.equal(served.length, 1)
      t.match(Object.fromEntries(parse_kv(served[0]!).pairs), { rid: 'same-id', trace_id: id })
    }
    const access = out
      .lines()
      .filter((l) => l.includes('[http]'))
      .map((l) => Object.fromEntries(parse_kv(l).pairs).trace_id)
    t.same(access.sort(), [TRACE, other].sort(), 'the access lines carry each request’s own trace id')
  })

  t.test('makes cache and Redis spans children of the request’s server span, after an await', async (t) => {
    const app = build(t, (app) => {
      app.tracing()
      app.get('/work', async (_req, res) => {
        await new Promise((resolve) => setImmediate(resolve))
        await in_span('redis GET', { 'db.system': 'redis' }, async () => 'v')
        res.json('ok', true)
      })
    })
    await app.inject({ url: '/work', headers: { traceparent: `00-${TRACE}-${PARENT}-01` } })
    const spans = exporter.getFinishedSpans()
    const server = spans.find((s) => s.name === 'GET /work')!
    const child = spans.find((s) => s.name === 'redis GET')!
    t.equal(child.spanContext().traceId, TRACE)
    t.equal(child.parentSpanContext?.spanId, server.spanContext().spanId)
    t.equal(child.attributes['db.system'], 'redis')
  })

  t.test('records each http_cache decision and each Redis store call as a child span of the request', async (t) => {
    const redis = await start_redis(t)
    const store = new RedisCacheStore({ client: redis.url })
    t.teardown(() => store.close())
    const app = build(t, (app) => {
      app.tracing()
      app.use(http_cache({ store }))
      app.get('/catalog', (_req, res) => void res.json('ok', true))
    })
    await app.inject('/catalog')
    await app.inject('/catalog')
    await app.inject({ url: '/catalog', headers: { 'x-fw-cache': 'bypass' } })
    const spans = exporter.getFinishedSpans()
    const servers = spans.filter((s) => s.name === 'GET /catalog')
    t.equal(servers.length, 3)
    const children = (server: (typeof spans)[number]) =>
      spans.filter((s) => s.parentSpanContext?.spanId === server.spanContext().spanId)
    const outcomes = servers.map((server) =>
      children(server)
        .filter((s) => s.name === 'http_cache')
        .map((s) => s.attributes['fw.cache.outcome']),
    )
    t.same(outcomes, [['miss'], ['hit'], ['bypass']])
    const redis_calls = servers.map((server) =>
      children(server)
        .filter((s) => s.name.startsWith('redis '))
        .map((s) => s.name),
    )
    t.same(redis_calls[0], ['redis get', 'redis put'], 'a miss looks up, then stores')
    t.same(redis_calls[1], ['redis get'])
    t.same(redis_calls[2], [], 'a bypass never reaches Redis')
    t.match(spans.find((s) => s.name === 'redis get')!.attributes, {
      'db.system.name': 'redis',
      'db.operation.name': 'get',
    })
  })

  t.test('ends the span of a request whose client left before the answer, once, with status 499', async (t) => {
    const arrived = gate()
    const release = gate()
    const { port } = await listening(t, (app) => {
      app.tracing()
      app.get('/slow', async (_req, res) => {
        arrived.open()
        await release.promise
        res.json('ok', true)
      })
    })
    const client = request({ host: '127.0.0.1', port, path: '/slow' }).on('error', () => {})
    client.end()
    await arrived.promise
    client.destroy()
    // The server sees the socket close a few turns of the event loop later.
    for (let i = 0; i < 2000 && exporter.getFinishedSpans().length === 0; i++) await new Promise(setImmediate)
    release.open()
    await new Promise(setImmediate)
    const spans = exporter.getFinishedSpans()
    t.equal(spans.length, 1)
    t.equal(spans[0]!.attributes['http.response.status_code'], 499)
  })

  t.test('gives the span of an answer its client left mid-body the status metrics count it with', async (t) => {
    // An answer ended (`send` of a body far larger than the socket buffers) whose client leaves once the head arrived:
    // it was answered, so the span and the metrics both say 200. A stream its client leaves before the handler ends it
    // was not: the span says 499 and metrics count no status, only the end of the request in flight.
    const big = Buffer.alloc(32 * 1024 * 1024, 0x61)
    const never = gate()
    t.teardown(never.open)
    const { app, port } = await listening(t, (app) => {
      app.tracing()
      app.metrics()
      app.get('/big', (_req, res) => void res.header('content-type', 'application/octet-stream').send(big))
      app.get('/stream', (_req, res) => {
        res.stream(
          (async function* () {
            yield 'first chunk\n'
            await never.promise
          })(),
        )
      })
    })
    const leave_after_head = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const client = request({ host: '127.0.0.1', port, path }, (r) => {
          r.once('data', () => {
            resolve(r.statusCode!)
            client.destroy()
          })
        })
        client.on('error', () => {}).on('close', () => reject(new Error('closed before the response')))
        client.end()
      })
    const span_of_route = (route: string) =>
      exporter.getFinishedSpans().find((s) => s.attributes['http.route'] === route)
    const ended = async (route: string) => {
      for (let i = 0; i < 2000 && span_of_route(route) === undefined; i++) await new Promise(setImmediate)
      return span_of_route(route)
    }
    const metric = async (name: string) => {
      const text = (await app.inject('/metrics')).body
      const line = text.split('\n').find((l) => l.startsWith(`${name} `))
      return line === undefined ? undefined : Number(line.slice(name.length + 1))
    }

    t.equal(await leave_after_head('/big'), 200)
    const big_span = await ended('/big')
    t.equal(big_span!.attributes['http.response.status_code'], 200, 'the span: the status its answer was ended with')
    t.equal(await metric('fw_http_requests_total{method="GET",route="/big",status="200"}'), 1, 'metrics: the same')
    t.equal(await metric('fw_http_requests_total{method="GET",route="/big",status="499"}'), undefined)

    t.equal(await leave_after_head('/stream'), 200)
    const stream_span = await ended('/stream')
    t.equal(stream_span!.attributes['http.response.status_code'], 499, 'left before the answer was ended')
    const total = (await app.inject('/metrics')).body
    t.notMatch(total, /route="\/stream"/, 'metrics count no status for it')
  })

  t.test('makes one span for a shed request, tracing() called before shed_load() or after', async (t) => {
    for (const tracing_first of [true, false]) {
      exporter.reset()
      const { monitor, overload } = heap_monitor()
      const app = build(t, (app) => {
        if (tracing_first) app.tracing()
        app.shed_load({}, monitor)
        if (!tracing_first) app.tracing()
        app.get('/users/{id}', (_req, res) => res.json('ok', true))
      })
      overload()
      const r = await app.inject('/users/42')
      t.equal(r.statusCode, 503)
      t.equal(r.json().error, 'overloaded')
      const spans = exporter.getFinishedSpans()
      t.equal(spans.length, 1, `one span, tracing() ${tracing_first ? 'first' : 'last'}`)
      t.equal(spans[0]?.name, 'GET /users/{id}', 'named by the route it was sent to, as metrics count it')
      t.match(spans[0]?.attributes, { 'http.route': '/users/{id}', 'http.response.status_code': 503 })
      t.equal(spans[0]?.status.code, 2, 'a 503 marks the span as an error')
    }
  })

  t.test('makes one span, without http.route, for a malformed URL the router refuses with 400', async (t) => {
    const { port } = await listening(t, (app) => {
      app.tracing()
      app.get('/users/{id}', (_req, res) => res.json('ok', true))
    })
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const client = request({ host: '127.0.0.1', port, path: '/users/%zz?x=1' }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      client.on('error', reject).end()
    })
    t.same([answer.status, JSON.parse(answer.body)], [400, { ok: false, error: 'bad_request', message: 'Bad Request' }])
    for (let i = 0; i < 200 && exporter.getFinishedSpans().length === 0; i++) await new Promise(setImmediate)
    const spans = exporter.getFinishedSpans()
    t.equal(spans.length, 1, 'one span')
    t.equal(spans[0]?.name, 'GET', 'no route to name')
    t.equal(spans[0]?.attributes['http.route'], undefined)
    t.match(spans[0]?.attributes, { 'url.path': '/users/%zz', 'url.query': 'x=1', 'http.response.status_code': 400 })
    t.not(spans[0]?.status.code, 2, 'a 400 is the client’s, not an error of the server')
  })

  t.test('makes one span, _OTHER and named HTTP, for a method Node does not know, sent over HTTP/2', async (t) => {
    const { port } = await listening(
      t,
      (app) => {
        app.tracing()
        app.get('/users/{id}', (_req, res) => res.json('ok', true))
      },
      { http2: true },
    )
    const session = connect(`http://127.0.0.1:${port}`)
    t.teardown(() => session.close())
    const answer = await h2_send(session, 'FOO', '/users/1?x=1')
    t.equal(answer.status, 501)
    const spans = await finished_spans(1)
    t.equal(spans.length, 1, 'one span')
    t.equal(spans[0]?.name, 'HTTP', 'OpenTelemetry: HTTP, not _OTHER, names the span of an unknown method')
    t.equal(spans[0]?.attributes['http.route'], undefined)
    t.match(spans[0]?.attributes, {
      'http.request.method': '_OTHER',
      'http.request.method_original': 'FOO',
      'url.path': '/users/1',
      'url.query': 'x=1',
      'http.response.status_code': 501,
    })
  })

  t.test('makes the not-found span for a method Node knows that no route has, over HTTP/1.1 and HTTP/2', async (t) => {
    for (const http2 of [false, true]) {
      exporter.reset()
      const { port } = await listening(
        t,
        (app) => {
          app.tracing()
          app.get('/users/{id}', (_req, res) => res.json('ok', true))
        },
        { http2 },
      )
      let status: number
      if (http2) {
        const session = connect(`http://127.0.0.1:${port}`)
        t.teardown(() => session.close())
        status = (await h2_send(session, 'PURGE', '/users/1')).status
      } else status = (await send(port, { method: 'PURGE', path: '/users/1' })).status
      t.equal(status, 404)
      const spans = await finished_spans(1)
      t.equal(spans.length, 1, http2 ? 'HTTP/2' : 'HTTP/1.1')
      t.equal(spans[0]?.name, 'PURGE')
      t.match(spans[0]?.attributes, { 'http.request.method': 'PURGE', 'http.response.status_code': 404 })
      t.equal(spans[0]?.attributes['http.request.method_original'], undefined)
    }
  })

  t.test(
    'makes no span for a method Node refuses over HTTP/1.1: its parser answers 400 before any request',
    async (t) => {
      const { port } = await listening(t, (app) => {
        app.tracing()
        app.get('/users/{id}', (_req, res) => res.json('ok', true))
      })
      const answer = await raw(port, 'FOO /users/1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
      t.equal(answer.status, 400)
      t.same(JSON.parse(answer.body), { ok: false, error: 'bad_request', message: 'Bad Request' })
      await finished_spans(1, 50)
      t.equal(exporter.getFinishedSpans().length, 0, 'no request object exists to trace')
    },
  )

  t.test('makes one span, without http.route, for the 503 of a request received while the server closes', async (t) => {
    // A busy keep-alive connection stays open while the server closes: its next request is refused with 503.
    const { slow, refused } = await sent_while_closing(
      t,
      (app) => {
        app.tracing()
        app.get('/users/{id}', (_req, res) => res.json('ok', true))
      },
      '/users/1?x=1',
    )
    t.same([slow.status, refused.status], [200, 503], 'the slow request answered, then the 503')
    const spans = await finished_spans(2)
    t.same(
      spans.map((s) => [s.name, s.attributes['http.response.status_code']]),
      [
        ['GET /slow', 200],
        ['GET', 503],
      ],
    )
    t.equal(spans[1]?.attributes['http.route'], undefined, 'refused before any route, as metrics count it')
    t.match(spans[1]?.attributes, { 'url.path': '/users/1', 'url.query': 'x=1', 'client.address': '127.0.0.1' })
    t.equal(spans[1]?.status.code, 2, 'a 503 marks the span as an error')
  })

  t.test('gives the span of that 503 the client address and scheme of trust_proxy, as every other span', async (t) => {
    const forwarded = 'X-Forwarded-For: 203.0.113.7\r\nX-Forwarded-Proto: https\r\n'
    const cases = [
      { trust_proxy: ['127.0.0.1'], headers: forwarded, client: ['203.0.113.7', 'https'] },
      { trust_proxy: true, headers: 'X-Real-IP: 198.51.100.4\r\n', client: ['198.51.100.4', 'http'] },
      { trust_proxy: ['10.0.0.1'], headers: forwarded, client: ['127.0.0.1', 'http'] },
      { trust_proxy: false, headers: forwarded, client: ['127.0.0.1', 'http'] },
    ]
    for (const { trust_proxy, headers, client } of cases) {
      exporter.reset()
      let metrics!: Metrics
      const { refused } = await sent_while_closing(
        t,
        (app) => {
          app.tracing()
          metrics = app.metrics()
          app.get('/users/{id}', (_req, res) => res.json('ok', true))
        },
        '/users/1?x=1',
        { options: { trust_proxy }, headers },
      )
      const name = `trust_proxy ${JSON.stringify(trust_proxy)}`
      t.equal(refused.status, 503)
      const spans = await finished_spans(2)
      t.same(
        spans.map((s) => [s.name, s.attributes['client.address'], s.attributes['url.scheme']]),
        [
          ['GET /slow', ...client],
          ['GET', ...client],
        ],
        `${name}: the 503's span as the span of /slow, sent with the same headers`,
      )
      const text = await metrics.text()
      t.equal(series(text, 'fw_http_requests_total{method="GET",route="(unmatched)",status="503"}'), 1, 'counted too')
    }
  })

  t.test(
    'answers and traces a new HTTP/2 stream of a busy session while the server closes, or refuses it',
    async (t) => {
      const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 })
      const { app, port, arrived, release, closing } = await closing_app(
        t,
        (app) => {
          app.tracing()
          app.get('/users/{id}', (_req, res) => res.json('ok', true))
        },
        { http2: true, https: { key: pems.private, cert: pems.cert } },
      )
      const session = connect(`https://127.0.0.1:${port}`, { ca: pems.cert, checkServerIdentity: () => undefined })
      t.teardown(() => session.destroy())
      session.on('error', () => {})
      const slow = h2_send(session, 'GET', '/slow')
      await arrived
      const closed = app.close()
      await closing
      // Node 20 lets the session open the stream, which the server answers; Node 24 sends GOAWAY to every session of a
      // server that stops listening, and the stream is refused before any request exists.
      const answer = await h2_send(session, 'GET', '/users/1?x=1').catch((err: NodeJS.ErrnoException) => err)
      release()
      t.equal((await slow).status, 200)
      session.close()
      await closed
      const spans = (await finished_spans(2)).sort((a, b) => a.name.localeCompare(b.name))
      if (answer instanceof Error) {
        t.match(answer.message, /NGHTTP2_REFUSED_STREAM/)
        t.same(
          spans.map((s) => s.name),
          ['GET /slow'],
          'no request, no span',
        )
        return
      }
      t.same(
        [answer.status, JSON.parse(answer.body)],
        [503, { ok: false, error: 'not_ready', message: 'Server is closing, retry later' }],
      )
      t.same(
        spans.map((s) => [s.name, s.attributes['http.response.status_code']]),
        [
          ['GET', 503],
          ['GET /slow', 200],
        ],
      )
      t.equal(spans[0]?.attributes['http.route'], undefined)
      t.match(spans[0]?.attributes, { 'url.path': '/users/1', 'url.query': 'x=1', 'client.address': '127.0.0.1' })
      t.equal(spans[0]?.attributes['url.scheme'], 'https')
      t.equal(spans[0]?.status.code, 2, 'a 503 marks the span as an error')
    },
  )

  t.test("traces fw's requests in a host that mounts the App with fw_plugin, and only those", async (t) => {
    const out = capture_log(t)
    const app = new App({ access_log: false })
    app.tracing()
    app.get('/users/{id}', (_req, res) => {
      info('loading user')
      res.json('ok', true)
    })
    const host = Fastify()
    host.get('/legacy', async () => ({ legacy: true }))
    await host.register(fw_plugin, { app, prefix: '/fw' })
    t.teardown(() => host.close())
    await host.inject({ url: '/fw/users/42/?x=1', headers: { traceparent: `00-${TRACE}-${PARENT}-01` } })
    await host.inject('/legacy')
    const spans = exporter.getFinishedSpans()
    t.equal(spans.length, 1, "one span, of fw's request, routed again under its canonical path")
    t.equal(spans[0]!.name, 'GET /fw/users/{id}')
    t.match(spans[0]!.attributes, { 'http.route': '/fw/users/{id}', 'url.path': '/fw/users/42/', 'url.query': 'x=1' })
    t.equal(spans[0]!.spanContext().traceId, TRACE)
    const line = out.lines().find((l) => l.includes('loading user'))!
    t.match(Object.fromEntries(parse_kv(line).pairs), { trace_id: TRACE, span_id: spans[0]!.spanContext().spanId })
  })

  t.test('decides when the app starts: with no SDK by then, nothing is traced and answers are unchanged', async (t) => {
    trace.disable()
    t.teardown(() => void trace.setGlobalTracerProvider(provider))
    const app = traced(t)
    const r = await app.inject('/users/1')
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true })
    trace.setGlobalTracerProvider(provider)
    t.equal((await app.inject('/users/2')).statusCode, 200)
    t.equal(exporter.getFinishedSpans().length, 0, 'an SDK registered after the start traces a new app only')
    const later = traced(t)
    await later.inject('/users/3')
    t.equal(exporter.getFinishedSpans().length, 1)
  })
})

/** The value of one series in Prometheus text, or undefined. */
function series(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

/** The spans finished so far, once there are `n` of them or after `turns` turns of the event loop. */
async function finished_spans(n: number, turns = 200) {
  for (let i = 0; i < turns && exporter.getFinishedSpans().length < n; i++) await new Promise(setImmediate)
  return exporter.getFinishedSpans()
}

/** Sends one HTTP/2 request on `session` and reads its status and body. */
async function h2_send(
  session: ClientHttp2Session,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  const { status, body } = await h2_request(session, { ':method': method, ':path': path })
  return { status, body }
}
