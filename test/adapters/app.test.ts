import { spawn } from 'node:child_process'
import http from 'node:http'
import { once } from 'node:events'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { App } from '../../index.js'
import { build, gate, listening, type Teardown } from '../helpers/build.js'
import { start_child_server, type ChildServer } from '../helpers/child-server.js'
import { sent_while_closing } from '../helpers/closing.js'
import { send } from '../helpers/http.js'
import { plain_node } from '../helpers/plain-node.js'
import { capture_log } from '../helpers/log.js'

const RUN_APP = fileURLToPath(new URL('../helpers/run-app.ts', import.meta.url))

/** Resolves once `server` has printed `text`. */
async function until_output(server: ChildServer, text: string): Promise<void> {
  while (!server.output().includes(text)) await new Promise((resolve) => setTimeout(resolve, 10))
}

/** Resolves once nothing listens on `port` any more. */
async function until_refused(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => resolve(false)).once('error', () => resolve(true))
    })
    if (refused) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Restores the FW_* variables a test changes. */
function with_env(t: Teardown, vars: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  Object.assign(process.env, vars)
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })
}

t.test('App.listen', async (t) => {
  t.test('gives the bound port to the callback and resolves with it', async (t) => {
    const app = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')))
    t.equal(app.port(), 0)
    let from_cb = -1
    const port = await app.listen(0, (p) => (from_cb = p))
    t.ok(port > 0)
    t.equal(from_cb, port)
    t.equal(app.port(), port)
    t.equal((await send(port, { path: '/x' })).body, 'x')
  })

  t.test('refuses a second listen() once listening with FW_ERR_APP_ALREADY_LISTENING, serving on', async (t) => {
    // Fastify's own FST_ERR_REOPENED_SERVER came through before.
    const { app, port } = await listening(t, (app) => app.get('/x', (_req, res) => void res.text('x')))
    let called = false
    await t.rejects(
      app.listen(0, () => (called = true)),
      { code: 'FW_ERR_APP_ALREADY_LISTENING', message: 'cannot listen: the app is already listening or starting to' },
    )
    t.equal(called, false, 'the callback is not called')
    t.equal(app.port(), port)
    t.equal((await send(port, { path: '/x' })).body, 'x')
  })

  t.test('refuses a listen() made while another is starting: one server listens, once', async (t) => {
    const app = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { host: '127.0.0.1' })
    let listened = 0
    let on_listen = 0
    app.fastify.server.on('listening', () => listened++)
    app.fastify.addHook('onListen', async () => void on_listen++)
    const [first, second] = await Promise.allSettled([app.listen(0), app.listen(0)])
    t.equal(first.status, 'fulfilled')
    t.match(second, {
      status: 'rejected',
      reason: {
        code: 'FW_ERR_APP_ALREADY_LISTENING',
        message: 'cannot listen: the app is already listening or starting to',
      },
    })
    t.equal(listened, 1, "the server's listening event fires once")
    t.equal(on_listen, 1, "Fastify's onListen hooks run once")
    const port = (first as PromiseFulfilledResult<number>).value
    t.equal(app.port(), port)
    t.equal((await send(port, { path: '/x' })).body, 'x')
  })

  t.test('lets a listen() that failed be tried again', async (t) => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    t.teardown(() => taken.close())
    const busy = (taken.address() as net.AddressInfo).port
    const app = build(t, (app) => app.get('/x', (_req, res) => void res.text('x')), { host: '127.0.0.1' })
    await t.rejects(app.listen(busy), { code: 'EADDRINUSE' })
    const port = await app.listen(0)
    t.not(port, busy)
    t.equal((await send(port, { path: '/x' })).body, 'x')
  })

  t.test('refuses a port that is not an integer from 0 to 65535 with FW_ERR_CONFIG_BAD_VALUE', async (t) => {
    // Node's ERR_SOCKET_BAD_PORT came through before.
    for (const [port, shown] of [
      [-1, '-1'],
      [65536, '65536'],
      [70000, '70000'],
      [1.5, '1.5'],
      // Quoted as errors.md says values are, not through JSON (which wrote NaN and Infinity as null).
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      ['8080' as unknown as number, '"8080"'],
    ] as const) {
      const app = build(t, () => {}, { host: '127.0.0.1' })
      await t.rejects(
        app.listen(port),
        { code: 'FW_ERR_CONFIG_BAD_VALUE', message: `port must be an integer from 0 to 65535; got ${shown}` },
        String(port),
      )
      t.equal(app.port(), 0)
      // The refusal leaves the app free to listen on a good port.
      t.ok((await app.listen(0)) > 0)
    }
  })
})

