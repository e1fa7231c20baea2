import t from 'tap'
import { CacheContext, RequestOutcome } from '../../../lib/cache/cache-context.js'

const flags = (c: CacheContext): [boolean, boolean] => [c.offline, c.network_error]

t.test('CacheContext', async (t) => {
  t.test('builds the three spec contexts, each a new object', async (t) => {
    t.same(flags(CacheContext.Online()), [false, false])
    t.same(flags(CacheContext.Offline()), [true, false])
    t.same(flags(CacheContext.NetworkError()), [false, true])
    t.not(CacheContext.Online(), CacheContext.Online())
  })

  t.test('defaults both flags to false and takes either', async (t) => {
    t.same(flags(new CacheContext()), [false, false])
    t.same(flags(new CacheContext({ offline: true, network_error: true })), [true, true])
  })
})

t.test('RequestOutcome', async (t) => {
  t.test('names Ok and NetworkError and cannot be changed', async (t) => {
    t.strictSame({ ...RequestOutcome }, { Ok: 'Ok', NetworkError: 'NetworkError' })
    t.equal(Object.isFrozen(RequestOutcome), true)
  })
})
