// app.metrics, app.health and app.shed_load through real requests: labels by template, probes, draining, shedding.
import { request } from 'node:http'
import { connect } from 'node:http2'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { createSigner } from 'fast-jwt'
import { adapt_ctx } from '../../lib/compose.js'
import { api_key } from '../../lib/middleware/auth/api-key.js'
import { any_of } from '../../lib/middleware/auth/combine.js'
import { jwt } from '../../lib/middleware/auth/jwt.js'
import { rate_limit } from '../../lib/middleware/app/rate-limit.js'
import { ip_filter } from '../../lib/middleware/security/ip-filter.js'
import { type Metrics } from '../../lib/observability/index.js'
import { heap_monitor } from '../helpers/load.js'
import { build, gate, listening } from '../helpers/build.js'
import { h2_request } from '../helpers/http.js'
import { sent_while_closing } from '../helpers/closing.js'

const SECRET = 'observability-test-secret-0123456789'

/** The value of one series in Prometheus text, or undefined. */
function series(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

t.test('App.metrics', async (t) => {
  t.test('counts requests by method, route template and status, never by raw URL', async (t) => {
    const app = build(t, (app) => {
      app.metrics()
      app.get('/users/{id}', (_req, res) => void res.json('ok', true))
    })
    for (let i = 0; i < 1000; i++) await app.inject(`/users/${i}?q=${i}`)
    await app.inject('/nope/1')
    await app.inject('/nope/2')
    const r = await app.inject('/metrics')
    t.equal(r.statusCode, 200)
    t.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8', "the exposition format's type")
    t.equal(series(r.body, 'fw_http_requests_total{method="GET",route="/users/{id}",status="200"}'), 1000)
    t.equal(series(r.body, 'fw_http_requests_total{method="GET",route="(unmatched)",status="404"}'), 2)
    t.equal(
      series(r.body, 'fw_http_request_duration_seconds_count{method="GET",route="/users/{id}",status="200"}'),
      1000,
    )
    t.notMatch(r.body, /users\/\d/, 'no raw URL is a label')
    t.equal(
      r.body.split('\n').filter((l) => l.startsWith('fw_http_requests_total{')).length,
      2,
      'series stay those of the templates',
    )
    t.equal(series(r.body, 'fw_http_requests_in_flight'), 1, 'the scrape itself is in flight')
    t.match(r.body, /nodejs_eventloop_lag_seconds /)
    t.match(r.body, /process_cpu_user_seconds_total /)
  })

  t.test('counts module events: rate-limit refusals by namespace and auth refusals by code', async (t) => {
    const app = build(t, (app) => {
      app.metrics()
      app.use('/x', rate_limit({ max_requests: 1, window_seconds: 60, namespace: 'api' }))
      app.get('/x', (_req, res) => void res.error(401, 'missing_api_key', 'API key required'))
    })
    await app.inject('/x')
    await app.inject('/x')
    const body = (await app.inject({ url: '/metrics' })).body
    t.equal(series(body, 'fw_rate_limit_refusals_total{namespace="api"}'), 1)
    t.equal(series(body, 'fw_auth_refusals_total{code="missing_api_key"}'), 1)
  })

  t.test('counts the refusals auth.any_of answers, not those of the authenticators it tried on the way', async (t) => {
    const KEY = 'k-0123456789abcdef'
    const app = build(t, (app) => {
      app.metrics()
      app.use('/p', adapt_ctx(any_of(api_key({ allowed_keys: [KEY] }), jwt({ secret: SECRET }))))
      app.get('/p', (_req, res) => void res.json('ok', true))
    })
    const sign = createSigner({ key: SECRET, algorithm: 'HS256' })
    const statuses = [
      (await app.inject({ url: '/p', headers: { authorization: `Bearer ${sign({ sub: 'ada' })}` } })).statusCode,
      (await app.inject({ url: '/p' })).statusCode,
      (await app.inject({ url: '/p', headers: { 'x-api-key': 'wrong' } })).statusCode,
    ]
    t.same(statuses, [200, 401, 403], 'a JWT is let in; no credential and a bad key are refused')
    const lines = (await app.inject({ url: '/metrics' })).body
      .split('\n')
      .filter((l) => l.startsWith('fw_auth_refusals_total{'))
    t.same(
      lines.sort(),
      ['fw_auth_refusals_total{code="invalid_api_key"} 1', 'fw_auth_refusals_total{code="missing_api_key"} 1'],
      'one refusal per 401 or 403 answered, by the code answered',
    )
  })

  t.test('takes a request its client left before the answer out of the in-flight count, once', async (t) => {
    const arrived = gate()
    const release = gate()
    const { app, port } = await listening(t, (app) => {
      app.metrics()
      app.get('/slow', async (_req, res) => {
        arrived.open()
        await release.promise
        res.json('ok', true)
      })
    })
    t.teardown(release.open)
    const client = request({ host: '127.0.0.1', port, path: '/slow' }).on('error', () => {})
    client.end()
    await arrived.promise
    const in_flight = async () => series((await app.inject('/metrics')).body, 'fw_http_requests_in_flight')
    t.equal(await in_flight(), 2, 'the slow request and the scrape')
    t.equal(await in_flight(), 2, 'a scrape leaves the count as it found it')
    client.destroy()
    // The server sees the socket close a few turns of the event loop later.
    let seen = 2
    for (let i = 0; i < 500 && seen === 2; i++) {
      await new Promise(setImmediate)
      seen = (await in_flight())!
    }
    t.equal(seen, 1, 'only the scrape itself')
    t.equal(await in_flight(), 1, 'and no lower')
  })

  t.test('counts an answer that was ended, once, when its client leaves before reading it all', async (t) => {
    // Far more than the socket buffers hold, so the server is still writing when the client goes.
    const big = Buffer.alloc(32 * 1024 * 1024, 0x61)
    const { app, port } = await listening(t, (app) => {
      app.metrics()
      app.get('/big', (_req, res) => void res.header('content-type', 'application/octet-stream').send(big))
    })
    const status = await new Promise<number>((resolve, reject) => {
      const client = request({ host: '127.0.0.1', port, path: '/big' }, (r) => {
        resolve(r.statusCode!)
        client.destroy()
      })
      client.on('error', () => {}).on('close', () => reject(new Error('closed before the response')))
      client.end()
    })
    t.equal(status, 200)
    const body = async () => (await app.inject('/metrics')).body
    let text = await body()
    for (let i = 0; i < 500 && series(text, 'fw_http_requests_in_flight') !== 1; i++) {
      await new Promise(setImmediate)
      text = await body()
    }
    t.equal(series(text, 'fw_http_requests_in_flight'), 1, 'only the scrape is in flight')
    t.equal(series(text, 'fw_http_requests_total{method="GET",route="/big",status="200"}'), 1, 'answered once')
    t.equal(series(text, 'fw_http_request_duration_seconds_count{method="GET",route="/big",status="200"}'), 1)
  })

  t.test('counts a request answered before any route, a malformed URL, as (unmatched)', async (t) => {
    const app = build(t, (app) => {
      app.metrics()
      app.get('/x/{id}', (_req, res) => void res.json('ok', true))
    })
    const r = await app.inject('/x/%zz')
    t.equal(r.statusCode, 400)
    const body = (await app.inject('/metrics')).body
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="(unmatched)",status="400"}'), 1)
    t.equal(series(body, 'fw_http_requests_in_flight'), 1, 'only the scrape')
  })

  t.test('counts the 503 of a request received while the App closes once, as (unmatched)', async (t) => {
    let metrics!: Metrics
    const { refused } = await sent_while_closing(
      t,
      (app) => {
        metrics = app.metrics()
        app.get('/users/{id}', (_req, res) => void res.json('ok', true))
      },
      '/users/1',
    )
    t.equal(refused.status, 503)
    const text = await metrics.text()
    t.equal(series(text, 'fw_http_requests_total{method="GET",route="(unmatched)",status="503"}'), 1)
    t.equal(series(text, 'fw_http_requests_total{method="GET",route="/slow",status="200"}'), 1)
    t.equal(series(text, 'fw_http_requests_in_flight'), 0)
  })

  t.test('labels a refusal and a shed request with the route they were sent to', async (t) => {
    const { monitor, overload } = heap_monitor()
    const app = build(
      t,
      (app) => {
        app.metrics()
        app.shed_load({}, monitor)
        app.post('/upload', (_req, res) => void res.json('ok', true))
        app.get('/users/{id}', (_req, res) => void res.json('ok', true))
      },
      { body_limit: 8 },
    )
    const refused = await app.inject({ method: 'POST', url: '/upload', payload: 'x'.repeat(9) })
    t.equal(refused.statusCode, 413)
    overload()
    t.equal((await app.inject('/users/7')).statusCode, 503)
    monitor.sample({ event_loop_delay_ms: 0, heap_used_bytes: 0, rss_bytes: 0 })
    const body = (await app.inject('/metrics')).body
    t.equal(series(body, 'fw_http_requests_total{method="POST",route="/upload",status="413"}'), 1)
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="/users/{id}",status="503"}'), 1)
  })

  t.test('counts the requests of sockets as those of inject, and no WebSocket upgrade', async (t) => {
    const { port } = await listening(t, (app) => {
      app.metrics()
      app.get('/users/{id}', (_req, res) => void res.json('ok', true))
      app.ws('/ws', (conn) => void conn.on_message((m) => conn.send(m)))
    })
    for (const id of [1, 2, 3]) t.equal((await fetch(`http://127.0.0.1:${port}/users/${id}`)).status, 200)
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`)
    const echoed = await new Promise<string>((resolve, reject) => {
      socket.on('open', () => socket.send('hi'))
      socket.on('message', (data) => resolve(String(data)))
      socket.on('error', reject)
    })
    t.equal(echoed, 'hi')
    const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="/users/{id}",status="200"}'), 3)
    t.equal(series(body, 'fw_http_requests_in_flight'), 1, 'the scrape, not the open WebSocket')
    t.notMatch(body, /route="\/ws"/, 'the upgrade is no HTTP request of the counter')
    socket.close()
  })

  t.test('counts the requests inject sends while the app drains, as those of sockets then', async (t) => {
    const app = build(
      t,
      (app) => {
        app.get('/users/{id}', (_req, res) => void res.json('ok', true))
      },
      { drain_ms: 300 },
    )
    const metrics = app.metrics()
    await app.listen(0)
    const closing = app.close()
    t.equal((await app.inject('/users/1')).statusCode, 200, 'served while draining')
    await closing
    t.equal(series(await metrics.text(), 'fw_http_requests_total{method="GET",route="/users/{id}",status="200"}'), 1)
  })

  t.test("counts beside a request listener of the user's own, which still hears every request", async (t) => {
    const heard: string[] = []
    const app = build(t, (app) => {
      app.fastify.server.on('request', (req: { url?: string }) => void heard.push(req.url ?? ''))
      app.metrics()
      app.get('/users/{id}', (_req, res) => void res.json('ok', true))
    })
    t.equal((await app.inject('/users/1')).statusCode, 200)
    const body = (await app.inject('/metrics')).body
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="/users/{id}",status="200"}'), 1)
    t.same(heard, ['/users/1', '/metrics'])
  })

  t.test('counts the requests of an HTTP/2 app', async (t) => {
    const send = await h2_metrics_app(t)
    await send('GET', '/users/1')
    await send('GET', '/users/2')
    const body = await send('GET', '/metrics')
    t.equal(series(body, 'fw_http_requests_total{method="GET",route="/users/{id}",status="200"}'), 2)
    t.equal(series(body, 'fw_http_requests_in_flight'), 1)
  })

  t.test('counts a method Node does not know, which an HTTP/2 client may send, as one _OTHER series', async (t) => {
    const send = await h2_metrics_app(t)
    for (let i = 0; i < 20; i++) await send(`X${i}`, `/users/${i}`)
    const body = await send('GET', '/metrics')
    const lines = body.split('\n').filter((l) => l.startsWith('fw_http_requests_total{'))
    t.same(
      lines,
      ['fw_http_requests_total{method="_OTHER",route="(unmatched)",status="501"} 20'],
      'a flood of random methods is one series',
    )
  })

  t.test('serves the metrics behind their own middleware', async (t) => {
    const app = build(t, (app) =>
      app.metrics({
        middleware: [
          (req, res, next) => (req.header('x-key') === 'k' ? next() : void res.error(403, 'forbidden', 'no')),
        ],
      }),
    )
    t.equal((await app.inject('/metrics')).statusCode, 403)
    t.equal((await app.inject({ url: '/metrics', headers: { 'x-key': 'k' } })).statusCode, 200)
  })

  t.test('takes context middleware as it comes (the documented ip_filter), and adapted middleware alike', async (t) => {
    for (const mw of [ip_filter({ allow: ['10.0.0.0/8'] }), adapt_ctx(ip_filter({ allow: ['10.0.0.0/8'] }))]) {
      const app = build(t, (app) => app.metrics({ middleware: [mw] }))
      const inside = await app.inject({ url: '/metrics', remoteAddress: '10.1.2.3' })
      t.equal(inside.statusCode, 200)
      t.match(inside.body, /fw_http_requests_total/)
      const outside = await app.inject({ url: '/metrics', remoteAddress: '192.0.2.1' })
      t.equal(outside.statusCode, 403)
      t.equal(outside.json().error, 'ip_not_allowed')
    }
  })

  t.test('refuses at startup a middleware of neither shape, with FW_ERR_APP_BAD_MIDDLEWARE', async (t) => {
    const app = build(t)
    const one = (_x: unknown) => undefined
    t.throws(() => app.metrics({ middleware: [one as never] }), {
      code: 'FW_ERR_APP_BAD_MIDDLEWARE',
      message:
        'metrics middleware[0] must be App middleware (req, res, next) or context middleware (ctx, next); got a function of 1 parameter',
    })
    t.throws(() => app.metrics({ middleware: ['x' as never] }), {
      code: 'FW_ERR_APP_BAD_MIDDLEWARE',
      message:
        'metrics middleware[0] must be App middleware (req, res, next) or context middleware (ctx, next); got "x"',
    })
  })
})

t.test('App.health', async (t) => {
  t.test('answers liveness, and readiness with each check', async (t) => {
    const app = build(t, (app) => app.health({ checks: { db: () => true, cache: async () => 'fine' } }))
    const live = await app.inject('/health')
    t.equal(live.statusCode, 200)
    t.same(live.json(), { ok: true, status: 'live' })
    const ready = await app.inject('/ready')
    t.equal(ready.statusCode, 200)
    t.same(ready.json(), { ok: true, status: 'ready', checks: { db: 'ok', cache: 'ok' } })
  })

  t.test('answers 503 not_ready when a check fails or hangs past its timeout', async (t) => {
    const app = build(t, (app) =>
      app.health({
        timeout_ms: 50,
        checks: {
          hangs: () => new Promise(() => {}),
          fails: () => {
            throw new Error('db down')
          },
          fine: () => 1,
        },
      }),
    )
    const started = Date.now()
    const r = await app.inject('/ready')
    t.ok(Date.now() - started < 2000, 'the hanging check is bounded by its timeout')
    t.equal(r.statusCode, 503)
    t.equal(r.headers['cache-control'], 'no-store')
    t.same(r.json(), {
      ok: false,
      error: 'not_ready',
      status: 'failing',
      checks: { hangs: 'timeout', fails: 'failing', fine: 'ok' },
    })
  })

  t.test('turns readiness to 503 draining while close() waits for in-flight requests', async (t) => {
    const hold = gate()
    const app = build(t, (app) => {
      app.health()
      app.get('/slow', async (_req, res) => {
        await hold.promise
        res.text('done')
      })
    })
    await app.ready()
    const slow = app.inject('/slow')
    await new Promise((r) => setImmediate(r))
    const closing = app.close()
    t.equal((await app.fastify.inject('/ready')).statusCode, 503)
    hold.open()
    t.equal((await slow).body, 'done')
    await closing
  })
  t.test('answers 503 draining to a probe whose checks were still running when close() started', async (t) => {
    const hold = gate()
    let checking!: () => void
    const started = new Promise<void>((resolve) => (checking = resolve))
    const app = build(t, (app) =>
      app.health({
        checks: {
          slow: async () => {
            checking()
            await hold.promise
          },
        },
      }),
    )
    const probe = app.inject('/ready')
    await started
    const closing = app.close()
    hold.open()
    const r = await probe
    t.equal(r.statusCode, 503, 'the load balancer must not read ready from a process that is closing')
    t.same(r.json(), { ok: false, error: 'not_ready', status: 'draining' })
    await closing
  })

  t.test('rejects a bad timeout', async (t) => {
    const app = build(t)
    t.throws(() => app.health({ timeout_ms: 0 }), { code: 'FW_ERR_OBSERVABILITY_BAD_OPTION' })
  })
})

t.test('App.shed_load', async (t) => {
  t.test('answers 503 overloaded with Retry-After past a threshold, health probes excepted', async (t) => {
    const { monitor, overload } = heap_monitor({ retry_after_s: 7 })
    const app = build(t, (app) => {
      app.health()
      app.shed_load({}, monitor)
      app.get('/x', (_req, res) => void res.text('x'))
    })
    t.equal((await app.inject('/x')).statusCode, 200)
    overload()
    const r = await app.inject('/x')
    t.equal(r.statusCode, 503)
    t.equal(r.headers['retry-after'], '7')
    t.same(r.json(), { ok: false, error: 'overloaded', message: 'Server overloaded, retry later' })
    t.equal((await app.inject('/health')).statusCode, 200)
  })

  t.test('never sheds the health probes, whatever form of their path the router matched', async (t) => {
    const { monitor, overload } = heap_monitor()
    const app = build(t, (app) => {
      app.health()
      app.shed_load({}, monitor)
      app.get('/x', (_req, res) => void res.text('x'))
    })
    overload()
    const urls = ['/health', '/health/', '//health', '/ready/', '/ready?probe=1', '/x/']
    t.same(
      await Promise.all(urls.map(async (url) => (await app.inject(url)).statusCode)),
      [200, 200, 200, 200, 200, 503],
    )
  })

  t.test('never sheds the health probes, whichever of health() and shed_load() came first', async (t) => {
    const { monitor, overload } = heap_monitor()
    const app = build(t, (app) => {
      app.shed_load({}, monitor)
      app.health({ path: '/live', ready_path: '/ready' })
      app.get('/x', (_req, res) => void res.text('x'))
    })
    overload()
    t.same(
      await Promise.all(['/x', '/live', '/ready'].map(async (url) => (await app.inject(url)).statusCode)),
      [503, 200, 200],
    )
  })
})

t.test('App.shed_load never sheds the metrics route, so Prometheus still sees an overloaded process', async (t) => {
  t.test('at the default path, whichever of metrics() and shed_load() came first', async (t) => {
    for (const metrics_first of [true, false]) {
      const { monitor, overload } = heap_monitor({ retry_after_s: 7 })
      const app = build(t, (app) => {
        if (metrics_first) app.metrics()
        app.shed_load({}, monitor)
        if (!metrics_first) app.metrics()
        app.get('/x', (_req, res) => void res.text('x'))
      })
      overload()
      const shed = await app.inject('/x')
      t.same([shed.statusCode, shed.headers['retry-after'], shed.json().error], [503, '7', 'overloaded'])
      const r = await app.inject('/metrics')
      t.equal(r.statusCode, 200, `metrics ${metrics_first ? 'before' : 'after'} shed_load(): scraped`)
      t.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
      t.equal(
        series(r.body, 'fw_http_requests_total{method="GET",route="/x",status="503"}'),
        1,
        'the scrape shows the shed request',
      )
      t.equal((await app.inject('/metrics/')).statusCode, 200, 'with a trailing slash too')
      t.equal((await app.inject('/x')).statusCode, 503, 'other routes still shed')
    }
  })

  t.test('at the path the app configured, in whatever form, and its middleware still runs', async (t) => {
    for (const path of ['/internal/prom', '/internal/prom/']) {
      const { monitor, overload } = heap_monitor()
      const app = build(t, (app) => {
        app.shed_load({}, monitor)
        app.metrics({ path, middleware: [adapt_ctx(ip_filter({ allow: ['10.0.0.0/8'] }))] })
        app.get('/metrics', (_req, res) => void res.text('not the metrics route'))
      })
      overload()
      const scrape = (remoteAddress: string) => app.inject({ url: '/internal/prom', remoteAddress })
      t.equal((await scrape('10.1.2.3')).statusCode, 200, `${path}: scraped while shedding`)
      t.equal((await scrape('192.0.2.1')).statusCode, 403, `${path}: its ip filter still refuses`)
      t.equal((await app.inject('/metrics')).statusCode, 503, `${path}: the default path is no exemption of its own`)
    }
  })

  t.test('health paths configured with a trailing slash are never shed either', async (t) => {
    const { monitor, overload } = heap_monitor()
    const app = build(t, (app) => {
      app.shed_load({}, monitor)
      app.health({ path: '/live/', ready_path: '/ready/' })
    })
    overload()
    t.same(
      await Promise.all(
        ['/live', '/live/', '/ready', '/ready/'].map(async (url) => (await app.inject(url)).statusCode),
      ),
      [200, 200, 200, 200],
    )
  })
})

/** An HTTP/2 app with metrics and a `/users/{id}` route, and a function sending a request on one session to it. */
async function h2_metrics_app(t: Test): Promise<(method: string, path: string) => Promise<string>> {
  const { port } = await listening(
    t,
    (app) => {
      app.metrics()
      app.get('/users/{id}', (_req, res) => void res.json('ok', true))
    },
    { http2: true },
  )
  const session = connect(`http://127.0.0.1:${port}`)
  t.teardown(() => session.close())
  return async (method, path) => (await h2_request(session, { ':method': method, ':path': path })).body
}
