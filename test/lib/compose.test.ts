import t from 'tap'
import {
  adapt_ctx,
  compose,
  ctx_of,
  drop_replaced,
  route_options_of,
  with_route_options,
  type Middleware,
} from '../../lib/compose.js'
import { Request } from '../../lib/request.js'
import { Response } from '../../lib/response.js'
import { Services } from '../../lib/state.js'
import { host_request } from '../helpers/host-request.js'

function facades(): { req: Request; res: Response } {
  return { req: new Request(host_request({ id: 'r1' }), new Services()), res: new Response() }
}

function tracer(log: string[], name: string): Middleware {
  return async (_req, _res, next) => {
    log.push(`${name} before`)
    await next()
    log.push(`${name} after`)
  }
}

t.test('compose', async (t) => {
  t.test('returns the handler itself when there is no middleware', async (t) => {
    const handler = (): void => {}
    t.equal(compose([], handler), handler)
  })

  t.test('runs middleware in onion order around the handler', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    await compose([tracer(log, 'a'), tracer(log, 'b')], () => void log.push('handler'))(req, res)
    t.same(log, ['a before', 'b before', 'handler', 'b after', 'a after'])
  })

  t.test('mixes sync and async middleware and handlers', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    const sync: Middleware = (_req, _res, next) => {
      log.push('sync')
      return next()
    }
    const handler = async (): Promise<void> => {
      await Promise.resolve()
      log.push('async handler')
    }
    await compose([sync, tracer(log, 'async')], handler)(req, res)
    t.same(log, ['sync', 'async before', 'async handler', 'async after'])
  })

  t.test('waits for the rest of the chain behind sync middleware that call next() without returning it', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    const quiet =
      (name: string): Middleware =>
      (_req, _res, next) => {
        log.push(name)
        void next()
      }
    const handler = async (): Promise<void> => {
      await new Promise((resolve) => setImmediate(resolve))
      log.push('handler')
    }
    const inner: Middleware = async (_req, _res, next) => {
      await next()
      log.push('inner after')
    }
    await compose([quiet('a'), quiet('b'), inner, quiet('c')], handler)(req, res)
    log.push('chain done')
    t.same(log, ['a', 'b', 'c', 'handler', 'inner after', 'chain done'])
  })

  t.test('waits for the rest of the chain behind async middleware that call next() without awaiting it', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    const careless: Middleware = async (_req, _res, next) => {
      log.push('careless')
      void next()
    }
    const handler = async (): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      log.push('handler')
    }
    await compose([careless, tracer(log, 'b')], handler)(req, res)
    log.push('chain done')
    t.same(log, ['careless', 'b before', 'handler', 'b after', 'chain done'])
  })

  t.test('rejects with the error of a handler behind async middleware that did not await next()', async (t) => {
    const { req, res } = facades()
    const careless: Middleware = async (_req, _res, next) => {
      void next()
    }
    const handler = async (): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      throw new Error('late failure')
    }
    let unhandled: unknown
    const note = (err: unknown): void => void (unhandled = err)
    process.on('unhandledRejection', note)
    t.teardown(() => void process.off('unhandledRejection', note))
    await t.rejects(Promise.resolve(compose([careless], handler)(req, res)), { message: 'late failure' })
    await new Promise((resolve) => setTimeout(resolve, 10))
    t.equal(unhandled, undefined, 'no unhandled rejection')
  })

  t.test('ends the chain when a middleware does not call next', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    const stop: Middleware = (_req, res) => void res.status(401).text('stop')
    await compose([tracer(log, 'a'), stop, tracer(log, 'c')], () => void log.push('handler'))(req, res)
    t.same(log, ['a before', 'a after'])
    t.equal(res.status_code, 401)
    t.equal(res.body_text(), 'stop')
  })

  t.test('runs the rest of the chain once when next is called twice', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    const twice: Middleware = async (_req, _res, next) => {
      await next()
      await next()
      log.push('twice done')
    }
    await compose([twice, tracer(log, 'b')], () => void log.push('handler'))(req, res)
    t.same(log, ['b before', 'handler', 'b after', 'twice done'])
  })

  t.test('rejects with an error thrown synchronously or asynchronously, skipping the rest', async (t) => {
    const log: string[] = []
    const { req, res } = facades()
    const sync_throw: Middleware = () => {
      throw new Error('sync boom')
    }
    const async_throw: Middleware = async () => {
      throw new Error('async boom')
    }
    const run = (mws: Middleware[], handler: () => void) => async () => compose(mws, handler)(req, res)
    await t.rejects(
      run([tracer(log, 'a'), sync_throw], () => void log.push('handler')),
      { message: 'sync boom' },
    )
    await t.rejects(
      run([async_throw], () => void log.push('handler')),
      { message: 'async boom' },
    )
    await t.rejects(
      run([tracer(log, 'z')], () => {
        throw new Error('handler boom')
      }),
      { message: 'handler boom' },
    )
    t.same(log, ['a before', 'z before'])
  })

  t.test('lets middleware catch an error thrown further down', async (t) => {
    const { req, res } = facades()
    const guard: Middleware = async (_req, res, next) => {
      try {
        await next()
      } catch (err) {
        res.status(503).text((err as Error).message)
      }
    }
    await compose([guard], () => {
      throw new Error('down')
    })(req, res)
    t.equal(res.status_code, 503)
    t.equal(res.body_text(), 'down')
  })
})

