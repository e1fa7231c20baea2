import t from 'tap'
import { InMemorySessionStore } from '../../../../lib/middleware/auth/session-store.js'
import { throws_coded } from './build.js'

function clocked(max_entries?: number) {
  const clock = { now: 1_000_000 }
  const store = new InMemorySessionStore({
    now: () => clock.now,
    ...(max_entries === undefined ? {} : { max_entries }),
  })
  return { store, clock }
}

t.test('InMemorySessionStore', async (t) => {
  t.test('returns what was saved, as a copy', async (t) => {
    const { store } = clocked()
    const data = { n: '1' }
    store.save({ id: 'a', data }, 60)
    data.n = 'changed'
    const loaded = store.load('a')
    t.same(loaded, { id: 'a', data: { n: '1' } })
    ;(loaded!.data as Record<string, string>).n = 'mutated'
    t.same(store.load('a'), { id: 'a', data: { n: '1' } })
  })

  t.test('returns undefined for an unknown id', async (t) => {
    const { store } = clocked()
    t.equal(store.load('nope'), undefined)
  })

  t.test('expires a session ttl seconds after its last save, and drops it', async (t) => {
    const { store, clock } = clocked()
    store.save({ id: 'a', data: {} }, 60)
    clock.now += 59_999
    t.same(store.load('a'), { id: 'a', data: {} })
    clock.now += 1
    t.equal(store.load('a'), undefined)
    t.equal(store.size, 0)
  })

  t.test('restarts the ttl on save', async (t) => {
    const { store, clock } = clocked()
    store.save({ id: 'a', data: { n: '1' } }, 60)
    clock.now += 50_000
    store.save({ id: 'a', data: { n: '2' } }, 60)
    clock.now += 50_000
    t.same(store.load('a'), { id: 'a', data: { n: '2' } })
  })

  t.test('forgets a destroyed session', async (t) => {
    const { store } = clocked()
    store.save({ id: 'a', data: {} }, 60)
    store.destroy('a')
    t.equal(store.load('a'), undefined)
    t.equal(store.size, 0)
  })

  t.test('evicts the least recently used session beyond max_entries', async (t) => {
    const { store } = clocked(2)
    store.save({ id: 'a', data: {} }, 60)
    store.save({ id: 'b', data: {} }, 60)
    store.load('a')
    store.save({ id: 'c', data: {} }, 60)
    t.equal(store.size, 2)
    t.equal(store.load('b'), undefined)
    t.not(store.load('a'), undefined)
    t.not(store.load('c'), undefined)
  })

  t.test('defaults to 10000 entries and the real clock', async (t) => {
    const store = new InMemorySessionStore()
    t.equal(store.max_entries, 10_000)
    store.save({ id: 'a', data: {} }, 1)
    t.same(store.load('a'), { id: 'a', data: {} })
  })

  t.test('refuses bad options at creation', async (t) => {
    throws_coded(
      t,
      () => new InMemorySessionStore({ max_entries: 0 }),
      'FW_ERR_AUTH_BAD_OPTION',
      /^InMemorySessionStore: max_entries must be an integer >= 1; got 0$/,
    )
    throws_coded(
      t,
      () => new InMemorySessionStore({ now: 5 as unknown as () => number }),
      'FW_ERR_AUTH_BAD_OPTION',
      /^InMemorySessionStore: now must be a function; got 5$/,
    )
  })
})
