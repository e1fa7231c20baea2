// A context set in the synchronous part of a request that does not follow its async work must not outlive that part:
// the next event of the same async resource (a keep-alive connection's next request, an interval's next tick) runs
// outside the request. Its own file, in its own process: on Node 20 and 22 the first request is entered unfollowed only
// while nothing has asked for the context yet.
import { AsyncResource } from 'node:async_hooks'
import t from 'tap'
import { MemoryStream, msg_and_rid } from './capture.js'
import {
  context,
  current_context,
  run_with_request_id,
  set_context,
  with_request_id,
} from '../../../lib/log/context.js'
import { clear_context } from '../../../lib/log/index.js'
import { configure, info } from '../../../lib/log/index.js'

t.test('a request that sets its context leaves none on its connection', async (t) => {
  const out = new MemoryStream()
  configure({ destination: out, format: 'kv', level: 'info' })
  t.teardown(() => configure({ destination: 1 }))
  // One resource for every event of a connection, as Node's HTTP parser has per socket.
  const connection = new AsyncResource('test.connection')
  const request = (id: string, path: string): void =>
    connection.runInAsyncScope(() => {
      info('outside {}', path)
      run_with_request_id(id, () => {
        if (path === '/set') set_context({ ...context(), module: 'orders' })
        info('inside {}', path)
      })
    })
  request('A', '/set')
  request('B', '/next')
  t.same(out.lines().map(msg_and_rid), [
    ['outside /set', undefined],
    ['inside /set', 'A'],
    ['outside /next', undefined],
    ['inside /next', 'B'],
  ])
  t.equal(connection.runInAsyncScope(current_context), undefined, 'the connection keeps no context of A')
})

t.test('a context set or cleared inside with_request_id ends with it', async (t) => {
  const tick = new AsyncResource('test.interval')
  const later = tick.runInAsyncScope(() =>
    with_request_id('job-1', () => {
      set_context({ ...context(), module: 'jobs' })
      return new Promise((resolve) => setImmediate(() => resolve(context())))
    }),
  )
  t.equal(tick.runInAsyncScope(current_context), undefined, 'the next tick runs without the job context')
  t.same(await later, { request_id: 'job-1', module: 'jobs', fields: {} }, 'the work the job started keeps it')
  // In one call of the resource: on Node 24 a context entered in one call does not outlast it (each call switches to
  // the frame the resource captured), so a context set in a call before would be gone whatever fw does.
  const around = tick.runInAsyncScope(() => {
    set_context({ request_id: 'outer' })
    with_request_id('job-2', () => clear_context())
    return current_context()?.request_id
  })
  t.equal(around, 'outer', 'the context around it is kept')
})
