import t from 'tap'
import { Cache } from '../../../lib/cache/cache.js'
import { CacheContext } from '../../../lib/cache/cache-context.js'
import { CacheEntry } from '../../../lib/cache/cache-entry.js'
import { CachePolicy } from '../../../lib/cache/cache-policy.js'
import type { CacheStore, EntryPredicate } from '../../../lib/cache/cache-store.js'
import { ERR_CACHE_BAD_ENTRY, ERR_CACHE_BAD_OPTION, ERR_CACHE_BAD_TIME } from '../../../lib/cache/errors.js'
import { LruMemoryStore } from '../../../lib/cache/lru-memory-store.js'
import { MemoryStore } from '../../../lib/cache/memory-store.js'
import { THENABLE_KINDS } from '../../helpers/thenable.js'

/** A store that answers every call in a later microtask, recording the calls, as a network store would. */
class AsyncMapStore implements CacheStore {
  readonly map = new Map<string, CacheEntry>()
  readonly calls: string[] = []
  async put(key: string, entry: CacheEntry): Promise<void> {
    await null
    this.calls.push(`put ${key}`)
    this.map.set(key, entry)
  }
  async get(key: string): Promise<CacheEntry | undefined> {
    await null
    this.calls.push(`get ${key}`)
    return this.map.get(key)
  }
  async erase(key: string): Promise<void> {
    this.map.delete(key)
  }
  async clear(): Promise<void> {
    this.map.clear()
  }
}

class AsyncStoreWithEraseIf extends AsyncMapStore {
  async eraseIf(pred: EntryPredicate): Promise<number> {
    await null
    const keys = [...this.map].filter(([k, e]) => pred(k, e)).map(([k]) => k)
    for (const k of keys) this.map.delete(k)
    return keys.length
  }
}

const policy = new CachePolicy({ ttl_ms: 100, stale_if_offline_ms: 1000, stale_if_error_ms: 500 })
const both = new CacheContext({ offline: true, network_error: true })

function cache_with(entry_age_ms: number, p: CachePolicy = policy): Cache<MemoryStore> {
  const cache = new Cache(p, new MemoryStore())
  cache.put('k', { body: 'b', created_at_ms: 10_000 - entry_age_ms })
  return cache
}

