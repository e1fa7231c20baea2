import t from 'tap'
import { Cache, CacheEntry, CachePolicy } from '../../../lib/cache/index.js'
import { create_redis_client, RedisCacheStore } from '../../../lib/redis/index.js'
import { free_port, start_redis } from '../../helpers/redis-server.js'
import { client } from './setup.js'

const entry = (created_at_ms: number, body = 'hello') =>
  new CacheEntry({ status: 203, body, headers: { 'content-type': 'text/plain' }, created_at_ms })

t.test('RedisCacheStore', async (t) => {
  const server = await start_redis(t)
  const redis = client(t, server.port)
  let n = 0
  /** A store on its own prefix, so subtests never share entries. */
  const fresh = (prefix = `c${++n}:`) => new RedisCacheStore({ client: redis, prefix })

  t.test('puts and gets an entry as JSON under <prefix>cache:<key>', async (t) => {
    const store = fresh('one:')
    await store.put('GET /a?x=1', entry(1234))
    t.equal(
      await redis.get('one:cache:GET /a?x=1'),
      '{"status":203,"body":"hello","headers":{"content-type":"text/plain"},"created_at_ms":1234}',
    )
    const got = await store.get('GET /a?x=1')
    t.ok(got instanceof CacheEntry && Object.isFrozen(got))
    t.same(got, entry(1234))
    t.equal(await store.get('GET /b?'), undefined)
    t.type(store.get('k'), Promise)
  })

  t.test('replaces an entry and erases one key', async (t) => {
    const store = fresh()
    await store.put('k', entry(1, 'first'))
    await store.put('k', entry(2, 'second'))
    t.equal((await store.get('k'))?.body, 'second')
    await store.put('other', entry(3))
    await store.erase('k')
    t.equal(await store.get('k'), undefined)
    t.equal((await store.get('other'))?.body, 'hello')
    await store.erase('k')
  })

  t.test('reads a stored text that is not an entry as none', async (t) => {
    const store = fresh()
    for (const bad of [
      'nope',
      '[]',
      '{"body":"x"}',
      '{"status":99,"created_at_ms":1}',
      '{"created_at_ms":1,"headers":{"a":1}}',
    ]) {
      await redis.set(store.key('bad'), bad)
      t.equal(await store.get('bad'), undefined, bad)
    }
  })

  t.test('clears only its own entries, in batches, even with glob characters in its prefix', async (t) => {
    const store = fresh('g*[x]?:')
    const near = fresh('gA[x]?:')
    for (let i = 0; i < 1200; i++) await store.put(`k${i}`, entry(i))
    await near.put('k1', entry(1))
    await redis.set('g*[x]?:sess:s1', '{}')
    await store.clear()
    t.equal((await redis.keys('g\\*\\[x\\]\\?:cache:*')).length, 0)
    t.equal((await near.get('k1'))?.created_at_ms, 1, 'a prefix the unescaped glob would match keeps its entry')
    t.equal(await redis.get('g*[x]?:sess:s1'), '{}', 'keys outside the cache stay')
  })

  t.test('eraseIf removes the entries the predicate picks and unreadable texts, and counts them', async (t) => {
    const store = fresh()
    for (let i = 0; i < 10; i++) await store.put(`k${i}`, entry(i * 100))
    await redis.set(store.key('junk'), 'not an entry')
    const seen: string[] = []
    const removed = await store.eraseIf((key, e) => {
      seen.push(key)
      return e.created_at_ms >= 500
    })
    t.equal(removed, 6, 'k5..k9 and the junk')
    t.same(seen.sort(), ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9'])
    t.same(
      (await redis.keys(store.key('*'))).sort(),
      ['k0', 'k1', 'k2', 'k3', 'k4'].map((k) => store.key(k)),
    )
  })

  t.test('clears and eraseIf-s its entries through a client with ioredis keyPrefix, and only those', async (t) => {
    const prefixed = create_redis_client({ host: '127.0.0.1', port: server.port, keyPrefix: 'kp*:' })
    t.teardown(() => prefixed.disconnect())
    const store = new RedisCacheStore({ client: prefixed, prefix: 'p:' })
    for (const k of ['a', 'b', 'c']) await store.put(k, entry(k === 'a' ? 1 : 2))
    await redis.set('kp*:p:cache:junk', 'not an entry')
    await redis.set('kpX:p:cache:a', 'another keyPrefix')
    t.same((await redis.keys('kp\\*:p:cache:*')).sort(), [
      'kp*:p:cache:a',
      'kp*:p:cache:b',
      'kp*:p:cache:c',
      'kp*:p:cache:junk',
    ])
    const seen: string[] = []
    const removed = await store.eraseIf((key, e) => {
      seen.push(key)
      return e.created_at_ms === 1
    })
    t.equal(removed, 2, 'a and the junk')
    t.same(seen.sort(), ['a', 'b', 'c'])
    t.same((await redis.keys('kp\\*:p:cache:*')).sort(), ['kp*:p:cache:b', 'kp*:p:cache:c'])
    await store.clear()
    t.same(await redis.keys('kp\\*:p:cache:*'), [])
    t.equal(await redis.get('kpX:p:cache:a'), 'another keyPrefix', 'a key the unescaped glob would match stays')
  })

  t.test('eraseIf lets an error of the predicate through as it is, not as Redis unavailable', async (t) => {
    const store = fresh()
    for (const k of ['a', 'b']) await store.put(k, entry(1))
    const bug = new TypeError('predicate bug')
    const err = await store
      .eraseIf(() => {
        throw bug
      })
      .catch((e: unknown) => e)
    t.equal(err, bug, "the predicate's own error, not FW_ERR_REDIS_UNAVAILABLE (503, an outage)")
    t.same((await redis.keys(store.key('*'))).sort(), [store.key('a'), store.key('b')], 'nothing was erased')
  })

  t.test('eraseIf keeps an entry replaced between its read and its removal', async (t) => {
    const store = fresh()
    await store.put('k', entry(1, 'old'))
    const removed = await store.eraseIf(() => {
      void redis.set(store.key('k'), JSON.stringify({ status: 200, body: 'new', headers: {}, created_at_ms: 2 }))
      return true
    })
    t.equal(removed, 0)
    t.equal((await store.get('k'))?.body, 'new')
  })

  t.test('lets Redis drop entries expire_after_ms after their put', async (t) => {
    const store = new RedisCacheStore({ client: redis, prefix: 'exp:', expire_after_ms: 90_000 })
    await store.put('k', entry(1))
    const pttl = await redis.pttl('exp:cache:k')
    t.ok(pttl > 89_000 && pttl <= 90_000, `PTTL ${pttl}`)
    await fresh('noexp:').put('k', entry(1))
    t.equal(await redis.pttl('noexp:cache:k'), -1, 'kept until erased by default')
  })

  t.test('serves the Cache facade: lowercased headers, the decision rule and prune', async (t) => {
    const cache = new Cache(new CachePolicy({ ttl_ms: 1000, stale_if_error_ms: 5000, stale_if_offline_ms: 0 }), fresh())
    await cache.put('GET /a?', { body: 'a', headers: { 'Content-Type': 'text/plain' }, created_at_ms: 10_000 })
    await cache.put('GET /old?', { body: 'old', created_at_ms: 0 })
    t.same((await cache.get('GET /a?', 10_500))?.headers, { 'content-type': 'text/plain' })
    t.equal(await cache.get('GET /a?', 11_000), undefined, 'not fresh at 1000 ms')
    t.equal(await cache.prune(10_500), 1, 'the entry older than every window goes')
    t.equal(await cache.store.get('GET /old?'), undefined)
    t.equal((await cache.store.get('GET /a?'))?.body, 'a')
  })

  t.test('throws at creation for a bad expire_after_ms', async (t) => {
    t.throws(() => new RedisCacheStore({ client: redis, expire_after_ms: 0 }), {
      code: 'FW_ERR_REDIS_BAD_OPTION',
      message: 'RedisCacheStore: expire_after_ms must be an integer >= 1; got 0',
    })
  })
})

t.test('RedisCacheStore while Redis is down', async (t) => {
  const store = new RedisCacheStore({ client: { host: '127.0.0.1', port: await free_port(), commandTimeout: 200 } })
  t.teardown(() => store.close())

  t.test('rejects every operation with FW_ERR_REDIS_UNAVAILABLE, status 503', async (t) => {
    const calls: Record<string, () => Promise<unknown>> = {
      put: () => store.put('k', entry(1)),
      get: () => store.get('k'),
      erase: () => store.erase('k'),
      clear: () => store.clear(),
      eraseIf: () => store.eraseIf(() => true),
    }
    for (const [op, call] of Object.entries(calls)) {
      await t.rejects(
        call(),
        {
          code: 'FW_ERR_REDIS_UNAVAILABLE',
          status: 503,
          message: new RegExp(`^RedisCacheStore\\.${op}: Redis is unavailable`),
        },
        op,
      )
    }
  })
})
