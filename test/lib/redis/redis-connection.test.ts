import t from 'tap'
import { Cluster, Redis, ReplyError } from 'ioredis'
import { FwError } from '../../../lib/errors.js'
import {
  create_redis_client,
  FAIL_FAST_OPTIONS,
  RedisCacheStore,
  RedisRateLimitStore,
  RedisRoomBus,
  RedisSessionStore,
} from '../../../lib/redis/index.js'
import { RedisConnection } from '../../../lib/redis/redis-connection.js'
import { start_redis } from '../../helpers/redis-server.js'

t.test('create_redis_client', async (t) => {
  t.test('applies the fail-fast settings under the given options, lazily connecting only if asked', async (t) => {
    const redis = create_redis_client({ host: '127.0.0.1', port: 1, commandTimeout: 250, lazyConnect: true })
    t.teardown(() => redis.disconnect())
    t.equal(redis.options.commandTimeout, 250)
    t.equal(redis.options.maxRetriesPerRequest, FAIL_FAST_OPTIONS.maxRetriesPerRequest)
    t.equal(redis.options.connectTimeout, FAIL_FAST_OPTIONS.connectTimeout)
    t.same(
      [1, 5, 30].map((n) => redis.options.retryStrategy!(n)),
      [100, 500, 1000],
      'reconnects forever, at most a second apart',
    )
    t.equal(redis.status, 'wait')
  })

  t.test('takes a redis:// URL and listens to its own error events', async (t) => {
    const server = await start_redis(t)
    const redis = create_redis_client(server.url)
    t.teardown(() => redis.disconnect())
    t.equal(await redis.ping(), 'PONG')
    t.equal(redis.options.commandTimeout, FAIL_FAST_OPTIONS.commandTimeout)
    t.equal(redis.listenerCount('error'), 1, 'connection errors never become an unheard error event')
  })
})

t.test('RedisConnection.run', async (t) => {
  const conn = new RedisConnection('TestStore', { client: { host: '127.0.0.1', port: 1, lazyConnect: true } })
  t.teardown(() => conn.close())
  const fails = (err: unknown) => conn.run('op', () => Promise.reject(err))

  t.test('answers what the call answers', async (t) => {
    t.equal(await conn.run('op', async () => 42), 42)
  })

  t.test(
    'maps replies that a retry would fix, and failures without a reply, to FW_ERR_REDIS_UNAVAILABLE (503)',
    async (t) => {
      for (const reason of [
        'LOADING Redis is loading the dataset in memory',
        "READONLY You can't write against a read only replica.",
        'MASTERDOWN Link with MASTER is down',
        'BUSY Redis is busy running a script',
        "OOM command not allowed when used memory > 'maxmemory'.",
      ]) {
        await t.rejects(fails(new ReplyError(reason)), {
          code: 'FW_ERR_REDIS_UNAVAILABLE',
          status: 503,
          message: `TestStore.op: Redis is unavailable (${reason})`,
        })
      }
      await t.rejects(fails(new Error('Command timed out')), {
        code: 'FW_ERR_REDIS_UNAVAILABLE',
        message: 'TestStore.op: Redis is unavailable (Command timed out)',
      })
      await t.rejects(fails('down'), {
        code: 'FW_ERR_REDIS_UNAVAILABLE',
        message: 'TestStore.op: Redis is unavailable (down)',
      })
    },
  )

  t.test('maps other replies to FW_ERR_REDIS_COMMAND_FAILED (500), keeping the cause', async (t) => {
    const cause = new ReplyError('ERR Error running script')
    const err = await fails(cause).catch((e: unknown) => e)
    t.ok(err instanceof FwError)
    t.match(err, {
      code: 'FW_ERR_REDIS_COMMAND_FAILED',
      status: 500,
      message: 'TestStore.op: Redis refused the command (ERR Error running script)',
    })
    t.equal((err as FwError).cause, cause)
  })
})

t.test('RedisConnection.close', async (t) => {
  t.test('quits a client it made and leaves one passed in open', async (t) => {
    const server = await start_redis(t)
    const given = new Redis(server.port, '127.0.0.1')
    t.teardown(() => given.disconnect())
    const borrowed = new RedisConnection('S', { client: given })
    const owned = new RedisConnection('S', { client: server.url })
    t.equal(await owned.client.ping(), 'PONG')
    await owned.close()
    await borrowed.close()
    t.equal(owned.client.status, 'end')
    t.equal(await given.ping(), 'PONG')
    await owned.close()
  })
})