t.test('App.on_close', async (t) => {
  t.test('refuses a hook once the close has run its hooks, with FW_ERR_APP_CLOSED', async (t) => {
    // Such a hook was kept and never called.
    const app = new App({ access_log: false })
    await app.close()
    let ran = false
    t.throws(() => app.on_close(() => (ran = true)), {
      code: 'FW_ERR_APP_CLOSED',
      message: 'cannot add an on_close hook: the app is closing or closed',
    })
    await app.close()
    t.equal(ran, false)
  })

  t.test('refuses a hook added by a hook while the hooks run, which logs it as a failed hook', async (t) => {
    const out = capture_log(t)
    const app = new App({ access_log: false })
    let ran = false
    app.on_close(() => app.on_close(() => (ran = true)))
    await app.close()
    t.equal(ran, false)
    t.match(out.text(), /close hook failed .*cannot add an on_close hook: the app is closing or closed/)
  })

  t.test('runs a hook added while the close drains, before the hooks run', async (t) => {
    const { app } = await listening(t, () => {}, { drain_ms: 50 })
    let ran = false
    const closing = app.close()
    app.on_close(() => (ran = true))
    await closing
    t.equal(ran, true)
  })
})

t.test('App.close', async (t) => {
  t.test(
    'lets an in-flight request finish, refuses new connections, runs on_close hooks and resolves wait',
    async (t) => {
      const arrived = gate()
      const release = gate()
      const log: string[] = []
      const { app, port } = await listening(t, (app) => {
        app.get('/slow', async (_req, res) => {
          arrived.open()
          await release.promise
          res.json('ok', true)
        })
        app.on_close(() => void log.push('first registered'))
        app.on_close(async () => void log.push('last registered'))
      })
      let waited = false
      void app.wait().then(() => (waited = true))
      const slow = send(port, { path: '/slow' })
      await arrived.promise
      const closing = app.close()
      t.equal(app.close(), closing)
      await t.rejects(send(port, { path: '/slow' }), { code: 'ECONNREFUSED' })
      t.same([log, waited], [[], false])
      release.open()
      const r = await slow
      t.same([r.status, JSON.parse(r.body)], [200, { ok: true }])
      await closing
      await app.wait()
      t.same([log, waited], [['last registered', 'first registered'], true])
    },
  )

  t.test('cuts a request that never ends after close_timeout_ms', async (t) => {
    const arrived = gate()
    const { app, port } = await listening(
      t,
      (app) => {
        app.get('/never', async () => {
          arrived.open()
          await new Promise(() => {})
        })
      },
      { close_timeout_ms: 100 },
    )
    const never = send(port, { path: '/never' })
    await arrived.promise
    const started = performance.now()
    await app.close()
    const took = performance.now() - started
    t.ok(took >= 90 && took < 2000, `closed after ${Math.round(took)} ms`)
    await t.rejects(never, { code: 'ECONNRESET' })
  })

  t.test('ends a keep-alive connection once its in-flight answer is sent, not at close_timeout_ms', async (t) => {
    const arrived = gate()
    const release = gate()
    const { app, port } = await listening(
      t,
      (app) => {
        app.get('/fast', (_req, res) => void res.text('fast'))
        app.get('/slow', async (_req, res) => {
          arrived.open()
          await release.promise
          res.text('slow')
        })
      },
      { close_timeout_ms: 5000 },
    )
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    t.teardown(() => agent.destroy())
    const get = (path: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path, agent }, (r) => {
            let body = ''
            r.setEncoding('utf8').on('data', (c: string) => (body += c))
            r.on('end', () => resolve({ status: r.statusCode ?? 0, connection: r.headers.connection, body }))
          })
          .on('error', reject)
      })
    t.same(await get('/fast'), { status: 200, connection: 'keep-alive', body: 'fast' })
    // The same connection, kept alive, carries the request in flight when close() begins.
    const slow = get('/slow')
    await arrived.promise
    const started = performance.now()
    const closed = app.close()
    await new Promise((resolve) => setTimeout(resolve, 50))
    release.open()
    t.same(await slow, { status: 200, connection: 'keep-alive', body: 'slow' })
    await closed
    const took = performance.now() - started
    t.ok(took < 2000, `closed ${Math.round(took)} ms after close() began, of close_timeout_ms 5000`)
  })

  t.test('resolves, runs on_close hooks and logs when a Fastify close hook fails', async (t) => {
    const out = capture_log(t)
    const ran: string[] = []
    const { app, port } = await listening(t, (app) => {
      app.get('/x', (_req, res) => void res.text('x'))
      app.on_close(() => void ran.push('on_close'))
      app.fastify.addHook('preClose', async () => {
        throw new Error('plugin cleanup failed')
      })
    })
    t.equal((await send(port, { path: '/x' })).body, 'x')
    await app.close()
    t.same(ran, ['on_close'])
    t.match(out.text(), /\[fw\] \[error\] closing the server failed err=.*plugin cleanup failed/)
  })

  t.test('with drain_ms, answers /ready 503 draining and serves requests for that long, then closes', async (t) => {
    const { app, port } = await listening(
      t,
      (app) => {
        app.health()
        app.get('/x', (_req, res) => void res.text('x'))
      },
      { drain_ms: 300 },
    )
    t.equal((await send(port, { path: '/ready' })).status, 200)
    const started = performance.now()
    const closing = app.close()
    const ready = await send(port, { path: '/ready' })
    t.same(
      [ready.status, JSON.parse(ready.body)],
      [503, { ok: false, error: 'not_ready', status: 'draining' }],
      'readiness says draining',
    )
    const served = await send(port, { path: '/x' })
    t.same([served.status, served.body], [200, 'x'], 'a request is still served')
    await closing
    t.ok(performance.now() - started >= 290, 'the listener stayed open for drain_ms')
    await t.rejects(send(port, { path: '/x' }), { code: 'ECONNREFUSED' }, 'then new connections are refused')
  })

  t.test(
    "answers a request received on a busy connection after it began with 503 not_ready in fw's shape",
    async (t) => {
      const { slow, refused } = await sent_while_closing(
        t,
        (app) => app.get('/users/{id}', (_req, res) => void res.json('ok', true)),
        '/users/1',
        { headers: 'X-Request-Id: closing-1\r\n' },
      )
      t.same([slow.status, JSON.parse(slow.body)], [200, { ok: true }], 'the busy request is answered first')
      t.same(
        [refused.status, JSON.parse(refused.body)],
        [503, { ok: false, error: 'not_ready', message: 'Server is closing, retry later' }],
      )
      t.match(refused.headers, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(refused.body)),
        connection: 'close',
        'x-request-id': 'closing-1',
      })
    },
  )

  t.test('runs every on_close hook and resolves when one throws or rejects, logging each failure', async (t) => {
    const out = capture_log(t)
    const ran: string[] = []
    const app = new App({ access_log: false })
    app.on_close(() => void ran.push('first registered'))
    app.on_close(async () => {
      throw new Error('redis quit failed')
    })
    app.on_close(() => {
      throw new Error('timer clear failed')
    })
    app.on_close(() => void ran.push('last registered'))
    await app.listen(0)
    await app.close()
    await app.wait()
    t.same(ran, ['last registered', 'first registered'], 'the hooks after the failing ones ran, last registered first')
    t.match(out.text(), /\[fw\] \[error\] close hook failed err=.*timer clear failed/)
    t.match(out.text(), /\[fw\] \[error\] close hook failed err=.*redis quit failed/)
  })

  t.test(
    'resolves when an on_close hook hangs: each is waited for at most close_timeout_ms, then logged',
    async (t) => {
      const out = capture_log(t)
      const ran: string[] = []
      const app = new App({ access_log: false, close_timeout_ms: 100 })
      app.on_close(() => void ran.push('first registered'))
      app.on_close(() => new Promise(() => {}))
      await app.listen(0)
      const started = performance.now()
      const result = await Promise.race([
        app.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(resolve, 2000, 'hung')),
      ])
      t.equal(result, 'closed')
      t.ok(performance.now() - started < 1500, 'close did not wait past the hook timeout')
      t.same(ran, ['first registered'], 'the hooks after the hanging one ran')
      t.match(out.text(), /\[fw\] \[error\] close hook failed err=.*on_close hook did not finish within 100 ms/)
    },
  )

  t.test('wins over a listen() still starting: nothing listens after it, and listen says why', async (t) => {
    const app = new App({ access_log: false, host: '127.0.0.1' })
    app.get('/x', (_req, res) => void res.text('x'))
    const listen = app.listen(0)
    await app.close()
    await t.rejects(listen, {
      code: 'FW_ERR_APP_CLOSED',
      message: 'cannot listen: the app is closing or closed',
    })
    t.equal(app.fastify.server.listening, false)
    await t.rejects(app.listen(0), { code: 'FW_ERR_APP_CLOSED' }, 'and after it')
    t.equal(app.fastify.server.listening, false)
  })

  t.test('refuses a listen() after it with FW_ERR_APP_CLOSED, its Fastify instance made or not', async (t) => {
    // metrics(), shed_load(), tracing() and app.fastify make the instance before the app starts.
    for (const made of [false, true]) {
      const app = new App({ access_log: false, host: '127.0.0.1' })
      app.get('/x', (_req, res) => void res.text('x'))
      if (made) t.equal(app.fastify.server.listening, false)
      await app.close()
      await t.rejects(
        app.listen(0),
        { code: 'FW_ERR_APP_CLOSED', message: 'cannot listen: the app is closing or closed' },
        `instance made before close: ${made}`,
      )
      t.equal(app.port(), 0)
    }
  })

  t.test('refuses an inject() after a close that came before the app was ready, as listen()', async (t) => {
    // Without the refusal the app readied a new server after its close and served (200), or avvio threw.
    for (const made of [false, true]) {
      const app = new App({ access_log: false })
      app.get('/x', (_req, res) => void res.text('x'))
      if (made) t.equal(app.fastify.server.listening, false)
      await app.close()
      await t.rejects(
        app.inject('/x'),
        { code: 'FW_ERR_APP_CLOSED', message: 'cannot inject: the app is closing or closed' },
        `instance made before close: ${made}`,
      )
    }
  })

  t.test('closes an app that never listened', async (t) => {
    const app = new App()
    let ran = false
    app.on_close(() => (ran = true))
    await app.close()
    await app.wait()
    t.equal(ran, true)
  })
})

