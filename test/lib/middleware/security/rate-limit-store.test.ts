import t from 'tap'
import { MemoryRateLimitStore, window_start } from '../../../../lib/middleware/security/rate-limit-store.js'

t.test('MemoryRateLimitStore.hit', async (t) => {
  t.test('counts hits of a key in the current window, aligned to multiples of the window', async (t) => {
    const store = new MemoryRateLimitStore()
    t.same(store.hit('a', 12_345, 10_000), { current: 1, previous: 0, window_start_ms: 10_000 })
    t.same(store.hit('a', 19_999, 10_000), { current: 2, previous: 0, window_start_ms: 10_000 })
    t.same(store.hit('b', 19_999, 10_000), { current: 1, previous: 0, window_start_ms: 10_000 })
  })

  t.test('moves the count to previous when the next window starts', async (t) => {
    const store = new MemoryRateLimitStore()
    for (let i = 0; i < 3; i++) store.hit('a', 5_000, 10_000)
    t.same(store.hit('a', 10_000, 10_000), { current: 1, previous: 3, window_start_ms: 10_000 })
    t.same(store.hit('a', 15_000, 10_000), { current: 2, previous: 3, window_start_ms: 10_000 })
  })

  t.test('forgets counts older than the previous window', async (t) => {
    const store = new MemoryRateLimitStore()
    for (let i = 0; i < 3; i++) store.hit('a', 5_000, 10_000)
    t.same(store.hit('a', 20_000, 10_000), { current: 1, previous: 0, window_start_ms: 20_000 })
  })

  t.test('stays bounded under many distinct keys, dropping the least recently hit', async (t) => {
    const store = new MemoryRateLimitStore({ max_keys: 100 })
    store.hit('keep', 0, 60_000)
    for (let i = 0; i < 10_000; i++) {
      store.hit(`ip:10.${i >> 8}.${i & 255}.1`, 0, 60_000)
      if (i % 50 === 0) store.hit('keep', 0, 60_000)
    }
    t.equal(store.size, 100)
    t.equal(store.hit('keep', 0, 60_000).current, 202, 'a key hit often stays')
    t.equal(store.hit('ip:10.0.0.1', 0, 60_000).current, 1, 'an early key was dropped and starts again')
  })

  t.test('throws at creation for a bad max_keys', async (t) => {
    t.throws(() => new MemoryRateLimitStore({ max_keys: 0 }), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'MemoryRateLimitStore: max_keys must be an integer >= 1; got 0',
    })
  })
})

t.test('window_start', async (t) => {
  t.test('rounds down to a multiple of the window', async (t) => {
    t.equal(window_start(0, 1000), 0)
    t.equal(window_start(999, 1000), 0)
    t.equal(window_start(1000, 1000), 1000)
    t.equal(window_start(1_700_000_012_345, 60_000), 1_699_999_980_000)
  })
})
