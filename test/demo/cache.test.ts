import t, { type Test } from 'tap'
import { CACHE_DEMO_POLICY, setup_cache } from '../../demo/cache.js'
import { demos } from '../../demo/registry.js'
import { build_showcase } from '../../demo/showcase.js'
import { App } from '../../index.js'
import * as log from '../../lib/log/index.js'
import { build } from '../helpers/build.js'

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0)

/** The demo on an App with a fake clock, its log lines collected. */
function demo_app(t: Test) {
  const clock = { ms: T0 }
  const lines: string[] = []
  log.set_destination({ write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean)) })
  t.teardown(() => log.set_destination(1))
  const app = build(t, (app) => setup_cache(app, { now: () => clock.ms }))
  return { app, clock, lines }
}

const post = (app: App, url: string) => app.inject({ method: 'POST', url })
const status_of = (r: { headers: Record<string, unknown> }): unknown => r.headers['x-fw-cache-status']

t.test('cache demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos.cache?.name, 'cache')
  })

  t.test('answers a miss, then hits while fresh, then a new upstream call after the ttl', async (t) => {
    const { app, clock } = demo_app(t)
    const miss = await app.inject({ url: '/data' })
    t.same(
      [miss.statusCode, status_of(miss), miss.json()],
      [200, 'miss', { ok: true, n: 1, at: '2030-01-01T12:00:00.000Z' }],
    )
    clock.ms += CACHE_DEMO_POLICY.ttl_ms - 1
    const hit = await app.inject({ url: '/data' })
    t.same([status_of(hit), hit.headers.age, hit.json().n], ['hit', '4', 1])
    clock.ms += 1
    const again = await app.inject({ url: '/data' })
    t.same([status_of(again), again.json()], ['miss', { ok: true, n: 2, at: '2030-01-01T12:00:05.000Z' }])
  })

  t.test('serves the stale answer while the upstream fails, and fresh ones once it is back', async (t) => {
    const { app, clock } = demo_app(t)
    const first = await app.inject({ url: '/data' })
    t.same((await post(app, '/upstream/fail')).json(), { ok: true, upstream: 'failing' })
    clock.ms += 30_000
    const stale = await app.inject({ url: '/data' })
    t.same([stale.statusCode, status_of(stale), stale.headers.age, stale.body], [200, 'hit', '30', first.body])
    t.same((await post(app, '/upstream/ok')).json(), { ok: true, upstream: 'ok' })
    const fresh = await app.inject({ url: '/data' })
    t.same([status_of(fresh), fresh.json().n], ['miss', 2])
  })

  t.test(
    'answers 500 while the upstream fails once the entry is past stale_if_error_ms, or when bypassed',
    async (t) => {
      const { app, clock } = demo_app(t)
      await app.inject({ url: '/data' })
      await post(app, '/upstream/fail')
      const bypass = await app.inject({ url: '/data', headers: { 'x-fw-cache': 'bypass' } })
      t.same([bypass.statusCode, status_of(bypass), bypass.json().error], [500, 'bypass', 'internal_error'])
      clock.ms += CACHE_DEMO_POLICY.stale_if_error_ms
      const gone = await app.inject({ url: '/data' })
      t.same([gone.statusCode, status_of(gone), gone.json().error], [500, 'miss', 'internal_error'])
    },
  )

  t.test('logs one line per decision, with a warning for a stale answer', async (t) => {
    const { app, clock, lines } = demo_app(t)
    await app.inject({ url: '/data' })
    await app.inject({ url: '/data' })
    await post(app, '/upstream/fail')
    clock.ms += 10_000
    await app.inject({ url: '/data' })
    t.equal(lines.length, 3)
    t.match(
      lines[0],
      / \[cache\] \[info\] http_cache rid=\S+ decision=miss key="GET \/data\? \|h:host=localhost:80;" age_s=-$/,
    )
    t.match(
      lines[1],
      / \[cache\] \[info\] http_cache rid=\S+ decision=hit key="GET \/data\? \|h:host=localhost:80;" age_s=0$/,
    )
    t.match(
      lines[2],
      / \[cache\] \[warning\] http_cache rid=\S+ decision=stale key="GET \/data\? \|h:host=localhost:80;" age_s=10 error="upstream is failing"$/,
    )
  })

  t.test('lives under /cache in the showcase', async (t) => {
    const app = await build_showcase(new App({ access_log: false }))
    t.teardown(() => app.close())
    log.set_destination({ write: () => true })
    t.teardown(() => log.set_destination(1))
    const miss = await app.inject({ url: '/cache/data' })
    const hit = await app.inject({ url: '/cache/data' })
    t.same([status_of(miss), status_of(hit), hit.body], ['miss', 'hit', miss.body])
    t.equal((await app.inject({ method: 'POST', url: '/cache/upstream/fail' })).statusCode, 200)
  })
})
