import t from 'tap'
import { SIGNED_IN_KEY } from '../../../../lib/middleware/auth/session-state.js'
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

  t.test('evicts anonymous sessions before a signed-in one', async (t) => {
    const { store } = clocked(3)
    store.save({ id: 'user', data: { [SIGNED_IN_KEY]: '{"id":"u1"}' } }, 60)
    store.save({ id: 'anon1', data: {} }, 60)
    store.save({ id: 'anon2', data: {} }, 60)
    store.save({ id: 'anon3', data: {} }, 60)
    t.equal(store.size, 3)
    t.same(store.load('user'), { id: 'user', data: { [SIGNED_IN_KEY]: '{"id":"u1"}' } })
    t.equal(store.load('anon1'), undefined, 'the least recently used anonymous one went')
    t.not(store.load('anon2'), undefined)
    t.not(store.load('anon3'), undefined)
  })

  t.test('keeps the signed-in sessions through a flood of anonymous ones', async (t) => {
    const { store } = clocked(3)
    store.save({ id: 'u1', data: { [SIGNED_IN_KEY]: '1' } }, 60)
    store.save({ id: 'u2', data: { [SIGNED_IN_KEY]: '2' } }, 60)
    for (let i = 0; i < 100; i++) {
      store.save({ id: `anon${i}`, data: {} }, 60)
      t.ok(store.size <= 3, `size ${store.size} after ${i + 1} anonymous saves`)
    }
    t.equal(store.size, 3)
    t.not(store.load('u1'), undefined)
    t.not(store.load('u2'), undefined)
    t.not(store.load('anon99'), undefined)
    t.equal(store.load('anon98'), undefined)
  })

  t.test('evicts the least recently used signed-in session when no anonymous one is left', async (t) => {
    const { store } = clocked(2)
    store.save({ id: 'u1', data: { [SIGNED_IN_KEY]: '1' } }, 60)
    store.save({ id: 'u2', data: { [SIGNED_IN_KEY]: '2' } }, 60)
    store.load('u1')
    store.save({ id: 'u3', data: { [SIGNED_IN_KEY]: '3' } }, 60)
    t.equal(store.size, 2)
    t.equal(store.load('u2'), undefined)
    t.not(store.load('u1'), undefined)
    t.not(store.load('u3'), undefined)
    store.save({ id: 'anon', data: {} }, 60)
    t.equal(store.size, 2)
    t.equal(
      store.load('u1'),
      undefined,
      'a new anonymous session may still evict a signed-in one when none else is left',
    )
    t.not(store.load('u3'), undefined)
    t.not(store.load('anon'), undefined)
  })

  t.test('moves a session between the tiers when it signs in and out', async (t) => {
    const { store } = clocked(2)
    store.save({ id: 'a', data: {} }, 60)
    store.save({ id: 'b', data: { n: '1' } }, 60)
    store.save({ id: 'a', data: { [SIGNED_IN_KEY]: '1' } }, 60) // a signs in
    t.equal(store.size, 2, 'moving is not a new entry')
    store.load('b') // a is now the least recently used of all
    store.save({ id: 'c', data: {} }, 60)
    t.equal(store.size, 2)
    t.equal(store.load('b'), undefined, 'the anonymous one went, though it was used after a')
    t.same(store.load('a'), { id: 'a', data: { [SIGNED_IN_KEY]: '1' } })
    store.destroy('c')
    store.save({ id: 'u', data: { [SIGNED_IN_KEY]: '2' } }, 60)
    store.load('a')
    store.save({ id: 'a', data: { n: '2' } }, 60) // a signs out, u is the least recently used of all
    t.equal(store.size, 2)
    store.save({ id: 'e', data: { [SIGNED_IN_KEY]: '3' } }, 60)
    t.equal(store.size, 2)
    t.equal(store.load('a'), undefined, 'signed out, a is anonymous and goes first')
    t.not(store.load('u'), undefined)
    t.not(store.load('e'), undefined)
    store.destroy('u')
    store.destroy('e')
    t.equal(store.size, 0, 'destroy forgets a session of either tier')
  })

  t.test('never holds more than max_entries, whatever the mix', async (t) => {
    const { store } = clocked(4)
    for (let i = 0; i < 200; i++) {
      const id = `s${i % 7}`
      const signed = (i * 7919) % 3 === 0
      store.save({ id, data: signed ? { [SIGNED_IN_KEY]: String(i) } : { n: String(i) } }, 60)
      if (i % 5 === 0) store.destroy(`s${(i + 3) % 7}`)
      if (i % 11 === 0) store.save({ id: `fresh${i}`, data: {} }, 60)
      t.ok(store.size <= 4, `size ${store.size} at step ${i}`)
    }
    t.equal(store.size, 4)
  })

  t.test('expires and renews sessions of both tiers as before', async (t) => {
    const { store, clock } = clocked(3)
    store.save({ id: 'user', data: { [SIGNED_IN_KEY]: '1' } }, 60)
    store.save({ id: 'anon', data: {} }, 60)
    clock.now += 30_000
    store.touch('user', 60)
    store.touch('anon', 60)
    clock.now += 59_999
    t.not(store.load('user'), undefined)
    t.not(store.load('anon'), undefined)
    clock.now += 1
    t.equal(store.load('user'), undefined)
    t.equal(store.load('anon'), undefined)
    t.equal(store.size, 0, 'expired sessions of both tiers are dropped when read')
    store.save({ id: 'user', data: { [SIGNED_IN_KEY]: '1' } }, 60)
    clock.now += 60_000
    store.touch('user', 60)
    t.equal(store.load('user'), undefined, 'touch does not revive an expired session')
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