t.test('every fw/redis store, the room bus and create_redis_client', async (t) => {
  const makers: Array<[string, (client: string) => { close(): Promise<void> } | Redis]> = [
    ['RedisSessionStore', (client) => new RedisSessionStore({ client })],
    ['RedisCacheStore', (client) => new RedisCacheStore({ client })],
    ['RedisRateLimitStore', (client) => new RedisRateLimitStore({ client })],
    ['RedisRoomBus', (client) => new RedisRoomBus({ client })],
    ['create_redis_client', (client) => create_redis_client(client)],
  ]
  t.test('refuse a URL that is not redis:// or rediss://, without quoting its password', async (t) => {
    const bad: Array<[string, string]> = [
      ['http://user:Pw-Secret-123@127.0.0.1:6379/', '"http://***@127.0.0.1:6379/"'],
      ['https://127.0.0.1:6379', '"https://127.0.0.1:6379"'],
      ['unix://:Pw-Secret-123@/tmp/redis.sock', 'a string of 37 characters'],
      ['Pw-Secret-123', 'a string of 13 characters'],
    ]
    for (const [name, make] of makers) {
      const option = name === 'create_redis_client' ? 'options' : 'client'
      for (const [url, quoted] of bad) {
        t.throws(() => make(url), {
          code: 'FW_ERR_REDIS_BAD_OPTION',
          message: `${name}: ${option} must be an ioredis client, connection options or a redis:// or rediss:// URL; got ${quoted}`,
        })
      }
    }
  })

  t.test('refuse a prefix holding any control character, as their message says', async (t) => {
    const stores: Array<[string, (prefix: string) => unknown]> = [
      ['RedisSessionStore', (prefix) => new RedisSessionStore({ client: 'redis://127.0.0.1:1', prefix })],
      ['RedisCacheStore', (prefix) => new RedisCacheStore({ client: 'redis://127.0.0.1:1', prefix })],
      ['RedisRateLimitStore', (prefix) => new RedisRateLimitStore({ client: 'redis://127.0.0.1:1', prefix })],
      ['RedisRoomBus', (prefix) => new RedisRoomBus({ client: 'redis://127.0.0.1:1', prefix })],
    ]
    for (const [name, make] of stores) {
      for (const [prefix, quoted] of [
        ['a\x01b:', '"a\\u0001b:"'],
        ['a\x1b[31m:', '"a\\u001b[31m:"'],
        ['a\x7fb:', '"a\x7fb:"'],
        ['a\u0085b:', '"a\u0085b:"'],
      ]) {
        t.throws(() => make(prefix!), {
          code: 'FW_ERR_REDIS_BAD_OPTION',
          message: `${name}: prefix must be a string without spaces or control characters; got ${quoted}`,
        })
      }
    }
  })

  t.test(
    'refuse a client of another kind (a Cluster, a foreign copy of ioredis) instead of reading it as options',
    async (t) => {
      // Spread as connection options, such an object has no host or port of its own: the store would quietly make a
      // client of localhost:6379, not share the intended Redis, and never say so.
      const cluster = new Cluster([{ host: '10.0.0.5', port: 6379 }], { lazyConnect: true })
      t.teardown(() => cluster.disconnect())
      class ForeignRedis {
        options = { host: '10.0.0.5', port: 6379 }
        status = 'ready'
        get(): void {}
      }
      for (const [name, make] of makers) {
        const option = name === 'create_redis_client' ? 'options' : 'client'
        for (const [kind, client] of [
          ['a Cluster', cluster],
          ['a foreign Redis', new ForeignRedis()],
        ] as const) {
          let made: ReturnType<typeof make>
          try {
            made = make(client as unknown as string)
          } catch (err) {
            t.match(err, {
              code: 'FW_ERR_REDIS_BAD_OPTION',
              message: `${name}: ${option} must be an ioredis client, connection options or a redis:// or rediss:// URL; got an object`,
            })
            continue
          }
          t.fail(`${name} took ${kind} as connection options`)
          if (made instanceof Redis) made.disconnect()
          else await made.close()
        }
      }
    },
  )

  t.test('take a redis:// or rediss:// URL', async (t) => {
    for (const [name, make] of makers) {
      for (const url of ['redis://:pw@127.0.0.1:1/0', 'rediss://127.0.0.1:1']) {
        const made = make(url)
        t.pass(`${name} takes ${url.split(':')[0]}`)
        if (made instanceof Redis) made.disconnect()
        else await made.close()
      }
    }
  })
})
