import t from 'tap'
import { setup_log } from '../../demo/log.js'
import { demos } from '../../demo/registry.js'
import type { App } from '../../index.js'
import type * as log from '../../lib/log/index.js'
import { build, type Teardown } from '../helpers/build.js'
import { capture_log } from '../helpers/log.js'
import { parse_kv, type MemoryStream } from '../lib/log/capture.js'

/** The Content-Type `req.json()` parses. */
const JSON_TYPE = { 'content-type': 'application/json' }

/** The demo on an App, with fw's lines captured at `level` in KV until the test ends. */
function demo_app(t: Teardown, level: log.LogLevel = 'info'): { app: App; out: MemoryStream } {
  return { out: capture_log(t, 'kv', level), app: build(t, setup_log) }
}

t.test('log demo', async (t) => {
  t.test('is registered under its name', async (t) => {
    t.equal(demos.log?.name, 'log')
  })

  t.test('GET /orders/{id} logs under [orders] with rid, mod and fields, and answers the rid', async (t) => {
    const { app, out } = demo_app(t, 'debug')
    const r = await app.inject({ url: '/orders/42', headers: { 'x-request-id': 'ord-1' } })
    t.equal(r.statusCode, 200)
    t.same(JSON.parse(r.body), { ok: true, id: '42', rid: 'ord-1' })
    const lines = out.lines().map(parse_kv)
    t.same(
      lines.map((l) => [l.name, l.label, l.msg, l.pairs]),
      [
        [
          'orders',
          'debug',
          'looking up order 42',
          [
            ['rid', 'ord-1'],
            ['mod', 'orders'],
          ],
        ],
        [
          'orders',
          'info',
          'order served',
          [
            ['rid', 'ord-1'],
            ['mod', 'orders'],
            ['order', '42'],
            ['client', '127.0.0.1'],
          ],
        ],
      ],
    )
  })

  t.test('PUT /logging switches level and format; the next lines follow them', async (t) => {
    const { app, out } = demo_app(t)
    t.same(JSON.parse((await app.inject('/logging')).body), { ok: true, level: 'info', format: 'kv' })
    const r = await app.inject({
      url: '/logging',
      method: 'PUT',
      headers: JSON_TYPE,
      payload: '{"level":"WARNING","format":"json"}',
    })
    t.same(JSON.parse(r.body), { ok: true, level: 'warn', format: 'json' })
    out.clear()
    await app.inject('/orders/1')
    t.equal(out.text(), '', 'info lines are below warn')
    await app.inject({ url: '/logging', method: 'PUT', headers: JSON_TYPE, payload: '{"level":"debug"}' })
    out.clear()
    await app.inject({ url: '/orders/2', headers: { 'x-request-id': 'j' } })
    const recs = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>)
    t.match(recs, [
      { level: 'debug', msg: 'looking up order 2', rid: 'j' },
      { level: 'info', msg: 'order served', order: '2' },
    ])
  })

  t.test('PUT /logging without a level or format string is 400 invalid_body and changes nothing', async (t) => {
    const { app } = demo_app(t)
    for (const payload of ['', 'not json', '[]', '{"level":3}']) {
      const r = await app.inject({ url: '/logging', method: 'PUT', headers: JSON_TYPE, payload })
      t.equal(r.statusCode, 400, payload)
      t.same(JSON.parse(r.body), {
        ok: false,
        error: 'invalid_body',
        message: 'Expected a JSON object with "level" and/or "format" strings',
      })
    }
    t.same(JSON.parse((await app.inject('/logging')).body), { ok: true, level: 'info', format: 'kv' })
  })

  t.test('GET /fail answers 500 without the stack and logs it with the request id', async (t) => {
    const { app, out } = demo_app(t)
    const r = await app.inject({ url: '/fail', headers: { 'x-request-id': 'f-1' } })
    t.equal(r.statusCode, 500)
    t.same(JSON.parse(r.body), { ok: false, error: 'internal_error', message: 'Internal Server Error' })
    const line = parse_kv(out.lines()[0]!)
    t.equal(line.label, 'error')
    const p = Object.fromEntries(line.pairs)
    t.equal(p.rid, 'f-1')
    t.match(p.err, /^Error: the demo failing on purpose\n {4}at /)
  })
})
