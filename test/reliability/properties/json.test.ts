// Property of res.json(k, v, ...): the body is JSON.stringify of the object with the same keys and values, in the same
// order, for any keys (`__proto__`, `toJSON`, repeated keys included) and any JSON values.
import fc from 'fast-check'
import t from 'tap'
import { build } from '../../helpers/build.js'

t.test('res.json(key, value, ...)', async (t) => {
  const key = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('__proto__', 'constructor', 'toJSON', 'prototype', 'a'),
  )
  const pairs = fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 3 })), { minLength: 1, maxLength: 6 })
  let current: Array<[string, unknown]> = []
  const app = build(t, (app) => app.get('/j', (_req, res) => void res.json(...(current.flat() as [string, unknown]))))
  await fc.assert(
    fc.asyncProperty(pairs, async (p) => {
      current = p
      const r = await app.inject({ url: '/j' })
      return r.body === JSON.stringify(Object.fromEntries(p))
    }),
    { numRuns: 300 },
  )
  t.pass('the body equals JSON.stringify(Object.fromEntries(pairs)) for 300 random argument lists')
})
