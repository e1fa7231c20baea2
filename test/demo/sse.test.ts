import t from 'tap'
import { setup_sse } from '../../demo/sse.js'
import { build } from '../helpers/build.js'

t.test('sse demo', async (t) => {
  const app = build(t, (app) => app.group('/sse', (g) => setup_sse(g, { interval_ms: 1, max: 3 })))

  t.test('counts up as server-sent events', async (t) => {
    const r = await app.inject({ url: '/sse/events' })
    t.same([r.statusCode, r.headers['content-type']], [200, 'text/event-stream; charset=utf-8'])
    t.equal(r.body, 'id: 1\ndata: {"n":1}\n\nid: 2\ndata: {"n":2}\n\nid: 3\ndata: {"n":3}\n\n')
  })

  t.test('resumes after Last-Event-ID', async (t) => {
    const r = await app.inject({ url: '/sse/events', headers: { 'last-event-id': '7' } })
    t.match(r.body, /^id: 8\ndata: \{"n":8\}/)
  })

  t.test('serves the page that subscribes to the events under its prefix', async (t) => {
    t.match((await app.inject({ url: '/sse' })).body, /new EventSource\("\/sse\/events"\)/)
  })
})