t.test('Cache.get', async (t) => {
  t.test('row 1: answers undefined when no entry is stored under the key', async (t) => {
    const cache = new Cache(policy, new MemoryStore())
    for (const ctx of [CacheContext.Online(), CacheContext.Offline(), CacheContext.NetworkError(), both]) {
      t.equal(cache.get('missing', 0, ctx), undefined)
    }
  })

  t.test('row 2: answers a fresh entry in every context, up to ttl_ms - 1', async (t) => {
    for (const ctx of [CacheContext.Online(), CacheContext.Offline(), CacheContext.NetworkError(), both]) {
      t.equal(cache_with(0).get('k', 10_000, ctx)?.body, 'b')
      t.equal(cache_with(99).get('k', 10_000, ctx)?.body, 'b')
    }
    t.equal(cache_with(100).get('k', 10_000, CacheContext.Online()), undefined)
  })

  const STALE_ROWS = [
    {
      row: 3,
      when: 'offline while offline reuse',
      ctx: CacheContext.Offline,
      window: 'stale_if_offline_ms',
      flag: 'allow_stale_if_offline',
      w: 1000,
    },
    {
      row: 4,
      when: 'after a network error while error reuse',
      ctx: CacheContext.NetworkError,
      window: 'stale_if_error_ms',
      flag: 'allow_stale_if_error',
      w: 500,
    },
  ] as const
  for (const { row, when, ctx, window, flag, w } of STALE_ROWS) {
    t.test(`row ${row}: answers a stale entry ${when} allows its age`, async (t) => {
      t.equal(cache_with(100).get('k', 10_000, ctx())?.body, 'b')
      t.equal(cache_with(w - 1).get('k', 10_000, ctx())?.body, 'b')
      t.equal(cache_with(w).get('k', 10_000, ctx()), undefined)
      const disabled = new CachePolicy({ ttl_ms: 100, [window]: w, [flag]: false })
      t.equal(cache_with(100, disabled).get('k', 10_000, ctx()), undefined)
    })
  }

  t.test('row 5: answers undefined for a stale entry online, or beyond every window', async (t) => {
    t.equal(cache_with(100).get('k', 10_000, CacheContext.Online()), undefined)
    t.equal(cache_with(100).get('k', 10_000), undefined, 'the context defaults to online')
    t.equal(cache_with(700).get('k', 10_000, CacheContext.NetworkError()), undefined)
    t.equal(cache_with(1000).get('k', 10_000, both), undefined)
  })

  t.test('applies either stale window when offline and a network error hold together', async (t) => {
    t.equal(cache_with(999).get('k', 10_000, both)?.body, 'b', 'the offline window is the longer one here')
    const error_longer = new CachePolicy({ ttl_ms: 100, stale_if_offline_ms: 200, stale_if_error_ms: 500 })
    t.equal(cache_with(499, error_longer).get('k', 10_000, both)?.body, 'b')
  })

  t.test('serves an entry slightly from the future (clock skew) as fresh and never one aged NaN', async (t) => {
    t.equal(cache_with(-99).get('k', 10_000)?.body, 'b')
    t.equal(cache_with(0).get('k', NaN, both), undefined)
  })

  t.test(
    'serves no entry stamped further ahead than the window, so a clock that went back makes none immortal',
    async (t) => {
      // Written while the clock ran a day ahead, then NTP set it back: it used to be fresh for the whole day to come.
      t.equal(cache_with(-86_400_000).get('k', 10_000), undefined)
      t.equal(cache_with(-86_400_000).get('k', 10_000, both), undefined)
      t.equal(cache_with(-100).get('k', 10_000), undefined, 'ttl_ms ahead is outside the ttl, as ttl_ms old is')
      t.equal(cache_with(-999).get('k', 10_000, CacheContext.Offline())?.body, 'b', 'inside the offline window')
      t.equal(cache_with(0).get('k', -Infinity, both), undefined, 'a now_ms of -Infinity serves nothing')
    },
  )

  t.test('keeps a stale entry in the store, so a later offline get can still use it', async (t) => {
    const cache = cache_with(200)
    t.equal(cache.get('k', 10_000), undefined)
    t.equal(cache.store.size, 1)
    t.equal(cache.get('k', 10_000, CacheContext.Offline())?.body, 'b')
  })
})

t.test('Cache.put', async (t) => {
  t.test('stores a frozen CacheEntry with lowercased header names, the later case variant winning', async (t) => {
    const store = new MemoryStore()
    const cache = new Cache(policy, store)
    cache.put('k', {
      status: 201,
      body: 'x',
      headers: { 'Content-Type': 'a', 'content-type': 'b', ETag: 'e' },
      created_at_ms: 1,
    })
    const e = store.get('k')!
    t.type(e, CacheEntry)
    t.strictSame({ ...e }, { status: 201, body: 'x', headers: { 'content-type': 'b', etag: 'e' }, created_at_ms: 1 })
    t.equal(Object.isFrozen(e), true)
  })

  t.test('stores a CacheEntry instance as it is and replaces an older one', async (t) => {
    const store = new MemoryStore()
    const cache = new Cache(policy, store)
    const first = new CacheEntry({ body: '1', created_at_ms: 1 })
    const second = new CacheEntry({ body: '2', created_at_ms: 2 })
    cache.put('k', first)
    t.equal(store.get('k'), first)
    cache.put('k', second)
    t.equal(store.get('k'), second)
    t.equal(store.size, 1)
  })

  t.test('rejects a bad entry before touching the store', async (t) => {
    const store = new MemoryStore()
    t.throws(() => new Cache(policy, store).put('k', { status: 42, created_at_ms: 0 }), {
      code: ERR_CACHE_BAD_ENTRY.code,
    })
    t.equal(store.size, 0)
  })
})

