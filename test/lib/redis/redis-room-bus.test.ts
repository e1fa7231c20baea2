// RedisRoomBus with two Apps on one real Redis: a broadcast reaches the room's sockets on both instances; with Redis
// down each instance keeps delivering to its own sockets and logs the outage; after Redis is back the bus carries
// again. Across reconnects: closing while the bus subscribes again leaves nothing behind, and a refused subscription is
// logged and tried again until it is accepted.
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { Redis, RedisOptions } from 'ioredis'
import type { App } from '../../../index.js'
import type { BusMessage } from '../../../lib/websocket/index.js'
import { create_redis_client, ERR_REDIS_BAD_OPTION, RedisRoomBus } from '../../../lib/redis/index.js'
import { listening, type Teardown } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'
import { start_redis } from '../../helpers/redis-server.js'
import { connect } from '../../helpers/ws.js'
import { redis_proxy } from './setup.js'

/** An App with `/ws/{room}` (join the room, broadcast each message to it but the sender) and a RedisRoomBus. */
async function instance(t: Teardown, url: string): Promise<{ app: App; port: number }> {
  const { app, port } = await listening(t, (app) =>
    app.ws('/ws/{room}', (ws, req) => {
      const room = req.param('room')
      ws.join(room)
      ws.on_message((m) => app.rooms.broadcast(room, m, { except: ws }))
    }),
  )
  await app.rooms.use_bus(
    new RedisRoomBus({ client: { host: '127.0.0.1', port: Number(new URL(url).port), commandTimeout: 300 } }),
  )
  return { app, port }
}

t.test('RedisRoomBus', async (t) => {
  const redis = await start_redis(t)
  const a = await instance(t, redis.url)
  const b = await instance(t, redis.url)

  t.test('carries a broadcast to the room on the other instance, once, without the sender', async (t) => {
    const sender = await connect(a.port, '/ws/lobby')
    const here = await connect(a.port, '/ws/lobby')
    const there = await connect(b.port, '/ws/lobby')
    const elsewhere = await connect(b.port, '/ws/other')
    sender.ws.send('hello')
    t.equal(await here.next(), 'hello')
    t.equal(await there.next(), 'hello')
    t.equal(await sender.poll(300), undefined, 'except reaches across instances')
    t.equal(await elsewhere.poll(300), undefined)
    t.equal(await there.poll(300), undefined, 'delivered once')
    there.ws.send(Buffer.from([0, 255]))
    t.same(await sender.next(), Buffer.from([0, 255]), 'binary stays binary')
    t.same(await here.next(), Buffer.from([0, 255]))
    for (const c of [sender, here, there, elsewhere]) c.ws.close()
  })

  t.test('keeps local delivery with Redis down, logs the outage, and carries again once Redis is back', async (t) => {
    const out = capture_log(t)
    const here = await connect(a.port, '/ws/lobby')
    const there = await connect(b.port, '/ws/lobby')
    await redis.kill()
    const started = Date.now()
    t.equal(a.app.rooms.broadcast('lobby', 'during the outage'), 1)
    t.equal(await here.next(), 'during the outage')
    t.ok(Date.now() - started < 200, 'local delivery does not wait for Redis')
    for (let i = 0; i < 100 && !out.text().includes('room bus unavailable'); i++)
      await new Promise((r) => setTimeout(r, 50))
    t.match(out.text(), /\[error\] room bus unavailable, broadcasting to this instance only .*Redis is unavailable/)
    t.equal(await there.poll(300), undefined)
    await redis.restart()
    let got: string | Buffer | undefined
    for (let i = 0; i < 40 && got === undefined; i++) {
      a.app.rooms.broadcast('lobby', `after ${i}`)
      got = await there.poll(250)
    }
    t.match(got, /^after \d+$/, 'the other instance hears again')
    t.match(out.text(), /\[info\] room bus available again/)
    here.ws.close()
    there.ws.close()
  })
})

