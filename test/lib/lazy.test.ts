import type * as FastJwt from 'fast-jwt'
import t from 'tap'
import { lazy } from '../../lib/lazy.js'

t.test('lazy', async (t) => {
  t.test('loads the package on the first call and returns the same module after', async (t) => {
    const fast_jwt = lazy<typeof FastJwt>('fast-jwt')
    const first = fast_jwt()
    t.type(first.createSigner, 'function')
    t.equal(fast_jwt(), first)
  })

  t.test('fails on the first call, not at creation, when the package is missing', async (t) => {
    const missing = lazy('fw-no-such-package')
    t.throws(() => missing(), { code: 'MODULE_NOT_FOUND' })
  })
})
