import t from 'tap'
import { Health, redis_ping } from '../../../lib/observability/index.js'
import { build } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'

t.test('redis_ping', async (t) => {
  t.test('passes when the client answers PONG', async (t) => {
    t.equal(await redis_ping({ ping: async () => 'PONG' })(), undefined)
  })

  t.test('fails on any other answer, quoting it', async (t) => {
    await t.rejects(redis_ping({ ping: async () => 'LOADING' })() as Promise<unknown>, {
      message: 'unexpected PING answer "LOADING"',
    })
  })

  t.test('fails when the ping fails', async (t) => {
    await t.rejects(redis_ping({ ping: async () => Promise.reject(new Error('ECONNREFUSED')) })() as Promise<unknown>, {
      message: 'ECONNREFUSED',
    })
  })
})

t.test('Health.draining', async (t) => {
  t.test('turns true with drain() and stays so', async (t) => {
    const health = new Health()
    t.equal(health.draining(), false)
    health.drain()
    health.drain()
    t.equal(health.draining(), true)
  })
})

t.test('Health options', async (t) => {
  t.test('refuses a bad timeout or check at creation, naming the option', async (t) => {
    t.throws(() => new Health({ timeout_ms: 0 }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'health: timeout_ms must be an integer from 1 to 2147483647; got 0',
    })
    t.throws(() => new Health({ timeout_ms: 1.5 }), {
      message: 'health: timeout_ms must be an integer from 1 to 2147483647; got 1.5',
    })
    t.throws(() => new Health({ checks: { db: 'select 1' as unknown as () => void } }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'health: checks.db must be a function; got "select 1"',
    })
  })
})

t.test('Health readiness results', async (t) => {
  t.test('a check failing with the message "ok" or "timeout" is failing, not passing or timed out', async (t) => {
    const health = new Health({
      checks: {
        thrown: () => {
          throw new Error('ok')
        },
        rejected: async () => Promise.reject(new Error('ok')),
        thrown_string: () => {
          throw 'ok'
        },
        says_timeout: async () => Promise.reject(new Error('timeout')),
        fine: () => 'ok',
      },
    })
    t.same(await health.results(), {
      thrown: 'failing',
      rejected: 'failing',
      thrown_string: 'failing',
      says_timeout: 'failing',
      fine: 'ok',
    })
    const app = build(t, (app) => app.health({ checks: { db: () => Promise.reject(new Error('ok')) } }))
    const r = await app.inject('/ready')
    t.equal(r.statusCode, 503, 'a failing check never reads as ready')
    t.same(r.json(), { ok: false, error: 'not_ready', status: 'failing', checks: { db: 'failing' } })
  })

  t.test('the body says which check failed and how, never its message; the log has the message at warn', async (t) => {
    const out = capture_log(t)
    const app = build(t, (app) =>
      app.health({
        timeout_ms: 30,
        checks: {
          db: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432')),
          cache: () => new Promise(() => {}),
          fine: () => 1,
        },
      }),
    )
    const r = await app.inject('/ready')
    t.equal(r.statusCode, 503)
    t.same(r.json(), {
      ok: false,
      error: 'not_ready',
      status: 'failing',
      checks: { db: 'failing', cache: 'timeout', fine: 'ok' },
    })
    t.notMatch(r.body, /10\.0\.0\.5|ECONNREFUSED/, 'no internal address in the public body')
    const lines = out.lines()
    const db = lines.find((l) => l.includes('check=db'))
    t.match(db, /\[warning\] readiness check failed .*check=db.*ECONNREFUSED 10\.0\.0\.5:5432/)
    const cache = lines.find((l) => l.includes('check=cache'))
    t.match(cache, /\[warning\] readiness check timed out .*check=cache.*timeout_ms=30/)
    t.notOk(
      lines.some((l) => l.includes('check=fine')),
      'a passing check logs nothing',
    )
  })
})