t.test('Cache.prune', async (t) => {
  t.test('removes entries at or past the largest useful age and keeps younger ones', async (t) => {
    const store = new LruMemoryStore()
    const cache = new Cache(policy, store)
    for (const age of [0, 100, 999, 1000, 5000]) cache.put(`age ${age}`, { created_at_ms: 10_000 - age })
    cache.put('future', { created_at_ms: 10_999 })
    t.equal(cache.prune(10_000), 2)
    t.same(
      ['age 0', 'age 100', 'age 999', 'age 1000', 'age 5000', 'future'].map((k) => store.get(k) !== undefined),
      [true, true, true, false, false, true],
    )
  })

  t.test('removes an entry stamped further ahead than the largest useful age (a clock that went back)', async (t) => {
    const store = new LruMemoryStore()
    const cache = new Cache(policy, store)
    cache.put('a day ahead', { created_at_ms: 10_000 + 86_400_000 })
    cache.put('1000 ms ahead', { created_at_ms: 11_000 })
    cache.put('999 ms ahead', { created_at_ms: 10_999 })
    t.equal(cache.prune(10_000), 2)
    t.equal(store.get('999 ms ahead') !== undefined, true)
    t.equal(store.size, 1)
  })

  t.test('uses only the enabled stale windows', async (t) => {
    const p = new CachePolicy({
      ttl_ms: 100,
      stale_if_offline_ms: 1000,
      stale_if_error_ms: 500,
      allow_stale_if_offline: false,
    })
    const store = new LruMemoryStore()
    const cache = new Cache(p, store)
    for (const age of [499, 500]) cache.put(`age ${age}`, { created_at_ms: 10_000 - age })
    t.equal(cache.prune(10_000), 1)
    t.equal(store.size, 1)
    t.not(store.get('age 499'), undefined)
  })

  t.test('removes an entry whose creation time cannot be read, which nothing could serve', async (t) => {
    const store = new LruMemoryStore()
    store.put('broken', { status: 200, body: '', headers: {}, created_at_ms: NaN })
    t.equal(new Cache(policy, store).prune(10_000), 1)
    t.equal(store.size, 0)
  })

  t.test('returns 0 on a store without eraseIf and leaves it as it was', async (t) => {
    const store = new MemoryStore()
    const cache = new Cache(policy, store)
    cache.put('old', { created_at_ms: 0 })
    t.equal(cache.prune(1e9), 0)
    t.equal(store.size, 1)
  })

  t.test('refuses a non-finite now_ms instead of clearing the store', async (t) => {
    const cache = new Cache(policy, new LruMemoryStore())
    for (const now of [NaN, Infinity]) {
      t.throws(() => cache.prune(now), {
        code: ERR_CACHE_BAD_TIME.code,
        message: `Cache.prune: now_ms must be a finite number of milliseconds; got ${now}`,
      })
    }
  })
})