t.test('App.run', async (t) => {
  t.test('stops gracefully on SIGTERM, answering the in-flight request, and exits 0', async (t) => {
    const child = spawn(...plain_node(['--import', 'tsx', RUN_APP]), {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, FW_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    t.teardown(() => void child.kill('SIGKILL'))
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const until = (text: string | RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => void ((typeof text === 'string' ? out.includes(text) : text.test(out)) && resolve())
        child.stdout.on('data', check)
        check()
        child.once('exit', () => reject(new Error(`exited before printing ${JSON.stringify(text)}: ${err}`)))
      })
    // The listening line may arrive split over chunks: wait for its end.
    await until(/listening on http:\/\/127\.0\.0\.1:\d+\n/)
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1])
    t.ok(port > 0, `listening line: ${out.trim()}`)
    const slow = send(port, { path: '/slow' })
    await until('in flight')
    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    const r = await slow
    t.same([r.status, JSON.parse(r.body)], [200, { ok: true, answered: 'after SIGTERM' }])
    t.equal(code, 0, err)
    t.match(out, /in flight\non_close ran\nstopped\n$/)
  })

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    t.test(`a second ${signal} while closing exits at once with ${code}, saying why, its log written`, async (t) => {
      const server = await start_child_server(t, 'test/helpers/run-app-stuck.ts')
      void send(server.port, { path: '/stuck' }).catch(() => undefined)
      await until_output(server, 'in flight')
      server.child.kill(signal)
      // The first signal has begun the close once the listener is gone (signals sent together may arrive as one).
      await until_refused(server.port)
      server.child.kill(signal)
      const [exit_code, exit_signal] = await server.exited
      t.same([exit_code, exit_signal], [code, null])
      const out = server.output()
      t.match(out, /\[orders\] \[warning\] buffered before the signal/)
      t.match(
        out,
        `[fw] [error] second ${signal} while closing: exiting now, without waiting for in-flight requests or on_close hooks`,
      )
      t.notMatch(out, 'on_close ran')
    })
  }
})

