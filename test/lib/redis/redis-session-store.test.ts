import { createHmac } from 'node:crypto'
import t from 'tap'
import { App, adapt_ctx, type Request, type Response } from '../../../index.js'
import { session } from '../../../lib/middleware/auth/session.js'
import { Session } from '../../../lib/middleware/auth/session-state.js'
import { RedisSessionStore } from '../../../lib/redis/index.js'
import { InMemorySessionStore, type ISessionStore } from '../../../lib/middleware/auth/session-store.js'
import { capture_log } from '../../helpers/log.js'
import { free_port, start_redis } from '../../helpers/redis-server.js'
import { client, redis_proxy } from './setup.js'

const SECRET = 'redis-session-secret-0123456789abcdef'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const UNAVAILABLE = { ok: false, error: 'session_store_unavailable', message: 'Session store unavailable, retry later' }

t.test('RedisSessionStore', async (t) => {
  const server = await start_redis(t)
  const redis = client(t, server.port)
  const store = new RedisSessionStore({ client: redis })

  t.test('loads nothing for an unknown id', async (t) => {
    t.equal(await store.load('unknown'), undefined)
  })

  t.test('saves the values as JSON under <prefix>sess:<id> with the ttl as a Redis expiry', async (t) => {
    await store.save({ id: 'a1', data: { n: '1', user: 'ada' } }, 3600)
    t.equal(await redis.get('fw:sess:a1'), '{"n":"1","user":"ada"}')
    const pttl = await redis.pttl('fw:sess:a1')
    t.ok(pttl > 3_599_000 && pttl <= 3_600_000, `PTTL ${pttl} is the ttl in ms`)
    t.same(await store.load('a1'), { id: 'a1', data: { n: '1', user: 'ada' } })
  })

  t.test('replaces the values and restarts the ttl on each save', async (t) => {
    await store.save({ id: 'a2', data: { n: '1', old: 'x' } }, 10)
    await store.save({ id: 'a2', data: { n: '2' } }, 7200)
    t.same(await store.load('a2'), { id: 'a2', data: { n: '2' } })
    t.ok((await redis.pttl('fw:sess:a2')) > 7_199_000)
  })

  t.test('lets Redis expire a session after its ttl', async (t) => {
    await store.save({ id: 'short', data: { n: '1' } }, 0.03)
    const pttl = await redis.pttl('fw:sess:short')
    t.ok(pttl > 0 && pttl <= 30, `PTTL ${pttl} is 30 ms at most`)
    await sleep(60)
    t.equal(await store.load('short'), undefined)
    t.equal(await redis.exists('fw:sess:short'), 0, 'Redis itself dropped the key')
  })

  t.test('does not lose an update when two Apps change one session at once', async (t) => {
    const N = 15
    const apps = [0, 1].map(() => {
      const app = new App({ access_log: false })
      app.use(adapt_ctx(session({ secret: SECRET, store: new RedisSessionStore({ client: redis, prefix: 'two:' }) })))
      app.get('/inc', async (req, res) => {
        const s = req.state(Session)!
        const n = Number(s.get('n') ?? '0')
        await sleep(2)
        s.set('n', String(n + 1))
        res.text(String(n + 1))
      })
      t.teardown(() => app.close())
      return app
    })
    const first = await apps[0]!.inject({ url: '/inc' })
    const cookie = String(first.headers['set-cookie']).split(';')[0]!
    const rs = await Promise.all(
      Array.from({ length: 2 * N }, (_, i) => apps[i % 2]!.inject({ url: '/inc', headers: { cookie } })),
    )
    t.same(
      rs.map((r) => r.statusCode),
      Array(2 * N).fill(200),
    )
    t.same(new Set(rs.map((r) => r.body)).size, 2 * N, 'every request saw the one before it')
    const id = cookie.split('=')[1]!.split('.')[0]!
    t.equal(await redis.get(`two:sess:${id}`), JSON.stringify({ n: String(2 * N + 1) }))
    t.equal(await redis.exists(`two:sess-lock:${id}`), 0, 'the lock is released')
  })

  t.test('a request on another instance with the cookie a login replaced sets no cookie over it', async (t) => {
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    const apps = [0, 1].map(() => {
      const app = new App({ access_log: false })
      app.use(adapt_ctx(session({ secret: SECRET, store: new RedisSessionStore({ client: redis, prefix: 'race:' }) })))
      app.get('/count', (req, res) => void (req.state(Session)!.set('n', '1'), res.text('1')))
      app.get('/login', async (req, res) => {
        await gate
        req.state(Session)!.regenerate()
        res.text('in')
      })
      app.get('/peek', (req, res) => void res.json({ is_new: req.state(Session)!.is_new }))
      t.teardown(() => app.close())
      return app
    })
    const first = await apps[0]!.inject({ url: '/count' })
    const cookie = String(first.headers['set-cookie']).split(';')[0]!
    const old = cookie.split('=')[1]!.split('.')[0]!
    const login = apps[0]!.inject({ url: '/login', headers: { cookie } })
    await sleep(30)
    const racing = apps[1]!.inject({ url: '/peek', headers: { cookie } })
    await sleep(30)
    open()
    const [l, r] = await Promise.all([login, racing])
    t.match(String(l.headers['set-cookie']), /^sid=/, 'the login set its cookie')
    t.same([r.statusCode, r.json(), r.headers['set-cookie']], [200, { is_new: true }, undefined])
    t.equal(await redis.exists(`race:sess:${old}`), 0, 'the old session is gone')
    const pttl = await redis.pttl(`race:sess:${old}.ended`)
    t.ok(pttl > 9_000 && pttl <= 10_000, `its id is marked as ended for end_grace (pttl ${pttl})`)
    t.equal((await redis.keys('race:sess:*')).length, 2, 'the new session and the marker: nothing else saved')
  })

  t.test('answers 503 when another instance holds the session beyond lock_wait_ms', async (t) => {
    const held = new RedisSessionStore({ client: redis, prefix: 'held:', lock_wait_ms: 50 })
    await held.save({ id: 'h'.repeat(32), data: { n: '1' } }, 60)
    const release = await held.lock('h'.repeat(32))
    const app = new App({ access_log: false })
    app.use(adapt_ctx(session({ secret: SECRET, store: held })))
    app.get('/x', (_req, res) => void res.text('x'))
    t.teardown(() => app.close())
    const id = 'h'.repeat(32)
    const mac = createHmac('sha256', SECRET).update(id).digest('base64url')
    const r = await app.inject({ url: '/x', headers: { cookie: `sid=${id}.${mac}` } })
    t.same([r.statusCode, r.json().error], [503, 'session_store_unavailable'])
    await release()
    t.equal((await app.inject({ url: '/x', headers: { cookie: `sid=${id}.${mac}` } })).statusCode, 200)
  })

  t.test('leaves no lock behind when taking it timed out and the SET ran later (Redis paused)', async (t) => {
    const admin = client(t, server.port, 5000)
    const paused = new RedisSessionStore({ client: client(t, server.port, 200), prefix: 'paused:' })
    const sleeping = admin.call('DEBUG', 'SLEEP', '0.6')
    await sleep(50)
    await t.rejects(paused.lock('p1'), 'the lock attempt times out while Redis sleeps')
    await sleeping
    await sleep(100)
    t.equal(await redis.exists('paused:sess-lock:p1'), 0, 'the late SET was followed by its release')
    const release = await paused.lock('p1')
    await release()
  })

  t.test('frees the session when the connection dropped with its release, not lock_ttl_ms later', async (t) => {
    capture_log(t)
    const proxy = await redis_proxy(t, server.port)
    const holder = new RedisSessionStore({ client: client(t, proxy.port, 300), prefix: 'cut:' })
    const release = await holder.lock('c1')
    const cut = proxy.cut_next_command()
    await release().catch(() => undefined)
    await cut
    const other = new RedisSessionStore({ client: redis, prefix: 'cut:', lock_wait_ms: 2000 })
    const again = await other.lock('c1')
    await again()
  })

  t.test('touch renews the expiry without rewriting', async (t) => {
    await store.save({ id: 'tt', data: { n: '1' } }, 5)
    await store.touch('tt', 3600)
    t.ok((await redis.pttl('fw:sess:tt')) > 3_599_000)
    t.same(await store.load('tt'), { id: 'tt', data: { n: '1' } })
  })

  t.test('touch never brings back a session that expired or was destroyed before it', async (t) => {
    await store.save({ id: 'gone-exp', data: { n: '1' } }, 0.03)
    t.same(await store.load('gone-exp'), { id: 'gone-exp', data: { n: '1' } }, 'loaded just before it expired')
    await sleep(60)
    await store.touch('gone-exp', 3600)
    t.equal(await redis.exists('fw:sess:gone-exp'), 0, 'an expired session stays gone')
    t.equal(await store.load('gone-exp'), undefined)
    await store.save({ id: 'gone-del', data: { n: '1' } }, 60)
    await store.load('gone-del')
    await store.destroy('gone-del')
    await store.touch('gone-del', 3600)
    t.equal(await redis.exists('fw:sess:gone-del'), 0, 'a destroyed session stays gone')
    t.equal(await store.load('gone-del'), undefined)
  })

  t.test('with rolling, a session gone during the request answers as over the in-memory store', async (t) => {
    // The request loads the session, then it goes (another request or instance logs it out, or it expires) before the
    // touch at the end of the request. Both stores: the request answers, the session stays gone, the next request with
    // the cookie starts a new one.
    const answers = async (store: ISessionStore, forget: (id: string) => Promise<unknown>) => {
      const app = new App({ access_log: false })
      app.use(adapt_ctx(session({ secret: SECRET, store, ttl: 60, rolling: true })))
      app.get('/count', (req, res) => {
        const s = req.state(Session)!
        s.set('n', String(Number(s.get('n') ?? '0') + 1))
        res.text(s.get('n')!)
      })
      app.get('/read', async (req, res) => {
        const s = req.state(Session)!
        await forget(s.id)
        res.text(`read ${s.get('n')}`)
      })
      t.teardown(() => app.close())
      const first = await app.inject({ url: '/count' })
      const cookie = String(first.headers['set-cookie']).split(';')[0]!
      const id = cookie.split('=')[1]!.split('.')[0]!
      const read = await app.inject({ url: '/read', headers: { cookie } })
      const after = await store.load(id)
      const next = await app.inject({ url: '/count', headers: { cookie } })
      const next_id = String(next.headers['set-cookie']).split(';')[0]!.split('=')[1]!.split('.')[0]!
      return {
        read: [read.statusCode, read.body, String(read.headers['set-cookie']).startsWith(`${cookie};`)],
        after,
        next: [next.statusCode, next.body, next_id === id],
      }
    }
    const rolling = new RedisSessionStore({ client: redis, prefix: 'roll-gone:' })
    const memory = new InMemorySessionStore()
    const over_redis = await answers(rolling, (id) => redis.del(rolling.key(id)))
    const over_memory = await answers(memory, async (id) => memory.destroy(id))
    t.same(over_memory, { read: [200, 'read 1', true], after: undefined, next: [200, '1', false] })
    t.same(over_redis, over_memory)
  })

  t.test('destroys a session', async (t) => {
    await store.save({ id: 'a3', data: { n: '1' } }, 60)
    await store.destroy('a3')
    t.equal(await store.load('a3'), undefined)
    t.equal(await redis.exists('fw:sess:a3'), 0)
    await store.destroy('a3')
  })

  t.test('loads a stored text that is not an object of strings as unknown', async (t) => {
    for (const bad of ['not json', '[1,2]', '"text"', 'null', '{"n":1}', '{"a":"x","b":{"c":"d"}}']) {
      await redis.set('fw:sess:bad', bad)
      t.equal(await store.load('bad'), undefined, bad)
    }
  })

  t.test('keeps sessions of stores with other prefixes apart', async (t) => {
    const other = new RedisSessionStore({ client: redis, prefix: 'shop:' })
    await other.save({ id: 'p1', data: { cart: '3' } }, 60)
    t.equal(await store.load('p1'), undefined)
    t.same(await other.load('p1'), { id: 'p1', data: { cart: '3' } })
    t.equal(other.key('p1'), 'shop:sess:p1')
  })

  t.test('refuses a command on a key of another type with FW_ERR_REDIS_COMMAND_FAILED', async (t) => {
    await redis.hset('fw:sess:hash', 'n', '1')
    await t.rejects(store.load('hash'), {
      code: 'FW_ERR_REDIS_COMMAND_FAILED',
      status: 500,
      message: /^RedisSessionStore\.load: Redis refused the command \(WRONGTYPE /,
    })
  })

  t.test('counts on across two apps sharing the store, as the session middleware sees it', async (t) => {
    const apps = [0, 1].map(() => {
      const app = new App({ access_log: false })
      app.use(adapt_ctx(session({ secret: SECRET, store: new RedisSessionStore({ client: redis }) })))
      app.get('/count', (req, res) => {
        const s = req.state(Session)!
        const n = Number(s.get('n') ?? '0') + 1
        s.set('n', String(n))
        res.text(`n=${n}`)
      })
      t.teardown(() => app.close())
      return app
    })
    const first = await apps[0]!.inject({ url: '/count' })
    const cookie = String(first.headers['set-cookie']).split(';')[0]!
    const bodies = [first.body]
    for (let i = 0; i < 4; i++)
      bodies.push((await apps[(i + 1) % 2]!.inject({ url: '/count', headers: { cookie } })).body)
    t.same(bodies, ['n=1', 'n=2', 'n=3', 'n=4', 'n=5'])
  })

  t.test('ends a rolling session at absolute_ttl: capped expiry, then deleted from Redis', async (t) => {
    const clock = { now: 1_700_000_000_000 }
    const start = clock.now
    const app = new App({ access_log: false })
    const store = new RedisSessionStore({ client: redis, prefix: 'abs:' })
    app.use(
      adapt_ctx(session({ secret: SECRET, store, ttl: 600, absolute_ttl: 1000, rolling: true, now: () => clock.now })),
    )
    app.get('/count', (req, res) => {
      const s = req.state(Session)!
      const n = Number(s.get('n') ?? '0') + 1
      s.set('n', String(n))
      res.json({ n, data: s.data })
    })
    t.teardown(() => app.close())
    const first = await app.inject({ url: '/count' })
    const cookie = String(first.headers['set-cookie']).split(';')[0]!
    const id = cookie.split('=')[1]!.split('.')[0]!
    t.same(first.json(), { n: 1, data: { n: '1' } }, 'the handler never sees the creation time')
    t.same(JSON.parse((await redis.get(`abs:sess:${id}`))!), { n: '1', 'fw.created_at': String(start) })
    const pttl = async () => redis.pttl(`abs:sess:${id}`)
    t.ok((await pttl()) > 599_000 && (await pttl()) <= 600_000, 'ttl when shorter than what is left')
    clock.now = start + 700_000
    const second = await app.inject({ url: '/count', headers: { cookie } })
    t.equal(second.json().n, 2)
    t.match(String(second.headers['set-cookie']), /; Max-Age=300;/)
    const left = await pttl()
    t.ok(left > 299_000 && left <= 300_000, `PTTL ${left} capped at the 300 s left`)
    clock.now = start + 1_000_000
    const ended = await app.inject({ url: '/count', headers: { cookie } })
    t.equal(ended.json().n, 1, 'a new session')
    t.equal(await redis.exists(`abs:sess:${id}`), 0, 'the outlived session is deleted from Redis')
    t.equal(await store.load(id), undefined)
    const fresh = String(ended.headers['set-cookie']).split(';')[0]!.split('=')[1]!.split('.')[0]!
    t.not(fresh, id)
    t.same(JSON.parse((await redis.get(`abs:sess:${fresh}`))!), { n: '1', 'fw.created_at': String(clock.now) })
  })

  t.test('makes its own client from options or a URL, and closes only that one', async (t) => {
    const by_url = new RedisSessionStore({ client: server.url })
    const by_options = new RedisSessionStore({ client: { host: '127.0.0.1', port: server.port } })
    await by_url.save({ id: 'own', data: { a: 'b' } }, 60)
    t.same(await by_options.load('own'), { id: 'own', data: { a: 'b' } })
    await by_url.close()
    await by_options.close()
    await t.rejects(by_url.load('own'), { code: 'FW_ERR_REDIS_UNAVAILABLE', message: /Connection is closed/ })
    await store.close()
    t.equal(await redis.ping(), 'PONG', 'a client passed in stays open')
  })

  t.test('throws at creation for a bad prefix or client', async (t) => {
    t.throws(() => new RedisSessionStore({ client: redis, prefix: 'a b' }), {
      code: 'FW_ERR_REDIS_BAD_OPTION',
      message: 'RedisSessionStore: prefix must be a string without spaces or control characters; got "a b"',
    })
    t.throws(() => new RedisSessionStore({ client: 42 as unknown as string }), {
      code: 'FW_ERR_REDIS_BAD_OPTION',
      message:
        'RedisSessionStore: client must be an ioredis client, connection options or a redis:// or rediss:// URL; got 42',
    })
    // Its renewal timer runs every third of it: past Node's longest timer it would fire after 1 ms, over and over.
    for (const option of ['lock_ttl_ms', 'lock_wait_ms'] as const)
      t.throws(() => new RedisSessionStore({ client: redis, [option]: 2 ** 31 }), {
        code: 'FW_ERR_REDIS_BAD_OPTION',
        message: `RedisSessionStore: ${option} must be an integer from 1 to 2147483647; got 2147483648`,
      })
  })
})

t.test('RedisSessionStore lock renewal', async (t) => {
  const server = await start_redis(t)
  const redis = client(t, server.port)
  const TTL = 300
  /** A cookie naming `id`, signed with SECRET. */
  const cookie_of = (id: string) => `sid=${id}.${createHmac('sha256', SECRET).update(id).digest('base64url')}`
  /** How many timers keep the process alive. */
  const ref_timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

  t.test('keeps the lock while the holder works past lock_ttl_ms', async (t) => {
    const a = new RedisSessionStore({ client: redis, prefix: 'renew:', lock_ttl_ms: TTL })
    const b = new RedisSessionStore({ client: redis, prefix: 'renew:', lock_ttl_ms: TTL, lock_wait_ms: 100 })
    const release = await a.lock('r1')
    await sleep(1000)
    await t.rejects(b.lock('r1'), {
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      message: /session held elsewhere beyond lock_wait_ms/,
    })
    const pttl = await redis.pttl('renew:sess-lock:r1')
    t.ok(pttl > 0 && pttl <= TTL, `PTTL ${pttl}: still held, never longer than lock_ttl_ms`)
    await a.save({ id: 'r1', data: { n: '1' } }, 60)
    await release()
    t.equal(await redis.exists('renew:sess-lock:r1'), 0)
    await (
      await b.lock('r1')
    )()
  })

  t.test('does not lose an update when a handler holds the session past lock_ttl_ms', async (t) => {
    const apps = [0, 1].map(() => {
      const app = new App({ access_log: false })
      const store = new RedisSessionStore({ client: redis, prefix: 'slow:', lock_ttl_ms: TTL, lock_wait_ms: 3000 })
      app.use(adapt_ctx(session({ secret: SECRET, store })))
      const inc = (ms: number) => async (req: Request, res: Response) => {
        const s = req.state(Session)!
        const n = Number(s.get('n') ?? '0')
        await sleep(ms)
        s.set('n', String(n + 1))
        res.text(String(n + 1))
      }
      app.get('/slow', inc(1000))
      app.get('/inc', inc(0))
      t.teardown(() => app.close())
      return app
    })
    const first = await apps[0]!.inject({ url: '/inc' })
    const cookie = String(first.headers['set-cookie']).split(';')[0]!
    const slow = apps[0]!.inject({ url: '/slow', headers: { cookie } })
    await sleep(50)
    const fast = apps[1]!.inject({ url: '/inc', headers: { cookie } })
    const [rs, rf] = await Promise.all([slow, fast])
    t.same([rs.statusCode, rs.body, rf.statusCode, rf.body], [200, '2', 200, '3'], 'the second waited for the first')
    const id = cookie.split('=')[1]!.split('.')[0]!
    t.equal(await redis.get(`slow:sess:${id}`), JSON.stringify({ n: '3' }))
  })

  t.test('stops renewing at release, with a timer that never holds the process', async (t) => {
    const store = new RedisSessionStore({ client: redis, prefix: 'stop:', lock_ttl_ms: TTL })
    const before = ref_timers()
    const release = await store.lock('s1')
    t.equal(ref_timers(), before, 'the renewal timer is unref-ed')
    const token = (await redis.get('stop:sess-lock:s1'))!
    await sleep(2 * TTL)
    t.equal(await redis.get('stop:sess-lock:s1'), token, 'renewed meanwhile')
    await release()
    t.equal(await redis.exists('stop:sess-lock:s1'), 0, 'released')
    // The holder's token put back by hand: a renewal still running would keep it past its expiry.
    await redis.set('stop:sess-lock:s1', token, 'PX', TTL)
    await sleep(2 * TTL)
    t.equal(await redis.exists('stop:sess-lock:s1'), 0, 'nothing renews it after the release')
  })

  t.test('makes a stolen lock visible: logged, left to its new holder, and the later save refused', async (t) => {
    const out = capture_log(t)
    const store = new RedisSessionStore({ client: redis, prefix: 'stolen:', lock_ttl_ms: TTL })
    const sid = 'S'.repeat(32)
    await store.save({ id: sid, data: { n: '1' } }, 60)
    const release = await store.lock(sid)
    await redis.set(`stolen:sess-lock:${sid}`, 'thief', 'PX', 5000)
    await sleep(TTL)
    t.match(out.text(), /\[session\] \[warning\] session lock lost, its request's save is refused session=sid:\S+/)
    t.notMatch(out.text(), sid, 'the session id is not logged')
    t.equal(await redis.get(`stolen:sess-lock:${sid}`), 'thief')
    t.ok((await redis.pttl(`stolen:sess-lock:${sid}`)) > 4000, "the new holder's lock is not extended")
    const lost = { code: 'FW_ERR_REDIS_UNAVAILABLE', status: 503 }
    await t.rejects(store.save({ id: sid, data: { n: '2' } }, 60), {
      ...lost,
      message: /^RedisSessionStore\.save: Redis is unavailable \(session lock lost/,
    })
    await t.rejects(store.destroy(sid), { ...lost, message: /^RedisSessionStore\.destroy: / })
    t.same(await store.load(sid), { id: sid, data: { n: '1' } }, 'nothing written')
    await release()
    t.equal(await redis.get(`stolen:sess-lock:${sid}`), 'thief', "the release leaves the new holder's lock")
    await store.save({ id: sid, data: { n: '3' } }, 60)
    t.same(await store.load(sid), { id: sid, data: { n: '3' } }, 'a save outside the lost hold goes through')
  })

  t.test('refuses the save of a request of this instance whose lock another request of it took', async (t) => {
    const out = capture_log(t)
    const store = new RedisSessionStore({ client: redis, prefix: 'twice:', lock_ttl_ms: TTL })
    const first = await store.lock('w1')
    await redis.del('twice:sess-lock:w1')
    const second = await store.lock('w1')
    t.match(out.text(), /session lock lost, .* why="?taken by another request of this instance/)
    const lost = { code: 'FW_ERR_REDIS_UNAVAILABLE', message: /session lock lost/ }
    await t.rejects(store.save({ id: 'w1', data: { n: '1' } }, 60), lost)
    await second()
    await t.rejects(store.save({ id: 'w1', data: { n: '1' } }, 60), lost, 'still refused while the first holds')
    await first()
    await store.save({ id: 'w1', data: { n: '2' } }, 60)
    t.same(await store.load('w1'), { id: 'w1', data: { n: '2' } })
  })

  t.test('answers 503 instead of saving when the lock was taken during the handler', async (t) => {
    capture_log(t)
    const store = new RedisSessionStore({ client: redis, prefix: 'taken:', lock_ttl_ms: TTL })
    const app = new App({ access_log: false })
    app.use(adapt_ctx(session({ secret: SECRET, store })))
    app.get('/x', async (req, res) => {
      const s = req.state(Session)!
      await redis.set(`taken:sess-lock:${s.id}`, 'other', 'PX', 5000)
      await sleep(TTL)
      s.set('n', '2')
      res.header('set-cookie', 'theme=dark').text('saved?')
    })
    t.teardown(() => app.close())
    const id = 'T'.repeat(32)
    await store.save({ id, data: { n: '1' } }, 60)
    const r = await app.inject({ url: '/x', headers: { cookie: cookie_of(id) } })
    t.same([r.statusCode, r.body, r.headers['set-cookie']], [503, JSON.stringify(UNAVAILABLE), undefined])
    t.same(await store.load(id), { id, data: { n: '1' } })
  })

  t.test('counts the lock lost when Redis cannot renew it before lock_ttl_ms', async (t) => {
    const out = capture_log(t)
    const admin = client(t, server.port, 5000)
    const store = new RedisSessionStore({ client: client(t, server.port, 100), prefix: 'pause:', lock_ttl_ms: TTL })
    const release = await store.lock('p1')
    await admin.call('DEBUG', 'SLEEP', '0.6')
    await sleep(50)
    t.match(out.text(), /\[warning\] session lock not renewed session=sid:\S+ err=.*Redis is unavailable/)
    t.match(out.text(), /\[warning\] session lock lost/)
    await t.rejects(store.save({ id: 'p1', data: { n: '1' } }, 60), { message: /session lock lost/ })
    await release()
  })

  t.test('refuses the save after the event loop was blocked past lock_ttl_ms, before any renewal ran', async (t) => {
    const out = capture_log(t)
    const store = new RedisSessionStore({ client: redis, prefix: 'blocked:', lock_ttl_ms: TTL })
    const release = await store.lock('b1')
    for (const until = Date.now() + TTL + 50; Date.now() < until;);
    await t.rejects(store.save({ id: 'b1', data: { n: '1' } }, 60), { message: /session lock lost/ })
    t.match(out.text(), /session lock lost, .* why="?expired unrenewed/)
    await release()
    t.equal(await store.load('b1'), undefined)
  })

  /**
   * Store `a` holds `sid`'s lock, which expires unnoticed (a long lock_ttl_ms: no renewal runs and the hold still looks
   * valid; deleting the key stands for its expiry); store `b` then takes it and saves `{ by: 'b' }`.
   */
  async function taken_over(prefix: string, sid: string) {
    const a = new RedisSessionStore({ client: redis, prefix })
    const b = new RedisSessionStore({ client: redis, prefix, lock_wait_ms: 100 })
    const release_a = await a.lock(sid)
    await redis.del(`${prefix}sess-lock:${sid}`)
    const release_b = await b.lock(sid)
    await b.save({ id: sid, data: { by: 'b' } }, 60)
    return { a, b, release_a, release_b }
  }

  t.test("refuses the save of a lock that expired unnoticed and keeps the new holder's session", async (t) => {
    capture_log(t)
    const { a, b, release_a, release_b } = await taken_over('late:', 'l1')
    await t.rejects(a.save({ id: 'l1', data: { by: 'a' } }, 60), {
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      status: 503,
      message: /^RedisSessionStore\.save: Redis is unavailable \(session lock lost/,
    })
    t.equal(await redis.get('late:sess:l1'), JSON.stringify({ by: 'b' }), "the new holder's session stays")
    await t.rejects(a.destroy('l1'), { message: /session lock lost/ }, 'the hold counts as lost from then on')
    await release_a()
    t.ok(await redis.exists('late:sess-lock:l1'), "the stale release leaves the new holder's lock")
    await b.save({ id: 'l1', data: { by: 'b2' } }, 60)
    await release_b()
    t.equal(await redis.get('late:sess:l1'), JSON.stringify({ by: 'b2' }), 'the holder saves through the script')
    t.equal(await redis.exists('late:sess-lock:l1'), 0)
  })

  t.test("refuses the destroy of a lock that expired unnoticed and keeps the new holder's session", async (t) => {
    capture_log(t)
    const { a, b, release_a, release_b } = await taken_over('late-del:', 'd1')
    await t.rejects(a.destroy('d1'), {
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      message: /^RedisSessionStore\.destroy: Redis is unavailable \(session lock lost/,
    })
    t.equal(await redis.get('late-del:sess:d1'), JSON.stringify({ by: 'b' }), "the new holder's session stays")
    await t.rejects(a.save({ id: 'd1', data: { by: 'a' } }, 60), { message: /session lock lost/ }, 'lost from then on')
    await release_a()
    await b.destroy('d1')
    t.equal(await redis.exists('late-del:sess:d1'), 0, 'the holder destroys through the script')
    await release_b()
  })

  t.test('times the lock by a monotonic clock: a wall clock stepped back keeps no expired hold valid', async (t) => {
    capture_log(t)
    const wall = Date.now
    t.teardown(() => void (Date.now = wall))
    const store = new RedisSessionStore({ client: redis, prefix: 'stepped:', lock_ttl_ms: TTL })
    const release = await store.lock('c1')
    Date.now = () => wall() - 60_000
    // The event loop blocked past lock_ttl_ms (no renewal ran) while NTP stepped the wall clock back a minute.
    for (const until = performance.now() + TTL + 50; performance.now() < until;);
    await t.rejects(store.save({ id: 'c1', data: { n: '1' } }, 60), { message: /session lock lost/ })
    Date.now = wall
    await release()
    t.equal(await store.load('c1'), undefined)
  })

  t.test('ends the wait at lock_wait_ms by a monotonic clock when the wall clock steps back', async (t) => {
    const wall = Date.now
    t.teardown(() => void (Date.now = wall))
    const holder = new RedisSessionStore({ client: redis, prefix: 'stepwait:' })
    const waiter = new RedisSessionStore({ client: redis, prefix: 'stepwait:', lock_wait_ms: 100 })
    const release = await holder.lock('w1')
    const waiting = waiter.lock('w1').then(
      (release) => release().then(() => 'taken'),
      (err: Error) => err.message,
    )
    Date.now = () => wall() - 60_000
    const outcome = await Promise.race([waiting, sleep(1000).then(() => 'still waiting after 1000 ms')])
    Date.now = wall
    t.match(outcome, /session held elsewhere beyond lock_wait_ms/)
    await release()
    await waiting
  })

  t.test('lets a lock whose holder went away expire after lock_ttl_ms', async (t) => {
    capture_log(t)
    const own = client(t, server.port)
    const holder = new RedisSessionStore({ client: own, prefix: 'gone:', lock_ttl_ms: TTL })
    await holder.lock('g1')
    own.disconnect()
    const other = new RedisSessionStore({ client: redis, prefix: 'gone:', lock_ttl_ms: TTL, lock_wait_ms: 2000 })
    const started = Date.now()
    const release = await other.lock('g1')
    t.ok(Date.now() - started < 2 * TTL, `taken after ${Date.now() - started} ms`)
    await release()
  })
})

t.test('RedisSessionStore while Redis is down', async (t) => {
  const port = await free_port()
  const store = new RedisSessionStore({ client: { host: '127.0.0.1', port, commandTimeout: 200 } })
  t.teardown(() => store.close())

  t.test('rejects with FW_ERR_REDIS_UNAVAILABLE, status 503, within the command timeout', async (t) => {
    const started = Date.now()
    await t.rejects(store.load('x'), {
      name: 'FwError',
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      status: 503,
      message: /^RedisSessionStore\.load: Redis is unavailable \(/,
    })
    await t.rejects(store.save({ id: 'x', data: {} }, 60), {
      code: 'FW_ERR_REDIS_UNAVAILABLE',
      message: /^RedisSessionStore\.save: /,
    })
    await t.rejects(store.destroy('x'), { code: 'FW_ERR_REDIS_UNAVAILABLE', message: /^RedisSessionStore\.destroy: / })
    t.ok(Date.now() - started < 1500, 'three commands failed within their timeouts')
  })

  const app = new App({ access_log: false })
  let runs = 0
  app.use(adapt_ctx(session({ secret: SECRET, store })))
  app.get('/count', (_req, res) => void res.header('set-cookie', 'theme=dark').text(`run ${++runs}`))
  t.teardown(() => app.close())
  const unavailable = {
    ok: false,
    error: 'session_store_unavailable',
    message: 'Session store unavailable, retry later',
  }

  t.test(
    'makes the session middleware answer 503 session_store_unavailable before the handler when the load fails',
    async (t) => {
      const id = 'A'.repeat(32)
      const cookie = `sid=${id}.${createHmac('sha256', SECRET).update(id).digest('base64url')}`
      const r = await app.inject({ url: '/count', headers: { cookie } })
      t.equal(r.statusCode, 503)
      t.same(r.json(), unavailable)
      t.equal(r.headers['set-cookie'], undefined)
      t.equal(r.headers['cache-control'], 'no-store')
      t.equal(runs, 0)
    },
  )

  t.test("replaces the handler's answer and cookies with the 503 when the save fails", async (t) => {
    const r = await app.inject({ url: '/count' })
    t.equal(runs, 1, 'a request without a cookie loads nothing, so the handler ran')
    t.equal(r.statusCode, 503)
    t.same(r.json(), unavailable)
    t.equal(r.headers['set-cookie'], undefined, "neither the session cookie nor the handler's")
    t.equal(r.headers['cache-control'], 'no-store')
  })
})
