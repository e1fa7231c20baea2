import t from 'tap'
import { KeyMap, Services, Token } from '../../lib/state.js'

class ApiKey {
  constructor(readonly value: string) {}
}
abstract class Resolver {
  abstract resolve(subject: string): string[]
}
class StaticResolver extends Resolver {
  resolve(subject: string): string[] {
    return [subject]
  }
}

t.test('KeyMap', async (t) => {
  t.test('stores values under class keys and tokens', async (t) => {
    const m = new KeyMap()
    const Clock = new Token<() => number>('Clock')
    t.equal(m.get(ApiKey), undefined)
    t.equal(m.has(ApiKey), false)
    m.set(ApiKey, new ApiKey('k1')).set(Clock, () => 42)
    t.equal(m.get(ApiKey)?.value, 'k1')
    t.equal(m.get(Clock)?.(), 42)
    t.equal(m.has(Clock), true)
    t.equal(Clock.name, 'Clock')
    t.same([...m.values()].length, 2)
  })

  t.test('replaces a value under the same key and deletes it', async (t) => {
    const m = new KeyMap()
    m.set(ApiKey, new ApiKey('a')).set(ApiKey, new ApiKey('b'))
    t.equal(m.get(ApiKey)?.value, 'b')
    t.equal(m.delete(ApiKey), true)
    t.equal(m.delete(ApiKey), false)
    t.equal(m.get(ApiKey), undefined)
  })

  t.test('tells two tokens of the same name apart', async (t) => {
    const a = new Token<string>('same')
    const b = new Token<string>('same')
    const m = new KeyMap().set(a, 'A')
    t.equal(m.get(a), 'A')
    t.equal(m.get(b), undefined)
  })

  t.test('types values by their key', async (t) => {
    const m = new KeyMap()
    const Count = new Token<number>('Count')
    // @ts-expect-error an ApiKey key holds an ApiKey, not a string
    m.set(ApiKey, 'k1')
    // @ts-expect-error a number token holds a number
    m.set(Count, 'one')
    m.set(Count, 1)
    const n: number | undefined = m.get(Count)
    // @ts-expect-error get may return undefined
    const k: ApiKey = m.get(ApiKey)
    t.equal(n, 1)
    t.equal(k, 'k1')
  })
})

t.test('Services', async (t) => {
  t.test('looks implementations up by their abstract class', async (t) => {
    const s = new Services()
    s.set(Resolver, new StaticResolver())
    t.same(s.get(Resolver)?.resolve('ada'), ['ada'])
  })
})