t.test('App.run stopped by a signal while starting', async (t) => {
  t.test('resolves once closed, without ever listening', async (t) => {
    const app = new App({ access_log: false, host: '127.0.0.1' })
    const before = process.listenerCount('SIGTERM')
    const run = app.run(0)
    process.emit('SIGTERM')
    await run
    t.equal(app.fastify.server.listening, false)
    t.equal(process.listenerCount('SIGTERM'), before, 'its signal handlers are gone')
  })
})

t.test('App.run listening line', async (t) => {
  t.test("prints one listening line, fw's, with the URL", async (t) => {
    const out = capture_log(t)
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    let url = ''
    await app.run(0, (u) => {
      url = u
      void app.close()
    })
    t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/)
    t.same(
      out
        .lines()
        .filter((l) => /listening/i.test(l))
        .map((l) => l.slice(l.indexOf(' ') + 1)),
      [`[fw] [info] listening on ${url}`],
    )
  })
})

t.test('App configuration', async (t) => {
  t.test('takes FW_BODY_LIMIT from the environment over the option', async (t) => {
    with_env(t, { FW_BODY_LIMIT: '4' })
    const app = build(t, (app) => app.post('/x', (req, res) => void res.text(req.body())), { body_limit: 1000 })
    t.equal(app.config.body_limit, 4)
    const r = await app.inject({
      method: 'POST',
      url: '/x',
      payload: '12345',
      headers: { 'content-type': 'text/plain' },
    })
    t.equal(r.statusCode, 413)
  })

  t.test('takes FW_TRUST_PROXY from the environment over the option', async (t) => {
    with_env(t, { FW_TRUST_PROXY: '127.0.0.1' })
    const { port } = await listening(t, (app) => app.get('/ip', (req, res) => void res.text(req.ip())), {
      trust_proxy: false,
    })
    t.equal((await send(port, { path: '/ip', headers: { 'x-forwarded-for': '203.0.113.7' } })).body, '203.0.113.7')
  })

  t.test('takes FW_PORT from the environment for listen without a port', async (t) => {
    with_env(t, { FW_PORT: '0' })
    const app = build(t)
    t.equal(app.config.port, 0)
    t.ok((await app.listen()) > 0)
  })

  t.test('throws FW_ERR_CONFIG_BAD_VALUE at construction for bad environment values', async (t) => {
    const cases: Array<[string, string, string]> = [
      ['FW_PORT', 'eighty', 'FW_PORT must be an integer from 0 to 65535; got "eighty"'],
      ['FW_BODY_LIMIT', '-1', 'FW_BODY_LIMIT must be an integer >= 0; got "-1"'],
      [
        'FW_TRUST_PROXY',
        'my-proxy',
        'FW_TRUST_PROXY must be true, false, or IP addresses and CIDRs separated by commas; got "my-proxy"',
      ],
    ]
    for (const [name, value, message] of cases) {
      t.test(name, async (t) => {
        with_env(t, { [name]: value })
        t.throws(() => new App(), { code: 'FW_ERR_CONFIG_BAD_VALUE', message })
      })
    }
  })
})

t.test(
  'App.inject gives a handler the header values a socket gives it, without the whitespace around them',
  async (t) => {
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    app.get('/h', (req, res) => {
      res.json({ key: req.header('x-api-key'), auth: req.header('authorization'), blank: req.header('x-blank') })
    })
    const headers = { 'x-api-key': ' \tk-1 ', authorization: 'Bearer tok\t', 'x-blank': '  ' }
    const over_socket = await send(await app.listen(0), { path: '/h', headers })
    t.same(JSON.parse(over_socket.body), { key: 'k-1', auth: 'Bearer tok', blank: '' }, "Node's parser trims them")
    t.same((await app.inject({ url: '/h', headers })).json(), JSON.parse(over_socket.body), 'inject() does as well')
    t.same(headers, { 'x-api-key': ' \tk-1 ', authorization: 'Bearer tok\t', 'x-blank': '  ' }, 'options unchanged')
  },
)
