// The cache demo's very first decision line carries its request's `rid=`, as docs/cache.md shows. A file of its own: on
// Node 20 and 22 a request's log context follows its async work only once request code wrote a line, or once
// follow_context() was called (see lib/log/context.ts), and that state is the process's; here no request ran before.
import t from 'tap'
import { setup_cache } from '../../demo/cache.js'
import * as log from '../../lib/log/index.js'
import { build } from '../helpers/build.js'

t.test("the first decision line of the process has the request's rid, as every later one", async (t) => {
  const lines: string[] = []
  log.set_destination({ write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean)) })
  t.teardown(() => log.set_destination(1))
  const app = build(t, (app) => setup_cache(app))
  const first = await app.inject({ url: '/data', headers: { 'x-request-id': 'first-request' } })
  const second = await app.inject({ url: '/data', headers: { 'x-request-id': 'second-request' } })
  t.same([first.headers['x-fw-cache-status'], second.headers['x-fw-cache-status']], ['miss', 'hit'])
  t.equal(lines.length, 2)
  t.match(
    lines[0],
    / \[cache\] \[info\] http_cache rid=first-request decision=miss key="GET \/data\? \|h:host=localhost:80;" age_s=-$/,
  )
  t.match(
    lines[1],
    / \[cache\] \[info\] http_cache rid=second-request decision=hit key="GET \/data\? \|h:host=localhost:80;" age_s=0$/,
  )
})
