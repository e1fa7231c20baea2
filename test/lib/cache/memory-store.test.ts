import t from 'tap'
import { CacheEntry } from '../../../lib/cache/cache-entry.js'
import { MemoryStore } from '../../../lib/cache/memory-store.js'

const entry = (body: string, created_at_ms = 0): CacheEntry => new CacheEntry({ body, created_at_ms })

t.test('MemoryStore', async (t) => {
  t.test('puts, replaces, gets, erases and clears entries', async (t) => {
    const store = new MemoryStore()
    const a = entry('a')
    store.put('a', a)
    store.put('b', entry('b'))
    store.put('b', entry('b2'))
    t.equal(store.get('a'), a)
    t.equal(store.get('b')?.body, 'b2')
    t.equal(store.size, 2)
    store.erase('a')
    store.erase('missing')
    t.equal(store.get('a'), undefined)
    t.equal(store.size, 1)
    store.clear()
    t.equal(store.size, 0)
    t.equal(store.get('b'), undefined)
  })

  t.test('never evicts and never judges age', async (t) => {
    const store = new MemoryStore()
    for (let i = 0; i < 5000; i++) store.put(`k${i}`, entry(String(i), -1e15))
    t.equal(store.size, 5000)
    t.equal(store.get('k0')?.body, '0')
  })

  t.test('has no eraseIf', async (t) => {
    t.equal('eraseIf' in new MemoryStore(), false)
  })
})
