import t from 'tap'
import { CacheEntry } from '../../../lib/cache/cache-entry.js'
import { ERR_CACHE_BAD_ENTRY } from '../../../lib/cache/errors.js'

t.test('CacheEntry', async (t) => {
  t.test('defaults status to 200, body to empty and headers to none', async (t) => {
    const e = new CacheEntry({ created_at_ms: 5 })
    t.strictSame({ ...e }, { status: 200, body: '', headers: {}, created_at_ms: 5 })
  })

  t.test('keeps a frozen copy of the headers with lowercased names', async (t) => {
    const headers = { 'Content-Type': 'text/plain', ETag: '"1"' }
    const e = new CacheEntry({ status: 203, body: 'x', headers, created_at_ms: 1 })
    t.strictSame(e.headers, { 'content-type': 'text/plain', etag: '"1"' })
    headers['Content-Type'] = 'changed'
    t.equal(e.headers['content-type'], 'text/plain')
    t.equal(Object.isFrozen(e), true)
    t.equal(Object.isFrozen(e.headers), true)
  })

  t.test('lets the later of two names that differ only in case win', async (t) => {
    t.strictSame(new CacheEntry({ headers: { 'X-A': '1', 'x-a': '2' }, created_at_ms: 0 }).headers, { 'x-a': '2' })
    t.strictSame(new CacheEntry({ headers: { 'x-a': '2', 'X-A': '1' }, created_at_ms: 0 }).headers, { 'x-a': '1' })
  })

  t.test('stores a __proto__ header as data', async (t) => {
    const headers = JSON.parse('{"__proto__":"v"}') as Record<string, string>
    const e = new CacheEntry({ headers, created_at_ms: 0 })
    t.same(Object.entries(e.headers), [['__proto__', 'v']])
    t.equal(Object.getPrototypeOf(e.headers), Object.prototype)
  })

  t.test('rejects bad fields with a coded error naming the field', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ status: 99 }, 'CacheEntry: status must be an integer from 100 to 599; got 99'],
      [{ status: 600 }, 'CacheEntry: status must be an integer from 100 to 599; got 600'],
      [{ status: 200.5 }, 'CacheEntry: status must be an integer from 100 to 599; got 200.5'],
      [{ body: 7 }, 'CacheEntry: body must be a string; got 7'],
      [{ created_at_ms: NaN }, 'CacheEntry: created_at_ms must be a finite number of ms; got NaN'],
      [{ created_at_ms: undefined }, 'CacheEntry: created_at_ms must be a finite number of ms; got undefined'],
      [{ headers: ['a'] }, 'CacheEntry: headers must be an object of string values; got ["a"]'],
      [{ headers: { 'X-N': 1 } }, 'CacheEntry: headers["X-N"] must be a string; got 1'],
    ]
    for (const [patch, message] of cases) {
      const init = { created_at_ms: 0, ...patch } as unknown as ConstructorParameters<typeof CacheEntry>[0]
      t.throws(() => new CacheEntry(init), { code: ERR_CACHE_BAD_ENTRY.code, message }, message)
    }
  })
})

t.test('CacheEntry refuses headers held in a Map or a fetch Headers object instead of dropping them', async (t) => {
  // Their values are not own properties: read as a plain object they were an empty header map, silently.
  for (const headers of [new Map([['content-type', 'text/plain']]), new Headers({ 'content-type': 'text/plain' })]) {
    t.throws(() => new CacheEntry({ headers: headers as never, created_at_ms: 0 }), {
      code: ERR_CACHE_BAD_ENTRY.code,
      message: /headers must be an object of string values/,
    })
  }
})
