// What a handler, a middleware or an `on_error` mapper returns is waited for when it is any thenable, as `await` would
// wait for it: a promise library's (Bluebird), a lazy query builder's (knex) or another realm's native promise, not only
// this realm's `Promise`. Before, such an answer was taken for "done": fw committed the response before the work ended.
import t from 'tap'
import { HttpError, type Middleware } from '../../index.js'
import { build } from '../helpers/build.js'
import { capture_log } from '../helpers/log.js'
import { THENABLE_KINDS } from '../helpers/thenable.js'

const INTERNAL = { ok: false, error: 'internal_error', message: 'Internal Server Error' }

/** `work` run a few milliseconds later, as a database answers: after fw would have committed a sync answer. */
function later<T>(work: () => T): Promise<T> {
  return new Promise<void>((resolve) => setTimeout(resolve, 5)).then(work)
}

for (const [kind, wrap] of Object.entries(THENABLE_KINDS)) {
  t.test(`${kind} answers of user code are waited for, through a real App route`, async (t) => {
    const out = capture_log(t)
    // A middleware that looks something up (its `then` not native) and continues inside it. Cast: `Middleware` is
    // typed `void | Promise<void>` (typescript-api.md); JavaScript code returns any thenable without one.
    const looked_up: Middleware = (_req, res, next) =>
      wrap(() =>
        later(() => {
          res.header('x-looked-up', 'yes')
          return next()
        }),
      ) as Promise<void>
    // An async middleware that reads the answer after `await next()`.
    const reader: Middleware = async (_req, res, next) => {
      await next()
      res.header('x-seen', res.is_sent() ? 'answered' : 'empty')
    }
    const app = build(t, (app) => {
      app.on_error((err, _req, res) =>
        err instanceof Error && err.message === 'map me'
          ? wrap(() => later(() => res.status(418).json('mapped', err.message)))
          : undefined,
      )
      app.get('/handler', (_req, res) => wrap(() => later(() => res.json('rows', [1, 2]))))
      app.get('/handler-fails', () =>
        wrap(() =>
          later(() => {
            throw new Error('query failed')
          }),
        ),
      )
      app.get('/handler-http', () =>
        wrap(() =>
          later(() => {
            throw new HttpError(404, 'row_not_found', 'No such row')
          }),
        ),
      )
      app.get('/handler-mapped', () =>
        wrap(() =>
          later(() => {
            throw new Error('map me')
          }),
        ),
      )
      app.group('/chain', (g) => {
        g.use(reader)
        g.get('/handler', (_req, res) => wrap(() => later(() => res.json('rows', [3]))))
      })
      app.group('/mw', (g) => {
        g.use(looked_up)
        g.get('/x', (_req, res) => res.json('ok', true))
      })
      app.group('/mw-fails', (g) => {
        g.use(
          (): Promise<void> =>
            wrap(() =>
              later((): void => {
                throw new HttpError(401, 'no_tenant', 'Tenant unknown')
              }),
            ) as Promise<void>,
        )
        g.get('/x', (_req, res) => res.json('ok', true))
      })
      app.group('/map-fails', (g) => {
        g.on_error(() =>
          wrap(() =>
            later(() => {
              throw new Error('mapper broke')
            }),
          ),
        )
        g.get('/x', () => {
          throw new Error('handler broke')
        })
      })
    })

    t.test('a handler that returns one (no middleware): its answer is the one sent', async (t) => {
      const r = await app.inject({ url: '/handler' })
      t.equal(r.statusCode, 200)
      t.same(r.json(), { rows: [1, 2] })
    })

    t.test('a handler behind middleware: the middleware sees its answer after await next()', async (t) => {
      const r = await app.inject({ url: '/chain/handler' })
      t.equal(r.statusCode, 200)
      t.same(r.json(), { rows: [3] })
      t.equal(r.headers['x-seen'], 'answered')
    })

    t.test("its rejection is answered as a 500 in fw's shape and logged", async (t) => {
      const before = out.text().length
      const r = await app.inject({ url: '/handler-fails' })
      t.equal(r.statusCode, 500)
      t.same(r.json(), INTERNAL)
      t.match(out.text().slice(before), /\[error\] handler failed .*query failed/)
    })

    t.test('its rejection with an HttpError is answered with that error', async (t) => {
      const r = await app.inject({ url: '/handler-http' })
      t.equal(r.statusCode, 404)
      t.same(r.json(), { ok: false, error: 'row_not_found', message: 'No such row' })
    })

    t.test('a middleware that calls next() inside one: the handler runs and its answer is sent', async (t) => {
      const r = await app.inject({ url: '/mw/x' })
      t.equal(r.statusCode, 200)
      t.same(r.json(), { ok: true })
      t.equal(r.headers['x-looked-up'], 'yes')
    })

    t.test("a middleware's rejected one is answered with its error", async (t) => {
      const r = await app.inject({ url: '/mw-fails/x' })
      t.equal(r.statusCode, 401)
      t.same(r.json(), { ok: false, error: 'no_tenant', message: 'Tenant unknown' })
    })

    t.test('an on_error mapper that returns one: its answer is the one sent', async (t) => {
      const r = await app.inject({ url: '/handler-mapped' })
      t.equal(r.statusCode, 418)
      t.same(r.json(), { mapped: 'map me' })
    })

    t.test("an on_error mapper's rejected one: 500, both errors logged", async (t) => {
      const before = out.text().length
      const r = await app.inject({ url: '/map-fails/x' })
      t.equal(r.statusCode, 500)
      t.same(r.json(), INTERNAL)
      const lines = out.text().slice(before)
      t.match(lines, /\[error\] handler failed .*handler broke/)
      t.match(lines, /\[error\] on_error failed .*mapper broke/)
    })
  })
}
