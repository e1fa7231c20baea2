import t from 'tap'
import { CacheEntry } from '../../../lib/cache/cache-entry.js'
import { ERR_CACHE_BAD_OPTION } from '../../../lib/cache/errors.js'
import { LruMemoryStore } from '../../../lib/cache/lru-memory-store.js'

const entry = (body: string, created_at_ms = 0): CacheEntry => new CacheEntry({ body, created_at_ms })

/** The keys still stored, of those given, in the order given. */
const present = (store: LruMemoryStore, keys: string[]): string[] => keys.filter((k) => store.get(k) !== undefined)

/**
 * The store's keys from least to most recently used, read through eraseIf (which visits in that order and removes
 * nothing here).
 */
function order(store: LruMemoryStore): string[] {
  const keys: string[] = []
  store.eraseIf((key) => (keys.push(key), false))
  return keys
}

t.test('LruMemoryStore', async (t) => {
  t.test('defaults max_entries to 1024 and refuses a bad one', async (t) => {
    t.equal(new LruMemoryStore().max_entries, 1024)
    for (const bad of [0, -1, 1.5, NaN]) {
      t.throws(() => new LruMemoryStore({ max_entries: bad }), {
        code: ERR_CACHE_BAD_OPTION.code,
        message: `LruMemoryStore: max_entries must be an integer >= 1; got ${bad}`,
      })
    }
  })

  t.test('evicts the least recently put entry when the count would exceed max_entries', async (t) => {
    const store = new LruMemoryStore({ max_entries: 3 })
    for (const k of ['a', 'b', 'c', 'd']) store.put(k, entry(k))
    t.equal(store.size, 3)
    t.same(order(store), ['b', 'c', 'd'])
  })

  t.test('makes an entry most recently used on a successful get', async (t) => {
    const store = new LruMemoryStore({ max_entries: 3 })
    for (const k of ['a', 'b', 'c']) store.put(k, entry(k))
    t.equal(store.get('a')?.body, 'a')
    store.put('d', entry('d'))
    t.same(order(store), ['c', 'a', 'd'])
    t.equal(store.get('b'), undefined)
  })

  t.test('does not reorder on a missed get', async (t) => {
    const store = new LruMemoryStore({ max_entries: 2 })
    store.put('a', entry('a'))
    store.put('b', entry('b'))
    t.equal(store.get('zz'), undefined)
    t.same(order(store), ['a', 'b'])
  })

  t.test('replaces an existing key in place, making it most recently used without evicting', async (t) => {
    const store = new LruMemoryStore({ max_entries: 2 })
    store.put('a', entry('a1'))
    store.put('b', entry('b'))
    store.put('a', entry('a2'))
    t.equal(store.size, 2)
    t.same(order(store), ['b', 'a'])
    t.equal(store.get('a')?.body, 'a2')
  })

  t.test('works with a capacity of one', async (t) => {
    const store = new LruMemoryStore({ max_entries: 1 })
    store.put('a', entry('a'))
    store.put('b', entry('b'))
    t.same(present(store, ['a', 'b']), ['b'])
    store.put('b', entry('b2'))
    t.equal(store.get('b')?.body, 'b2')
    t.equal(store.size, 1)
  })

  t.test('erases from the head, the middle and the tail and reuses the freed room', async (t) => {
    const store = new LruMemoryStore({ max_entries: 5 })
    for (const k of ['a', 'b', 'c', 'd', 'e']) store.put(k, entry(k))
    store.erase('a')
    store.erase('c')
    store.erase('e')
    store.erase('missing')
    t.same(order(store), ['b', 'd'])
    for (const k of ['f', 'g', 'h']) store.put(k, entry(k))
    t.same(order(store), ['b', 'd', 'f', 'g', 'h'])
    store.put('i', entry('i'))
    t.same(order(store), ['d', 'f', 'g', 'h', 'i'])
  })

  t.test('erases the only entry and starts over cleanly', async (t) => {
    const store = new LruMemoryStore({ max_entries: 2 })
    store.put('a', entry('a'))
    store.erase('a')
    t.equal(store.size, 0)
    store.put('b', entry('b'))
    store.put('c', entry('c'))
    store.put('d', entry('d'))
    t.same(order(store), ['c', 'd'])
  })

  t.test('clears every entry and keeps working', async (t) => {
    const store = new LruMemoryStore({ max_entries: 2 })
    for (const k of ['a', 'b']) store.put(k, entry(k))
    store.clear()
    t.equal(store.size, 0)
    t.equal(store.get('a'), undefined)
    for (const k of ['c', 'd', 'e']) store.put(k, entry(k))
    t.same(order(store), ['d', 'e'])
  })

  t.test('eraseIf removes what the predicate picks, returns the count and keeps the order of the rest', async (t) => {
    const store = new LruMemoryStore({ max_entries: 10 })
    for (let i = 0; i < 6; i++) store.put(`k${i}`, entry(String(i), i))
    const seen: [string, number][] = []
    const removed = store.eraseIf((key, e) => (seen.push([key, e.created_at_ms]), e.created_at_ms % 2 === 0))
    t.equal(removed, 3)
    t.same(seen, [
      ['k0', 0],
      ['k1', 1],
      ['k2', 2],
      ['k3', 3],
      ['k4', 4],
      ['k5', 5],
    ])
    t.same(order(store), ['k1', 'k3', 'k5'])
    t.equal(
      store.eraseIf(() => false),
      0,
    )
    t.equal(
      new LruMemoryStore().eraseIf(() => true),
      0,
    )
  })

  t.test('eraseIf survives a predicate that reads and so reorders the store', async (t) => {
    const store = new LruMemoryStore({ max_entries: 10 })
    for (const k of ['a', 'b', 'c', 'd']) store.put(k, entry(k))
    const removed = store.eraseIf((key) => {
      store.get('a')
      return key === 'b' || key === 'd'
    })
    t.equal(removed, 2)
    t.same(order(store), ['c', 'a'])
  })

  t.test('keeps exactly the most recent max_entries keys over a long random run', async (t) => {
    const max = 64
    const store = new LruMemoryStore({ max_entries: max })
    const model: string[] = []
    let seed = 7
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      const key = `k${seed % 150}`
      const at = model.indexOf(key)
      if (seed % 3 === 0) {
        const hit = store.get(key)
        if ((hit !== undefined) !== (at !== -1)) t.fail(`get ${key} disagrees at step ${i}`)
        if (at !== -1) model.push(...model.splice(at, 1))
      } else if (seed % 7 === 0) {
        store.erase(key)
        if (at !== -1) model.splice(at, 1)
      } else {
        store.put(key, entry(key))
        if (at !== -1) model.splice(at, 1)
        model.push(key)
        if (model.length > max) model.shift()
      }
    }
    t.same(order(store), model)
    t.equal(store.size, model.length)
  })
})
