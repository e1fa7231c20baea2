import t from 'tap'
import { HeaderUtil } from '../../../lib/cache/header-util.js'

t.test('HeaderUtil.toLower', async (t) => {
  t.test('lowercases ASCII letters and leaves everything else', async (t) => {
    t.equal(HeaderUtil.toLower('X-Request-ID'), 'x-request-id')
    t.equal(HeaderUtil.toLower('already-lower'), 'already-lower')
    t.equal(HeaderUtil.toLower('ÄÖ-İ-X'), 'ÄÖ-İ-x')
    t.equal(HeaderUtil.toLower(''), '')
  })
})

t.test('HeaderUtil.normalizeInPlace', async (t) => {
  t.test('lowercases every name of the same map and returns it', async (t) => {
    const h: Record<string, string> = { 'Content-Type': 'a', Accept: 'b', 'x-ok': 'c' }
    t.equal(HeaderUtil.normalizeInPlace(h), h)
    t.strictSame(h, { 'content-type': 'a', accept: 'b', 'x-ok': 'c' })
    t.same(Object.keys(h), ['content-type', 'accept', 'x-ok'])
  })

  t.test('lets the later of two names that differ only in case win', async (t) => {
    const first_upper: Record<string, string> = { 'Content-Type': 'upper', 'content-type': 'lower' }
    t.strictSame(HeaderUtil.normalizeInPlace(first_upper), { 'content-type': 'lower' })
    const first_lower: Record<string, string> = {
      'content-type': 'lower',
      'CONTENT-TYPE': 'upper',
      'Content-Type': 'mixed',
    }
    t.strictSame(HeaderUtil.normalizeInPlace(first_lower), { 'content-type': 'mixed' })
  })

  t.test('keeps a map that is already lowercase as it is', async (t) => {
    const h: Record<string, string> = { b: '1', a: '2' }
    HeaderUtil.normalizeInPlace(h)
    t.same(Object.keys(h), ['b', 'a'])
  })

  t.test('keeps a __proto__ name as data', async (t) => {
    const h = JSON.parse('{"__PROTO__":"x","A":"y"}') as Record<string, string>
    HeaderUtil.normalizeInPlace(h)
    t.same(Object.entries(h), [
      ['__proto__', 'x'],
      ['a', 'y'],
    ])
    t.equal(Object.getPrototypeOf(h), Object.prototype)
  })
})
