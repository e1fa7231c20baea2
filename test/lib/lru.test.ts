import t from 'tap'
import { Lru } from '../../lib/lru.js'

/** The keys from least to most recently used. */
const order = <K, V>(lru: Lru<K, V>): K[] => lru.entries().map(([k]) => k)

t.test('Lru', async (t) => {
  t.test('drops the least recently set key when a new key would pass max', async (t) => {
    const lru = new Lru<string, number>(3)
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) lru.set(k, i)
    t.equal(lru.size, 3)
    t.same(lru.entries(), [
      ['b', 1],
      ['c', 2],
      ['d', 3],
    ])
    t.equal(lru.get('a'), undefined)
  })

  t.test('makes a key most recently used on get and on a replacing set, not on peek', async (t) => {
    const lru = new Lru<string, number>(3)
    for (const k of ['a', 'b', 'c']) lru.set(k, 0)
    t.equal(lru.get('a'), 0)
    t.same(order(lru), ['b', 'c', 'a'])
    lru.set('b', 7)
    t.same(order(lru), ['c', 'a', 'b'])
    t.equal(lru.peek('c'), 0)
    t.same(order(lru), ['c', 'a', 'b'])
    lru.set('d', 1)
    t.same(order(lru), ['a', 'b', 'd'])
    t.equal(lru.get('b'), 7)
  })

  t.test('keeps one key with max 1', async (t) => {
    const lru = new Lru<string, number>(1)
    lru.set('a', 1)
    lru.set('a', 2)
    lru.set('b', 3)
    t.same(lru.entries(), [['b', 3]])
  })

  t.test('deletes a key (true only when present) and reuses its slot', async (t) => {
    const lru = new Lru<string, number>(3)
    for (const k of ['a', 'b', 'c']) lru.set(k, 0)
    t.equal(lru.delete('b'), true)
    t.equal(lru.delete('b'), false)
    t.equal(lru.size, 2)
    lru.set('d', 0)
    lru.set('e', 0)
    t.same(order(lru), ['c', 'd', 'e'])
    for (const k of ['c', 'd', 'e']) lru.delete(k)
    t.equal(lru.size, 0)
    t.same(lru.entries(), [])
    lru.set('f', 0)
    t.same(order(lru), ['f'])
  })

  t.test('shifts out the least recently used key, undefined when empty', async (t) => {
    const lru = new Lru<string, number>(3)
    t.equal(lru.shift(), undefined)
    for (const k of ['a', 'b', 'c']) lru.set(k, 0)
    lru.get('a')
    t.equal(lru.shift(), 'b')
    t.equal(lru.size, 2)
    t.equal(lru.peek('b'), undefined)
    t.same(order(lru), ['c', 'a'])
    lru.set('d', 1)
    lru.set('e', 2)
    t.same(order(lru), ['a', 'd', 'e'], 'the shifted slot is reused')
    t.equal(lru.shift(), 'a')
    t.equal(lru.shift(), 'd')
    t.equal(lru.shift(), 'e')
    t.equal(lru.shift(), undefined)
    t.equal(lru.size, 0)
    lru.set('f', 3)
    t.same(lru.entries(), [['f', 3]])
  })

  t.test('clears every key and keeps working afterwards', async (t) => {
    const lru = new Lru<number, string>(2)
    lru.set(1, 'x')
    lru.set(2, 'y')
    lru.clear()
    t.equal(lru.size, 0)
    t.equal(lru.get(1), undefined)
    lru.set(3, 'z')
    lru.set(4, 'w')
    lru.set(5, 'v')
    t.same(order(lru), [4, 5])
  })

  t.test('returns a snapshot the caller may change the map under', async (t) => {
    const lru = new Lru<string, number>(3)
    for (const k of ['a', 'b', 'c']) lru.set(k, 0)
    const seen: string[] = []
    for (const [k] of lru.entries()) {
      seen.push(k)
      lru.delete(k)
    }
    t.same(seen, ['a', 'b', 'c'])
    t.equal(lru.size, 0)
  })
})
