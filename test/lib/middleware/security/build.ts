// A small App for the security middleware tests: the middleware under test, then routes that count how often they ran.
import type { Test } from 'tap'
import { App } from '../../../../index.js'
import type { AppOptions, Handler, Middleware } from '../../../../index.js'

/** The App and how many times a route handler ran. */
export interface Built {
  app: App
  calls: { n: number }
}

/**
 * An App with `mws` applied globally and GET/POST/PUT/PATCH/DELETE `/data` answering `{ok:true}`; closed on teardown.
 */
export function build(t: Test, mws: readonly Middleware[], options: AppOptions = {}): Built {
  const app = new App({ access_log: false, ...options })
  const calls = { n: 0 }
  for (const mw of mws) app.use(mw)
  const handler: Handler = (_req, res) => {
    calls.n++
    res.json('ok', true)
  }
  app.get('/data', handler).post('/data', handler).put('/data', handler).patch('/data', handler).del('/data', handler)
  t.teardown(() => app.close())
  return { app, calls }
}
