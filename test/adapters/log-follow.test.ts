// When an App's requests follow their async work with their log context. Its own file, in its own process: the first
// line request code writes switches following on for good, so nothing before these tests may have written one.
import { setImmediate as tick } from 'node:timers/promises'
import t from 'tap'
import { current_context, HOOKED_CONTEXT } from '../../lib/log/context.js'
import * as log from '../../lib/log/index.js'
import { msg_and_rid } from '../lib/log/capture.js'
import { build } from '../helpers/build.js'
import { capture_log } from '../helpers/log.js'

t.test('App request context', async (t) => {
  const out = capture_log(t)
  const after_await: Array<string | undefined> = []
  const app = build(
    t,
    (app) => {
      app.get('/quiet', async (_req, res) => {
        await tick()
        after_await.push(current_context()?.request_id)
        res.text('quiet')
      })
      app.get('/late-failure', async () => {
        await tick()
        throw new Error('late failure')
      })
      app.get('/loud', (_req, res) => {
        log.info('handled')
        res.text('loud')
      })
    },
    { access_log: 'info' },
  )

  t.test(
    'a request whose code writes no line is not followed on Node 20 and 22; its access line has its id',
    async (t) => {
      const r = await app.inject({ url: '/quiet', headers: { 'x-request-id': 'q-1' } })
      t.equal(r.body, 'quiet')
      // Async hooks stay off on Node 20 and 22; Node 24's AsyncContextFrame follows at no such cost.
      t.same(after_await, [HOOKED_CONTEXT ? undefined : 'q-1'])
      t.same(out.lines().map(msg_and_rid), [['request', 'q-1']])
    },
  )

  t.test('a handler failing after an await is logged with its id, and that line starts no following', async (t) => {
    const r = await app.inject({ url: '/late-failure', headers: { 'x-request-id': 'f-1' } })
    t.equal(r.statusCode, 500)
    t.same(out.lines().slice(1).map(msg_and_rid), [
      ['handler failed', 'f-1'],
      ['request', 'f-1'],
    ])
    await app.inject({ url: '/quiet', headers: { 'x-request-id': 'q-1b' } })
    t.same(after_await, HOOKED_CONTEXT ? [undefined, undefined] : ['q-1', 'q-1b'])
    out.chunks.length = 0
  })

  t.test('a line of request code carries its id and turns following on for later requests', async (t) => {
    await app.inject({ url: '/loud', headers: { 'x-request-id': 'l-1' } })
    await app.inject({ url: '/quiet', headers: { 'x-request-id': 'q-2' } })
    t.same(after_await, [...(HOOKED_CONTEXT ? [undefined, undefined] : ['q-1', 'q-1b']), 'q-2'])
    t.same(out.lines().map(msg_and_rid), [
      ['handled', 'l-1'],
      ['request', 'l-1'],
      ['request', 'q-2'],
    ])
  })
})
