// A small App for the authentication middleware tests: the middleware under test on `/p`, and handlers that count their
// runs.
import type { Test } from 'tap'
import { App, adapt_ctx } from '../../../../index.js'
import type { CtxMiddleware, Handler, Request } from '../../../../index.js'

/** The App and how many times the protected handler ran. */
export interface Built {
  app: App
  calls: { n: number }
}

/**
 * An App with `mws` (context middleware) on `/p`, where GET `/p` answers `{ok:true, ...answer(req)}`; closed on
 * teardown.
 * @example
 * const { app, calls } = build(t, [jwt({ secret })], (req) => ({ sub: req.state(JwtClaims)?.subject }))
 */
export function build(t: Test, mws: readonly CtxMiddleware[], answer: (req: Request) => object = () => ({})): Built {
  const app = new App({ access_log: false })
  const calls = { n: 0 }
  for (const mw of mws) app.use('/p', adapt_ctx(mw))
  const handler: Handler = (req, res) => {
    calls.n++
    res.json({ ok: true, ...answer(req) })
  }
  app.get('/p', handler)
  t.teardown(() => app.close())
  return { app, calls }
}

/** The JSON error body the middleware answers with. */
export function error_body(code: string, message: string): { ok: false; error: string; message: string } {
  return { ok: false, error: code, message }
}

/** Asserts that `fn` throws an FwError with `code` and a message matching `message`. */
export function throws_coded(t: Test, fn: () => unknown, code: string, message: RegExp): void {
  t.throws(fn, { name: 'FwError', code, message }, code)
}