t.test('Health timeout bound', async (t) => {
  t.test('refuses a timeout longer than a Node timer can wait (it would fire after 1 ms)', async (t) => {
    t.throws(() => new Health({ timeout_ms: 2 ** 31 }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'health: timeout_ms must be an integer from 1 to 2147483647; got 2147483648',
    })
    t.throws(() => new Health({ timeout_ms: Infinity }), { code: 'FW_ERR_OBSERVABILITY_BAD_OPTION' })
    t.doesNotThrow(() => new Health({ timeout_ms: 2 ** 31 - 1 }))
  })
})

t.test('Health readiness log', async (t) => {
  /** An app whose `db` check fails while `down.error` is set, on a clock the test moves. */
  const probed = (t: Parameters<typeof build>[0]) => {
    const out = capture_log(t)
    const state = { now: 0, error: undefined as Error | undefined }
    const app = build(t, (app) =>
      app.health({
        checks: {
          db: async () => {
            if (state.error !== undefined) throw state.error
          },
          cache: () => 1,
        },
        now: () => state.now,
      }),
    )
    const lines = (re: RegExp) => out.lines().filter((l) => re.test(l))
    return { app, state, lines }
  }

  t.test('logs a failing check when it starts failing, then once a minute while it keeps failing', async (t) => {
    const { app, state, lines } = probed(t)
    t.equal((await app.inject('/ready')).statusCode, 200)
    state.error = new Error('connect ECONNREFUSED 10.0.0.5:5432')
    // A Kubernetes probe every 10 s for a minute.
    for (let s = 10; s < 70; s += 10) {
      state.now = s * 1000
      const r = await app.inject('/ready')
      t.equal(r.statusCode, 503)
      t.same(r.json(), { ok: false, error: 'not_ready', status: 'failing', checks: { db: 'failing', cache: 'ok' } })
    }
    t.equal(lines(/readiness check/).length, 1, 'one line for six failing probes')
    t.match(lines(/readiness check/)[0], /\[warning\] readiness check failed .*check=db.*ECONNREFUSED 10\.0\.0\.5:5432/)
    state.now = 70_000
    await app.inject('/ready')
    t.equal(lines(/readiness check failed/).length, 2, 'again a minute after the last line')
    state.now = 80_000
    await app.inject('/ready')
    t.equal(lines(/readiness check failed/).length, 2)
  })

  t.test('logs the recovery at info, and a new failure after it at warn', async (t) => {
    const { app, state, lines } = probed(t)
    state.error = new Error('db down')
    await app.inject('/ready')
    state.now = 25_000
    state.error = undefined
    t.equal((await app.inject('/ready')).statusCode, 200)
    t.equal((await app.inject('/ready')).statusCode, 200)
    const recovered = lines(/readiness check recovered/)
    t.equal(recovered.length, 1, 'once, when it passes again')
    t.match(recovered[0], /\[info\] readiness check recovered .*check=db.*failed_ms=25000/)
    t.notMatch(recovered[0], /db down/)
    state.now = 30_000
    state.error = new Error('db down again')
    await app.inject('/ready')
    t.match(lines(/readiness check failed/)[1], /\[warning\] .*check=db.*db down again/, 'within the minute')
    t.notOk(
      lines(/readiness check/).some((l) => l.includes('check=cache')),
      'a passing check logs nothing',
    )
  })

  t.test('logs a change from failing to timed out, and back', async (t) => {
    const out = capture_log(t)
    let hang = false
    const health = new Health({
      timeout_ms: 20,
      checks: {
        db: async () => {
          if (hang) return new Promise(() => {})
          throw new Error('db down')
        },
      },
      now: () => 0,
    })
    t.same(await health.results(), { db: 'failing' })
    hang = true
    t.same(await health.results(), { db: 'timeout' })
    t.same(await health.results(), { db: 'timeout' })
    hang = false
    t.same(await health.results(), { db: 'failing' })
    const lines = out.lines().filter((l) => l.includes('readiness check'))
    t.equal(lines.length, 3)
    t.match(lines, [/check failed .*db down/, /check timed out .*timeout_ms=20/, /check failed .*db down/])
  })
})