t.test('adapt_ctx', async (t) => {
  t.test('gives context middleware one shared ctx with req, res and services', async (t) => {
    const { req, res } = facades()
    const seen: unknown[] = []
    const mw = adapt_ctx(async (ctx, next) => {
      seen.push(ctx)
      await next()
    })
    await compose([mw, mw], () => {})(req, res)
    const ctx = ctx_of(req, res)
    t.same(
      seen.map((c) => c === ctx),
      [true, true],
    )
    t.equal(ctx.req, req)
    t.equal(ctx.res, res)
    t.equal(ctx.services, req.services)
  })

  t.test('keeps route options of the context middleware', async (t) => {
    const inner = with_route_options(async (_ctx: unknown, next: () => Promise<void>) => next(), { body_limit: 10 })
    t.same(route_options_of(adapt_ctx(inner)), { body_limit: 10 })
    t.equal(route_options_of(adapt_ctx(async (_ctx, next) => next())), undefined)
  })
})

t.test('with_route_options', async (t) => {
  t.test('attaches options to the function and returns it', async (t) => {
    const mw: Middleware = (_req, _res, next) => next()
    t.equal(with_route_options(mw, { body_limit: 4 }), mw)
    t.same(route_options_of(mw), { body_limit: 4 })
  })
})

t.test('drop_replaced', async (t) => {
  const kind = (name: string, options: { replaces?: string } = {}) => ({
    name,
    mw: with_route_options(() => undefined, { kind: 'limit', ...options }),
  })
  const names = (chain: Array<{ name: string }>) => chain.map((e) => e.name)

  t.test('keeps the most specific replacing placement, and the others of other kinds', async (t) => {
    const other = { name: 'other', mw: with_route_options(() => undefined, { kind: 'cors' }), depth: 0, sure: true }
    const chain = [
      { ...kind('global'), depth: 0, sure: true },
      other,
      { ...kind('route', { replaces: 'limit' }), depth: 2, sure: true },
    ]
    t.same(names(drop_replaced(chain)), ['other', 'route'])
  })

  t.test('a placement not sure to apply replaces nothing; deeper ones and same-depth later ones stay', async (t) => {
    const unsure = [
      { ...kind('global'), depth: 0, sure: true },
      { ...kind('maybe', { replaces: 'limit' }), depth: 2, sure: false },
    ]
    t.same(names(drop_replaced(unsure)), ['global', 'maybe'])
    const ties = [
      { ...kind('before'), depth: 1, sure: true },
      { ...kind('winner', { replaces: 'limit' }), depth: 1, sure: true },
      { ...kind('after'), depth: 1, sure: true },
      { ...kind('deeper'), depth: 3, sure: true },
    ]
    t.same(names(drop_replaced(ties)), ['winner', 'after', 'deeper'])
  })
})