t.test('RedisRoomBus across reconnects', async (t) => {
  const redis = await start_redis(t)
  const options = { host: '127.0.0.1', port: redis.port, commandTimeout: 300 }

  t.test('closes with nothing left over while it subscribes again after a reconnect', async (t) => {
    const rejections: unknown[] = []
    const heard = (err: unknown): void => void rejections.push(err)
    process.on('unhandledRejection', heard)
    t.teardown(() => process.off('unhandledRejection', heard))
    // The bus's subscriber is a duplicate of the client it is given: keep hold of each one made.
    const client = create_redis_client(options)
    t.teardown(() => client.quit())
    const subscribers: Redis[] = []
    const duplicate = client.duplicate.bind(client)
    client.duplicate = (override?: Partial<RedisOptions>) => {
      const made = duplicate(override)
      subscribers.push(made)
      return made
    }
    for (let i = 0; i < 3; i++) {
      const bus = new RedisRoomBus({ client })
      await bus.start(() => {})
      const subscriber = subscribers.at(-1)!
      await redis.restart()
      // 'ready' comes a tick after the connection is: SUBSCRIBE has been sent again and its answer is on its way.
      await once(subscriber, 'ready')
      await bus.close()
      t.equal(subscriber.status, 'end', `round ${i}: the subscriber is closed`)
      // It may itself be reconnecting after the restart; closed, it would be 'end'.
      t.not(client.status, 'end', `round ${i}: the client given stays open for its owner`)
    }
    t.equal(await client.ping(), 'PONG', 'and serves its owner')
    await sleep(100)
    t.same(rejections, [], 'no promise was left to reject unheard')
  })

  t.test('a start given again (use_bus retried after a failed start) hands each message over once', async (t) => {
    const heard: string[] = []
    const here = new RedisRoomBus({ client: options })
    const there = new RedisRoomBus({ client: options })
    t.teardown(() => Promise.all([here.close(), there.close()]))
    await here.start(() => {})
    // A first start whose SUBSCRIBE timed out on the client side may still have gone through on the server.
    await there.start((m) => heard.push(`first ${m.data.toString()}`))
    await there.start((m) => heard.push(`again ${m.data.toString()}`))
    await here.publish({ room: 'lobby', binary: false, except: undefined, data: Buffer.from('one') })
    for (let i = 0; i < 20 && heard.length === 0; i++) await sleep(25)
    await sleep(100)
    t.same(heard, ['again one'])
  })

  t.test('a subscription refused after a reconnect is logged and tried again until it is accepted', async (t) => {
    const out = capture_log(t)
    const admin = create_redis_client(options)
    t.teardown(() => admin.quit())
    const heard: BusMessage[] = []
    const here = new RedisRoomBus({ client: options })
    const there = new RedisRoomBus({ client: options })
    t.teardown(() => Promise.all([here.close(), there.close()]))
    await here.start(() => {})
    await there.start((m) => heard.push(m))
    // Taking a channel from a user drops that user's subscribed connections; they come back to a refused SUBSCRIBE.
    await admin.call('ACL', 'SETUSER', 'default', 'resetchannels')
    for (let i = 0; i < 100 && !out.text().includes('subscribing again failed'); i++) await sleep(50)
    t.match(out.text(), /\[error\] room bus: subscribing again failed, reconnecting .*NOPERM/)
    await admin.call('ACL', 'SETUSER', 'default', 'allchannels')
    for (let i = 0; i < 40 && heard.length === 0; i++) {
      await here.publish({ room: 'lobby', binary: false, except: undefined, data: Buffer.from(`after ${i}`) })
      await sleep(100)
    }
    t.match(heard[0], { room: 'lobby', binary: false }, 'the other instance hears again')
    t.match(heard[0]?.data.toString(), /^after \d+$/)
  })
})

t.test('RedisRoomBus on a Redis shared with others', async (t) => {
  const redis = await start_redis(t)
  const options = { host: '127.0.0.1', port: redis.port, commandTimeout: 300 }
  /** Until `heard` has something, and a while longer for a second copy or a stray. */
  const settle = async (heard: unknown[]): Promise<void> => {
    for (let i = 0; i < 40 && heard.length === 0; i++) await sleep(25)
    await sleep(150)
  }

  t.test('keeps apart the broadcasts of apps told apart by their client keyPrefix', async (t) => {
    const heard: string[] = []
    const app1 = new RedisRoomBus({ client: { ...options, keyPrefix: 'app1:' } })
    const app1_other = new RedisRoomBus({ client: { ...options, keyPrefix: 'app1:' } })
    const app2 = new RedisRoomBus({ client: { ...options, keyPrefix: 'app2:' } })
    t.teardown(() => Promise.all([app1.close(), app1_other.close(), app2.close()]))
    await app1_other.start((m) => heard.push(`app1 ${m.data.toString()}`))
    await app2.start((m) => heard.push(`app2 ${m.data.toString()}`))
    await app1.publish({ room: 'lobby', binary: false, except: undefined, data: Buffer.from('one') })
    await settle(heard)
    t.same(heard, ['app1 one'], "the other instance of app1 hears it; app2's lobby does not")
  })

  t.test('hands a broadcast over once when the connection drops after Redis ran PUBLISH', async (t) => {
    const proxy = await redis_proxy(t, redis.port)
    const heard: string[] = []
    const here = new RedisRoomBus({ client: { ...options, port: proxy.port } })
    const there = new RedisRoomBus({ client: options })
    t.teardown(() => Promise.all([here.close(), there.close()]))
    await there.start((m) => heard.push(m.data.toString()))
    // Not started, so nothing but replies to its publishing connection comes through the proxy.
    await here.publish({ room: 'lobby', binary: false, except: undefined, data: Buffer.from('ready') })
    await settle(heard)
    heard.length = 0
    const cut = proxy.cut_next_reply()
    const published = here.publish({ room: 'lobby', binary: false, except: undefined, data: Buffer.from('once') })
    await t.rejects(published, { code: 'FW_ERR_REDIS_UNAVAILABLE' }, 'the publisher cannot tell it went through')
    await cut
    await settle(heard)
    t.same(heard, ['once'])
  })
})

t.test('RedisRoomBus options', async (t) => {
  t.throws(() => new RedisRoomBus({ prefix: 'bad prefix' }), {
    code: ERR_REDIS_BAD_OPTION.code,
    message: 'RedisRoomBus: prefix must be a string without spaces or control characters; got "bad prefix"',
  })
})