t.test('Cache', async (t) => {
  t.test('takes policy options in place of a CachePolicy', async (t) => {
    const cache = new Cache({ ttl_ms: 5 }, new MemoryStore())
    t.type(cache.policy, CachePolicy)
    t.equal(cache.policy.ttl_ms, 5)
    t.throws(() => new Cache({ ttl_ms: -1 }, new MemoryStore()), { code: ERR_CACHE_BAD_OPTION.code })
  })

  t.test('refuses a store that lacks a method', async (t) => {
    const bad = { put() {}, get() {}, erase() {} } as unknown as MemoryStore
    t.throws(() => new Cache(policy, bad), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'Cache: store.clear must be a function; got undefined',
    })
  })

  t.test('answers with promises over an async store, following the same rule', async (t) => {
    const store = new AsyncMapStore()
    const cache = new Cache(policy, store)
    const put = cache.put('k', { body: 'b', created_at_ms: 1000 })
    t.type(put, Promise)
    t.equal(await put, undefined)
    const fresh = cache.get('k', 1050)
    t.type(fresh, Promise)
    t.equal((await fresh)?.body, 'b')
    t.equal(await cache.get('k', 1200), undefined)
    t.equal((await cache.get('k', 1200, CacheContext.Offline()))?.body, 'b')
    t.equal((await cache.get('k', 1499, CacheContext.NetworkError()))?.body, 'b')
    t.equal(await cache.get('k', 1500, CacheContext.NetworkError()), undefined)
    t.equal(await cache.get('nothing', 1000), undefined)
    t.same(store.calls, ['put k', 'get k', 'get k', 'get k', 'get k', 'get k', 'get nothing'])
  })

  t.test('follows a store answering thenables that are not native promises, as an async one', async (t) => {
    // A store over a promise library (Bluebird), a lazy query builder (knex runs its query when awaited) or another
    // realm's promises: `instanceof Promise` is false for each answer.
    for (const [name, wrap] of Object.entries(THENABLE_KINDS)) {
      const map = new Map<string, CacheEntry>()
      const store = {
        put: (key: string, entry: CacheEntry) => wrap(() => void map.set(key, entry)),
        get: (key: string) => wrap(() => map.get(key)),
        erase: (key: string) => wrap(() => void map.delete(key)),
        clear: () => wrap(() => map.clear()),
      } as unknown as Required<CacheStore>
      const cache = new Cache(policy, store)
      const put = cache.put('k', { body: 'b', created_at_ms: 1000 })
      t.type(put, Promise, `${name}: put answers a native promise`)
      t.equal(await put, undefined)
      t.equal(map.get('k')?.body, 'b', `${name}: the entry is stored once put settled`)
      const got = cache.get('k', 1050)
      t.type(got, Promise, `${name}: get answers a native promise`)
      t.equal((await got)?.body, 'b', `${name}: get answers the stored entry`)
      t.equal(await cache.get('k', 1200), undefined, `${name}: and still judges it (stale online)`)
      t.equal(await cache.get('nothing', 1000), undefined)
      store.eraseIf = (pred: EntryPredicate) =>
        wrap(() => [...map].filter(([k, e]) => pred(k, e) && map.delete(k)).length)
      const pruned = cache.prune(1_000_000)
      t.type(pruned, Promise, `${name}: prune answers a native promise`)
      t.equal(await pruned, 1, `${name}: with the count the store answered`)
      t.equal(map.size, 0)
    }
  })

  t.test('prunes an async store through its eraseIf, and answers 0 at once without one', async (t) => {
    const store = new AsyncStoreWithEraseIf()
    const cache = new Cache(policy, store)
    await cache.put('old', { created_at_ms: 0 })
    await cache.put('new', { created_at_ms: 9_500 })
    const pruned = cache.prune(10_000)
    t.type(pruned, Promise)
    t.equal(await pruned, 1)
    t.same([...store.map.keys()], ['new'])
    t.equal(cache_with_async().prune(10_000), 0)
  })

  t.test('follows each call of a store that answers some calls at once and others later', async (t) => {
    const store = new AsyncMapStore()
    const sync_put = (key: string, entry: CacheEntry): void => void store.map.set(key, entry)
    store.put = sync_put as AsyncMapStore['put']
    const cache = new Cache<CacheStore>(policy, store)
    t.equal(cache.put('k', { body: 'b', created_at_ms: 0 }), undefined)
    const got = cache.get('k', 10)
    t.type(got, Promise)
    t.equal((await got)?.body, 'b')
  })

  t.test('passes on a throw of a store that fails at once, and a rejection of one that fails later', async (t) => {
    const store = new AsyncMapStore()
    const cache = new Cache(policy, store)
    store.get = () => {
      throw new Error('connection lost')
    }
    t.throws(() => cache.get('k', 0), { message: 'connection lost' })
    store.get = () => Promise.reject(new Error('timed out'))
    await t.rejects(cache.get('k', 0), { message: 'timed out' })
  })

  t.test('types results as values for a sync store, promises for an async one, and either for any store', async (t) => {
    const sync_cache = new Cache(policy, new MemoryStore())
    const value: CacheEntry | undefined = sync_cache.get('k', 0)
    const count: number = sync_cache.prune(0)
    const written: void = sync_cache.put('k', { created_at_ms: 0 })
    const async_cache = new Cache(policy, new AsyncStoreWithEraseIf())
    const later: Promise<CacheEntry | undefined> = async_cache.get('k', 0)
    const pruned: Promise<number> = async_cache.prune(0)
    // @ts-expect-error an async store's get is not a plain value
    const wrong: CacheEntry | undefined = async_cache.get('k', 0)
    const any_cache: Cache = async_cache
    // @ts-expect-error any store's prune may be a promise
    const unknown_count: number = any_cache.prune(0)
    const either = await any_cache.get('k', 0)
    t.same(
      [value, count, written, await later, await pruned, await wrong, await unknown_count, either],
      [undefined, 0, undefined, undefined, 0, undefined, 0, undefined],
    )
  })
})

function cache_with_async(): Cache<AsyncMapStore> {
  return new Cache(policy, new AsyncMapStore())
}
