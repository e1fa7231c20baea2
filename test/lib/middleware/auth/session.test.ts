import { createHmac } from 'node:crypto'
import t, { type Test } from 'tap'
import { App, adapt_ctx, type Request } from '../../../../index.js'
import { session, start_session, type SessionOptions } from '../../../../lib/middleware/auth/session.js'
import { sign_in } from '../../../../lib/middleware/auth/sign-in.js'
import { CREATED_KEY, Session } from '../../../../lib/middleware/auth/session-state.js'
import {
  InMemorySessionStore,
  type ISessionStore,
  type SessionRecord,
} from '../../../../lib/middleware/auth/session-store.js'
import { StoreUnavailable } from '../../../../lib/errors.js'
import { throws_coded } from './build.js'
import { THENABLE_KINDS } from '../../../helpers/thenable.js'

const SECRET = 'session-test-secret-0123456789abcdef'
const WEEK = 604800
const mac = (id: string, secret = SECRET) => createHmac('sha256', secret).update(id).digest('base64url')

/** An App with the session middleware and routes that count, log in, log out, peek and fail; closed on teardown. */
function build(t: Test, options: Partial<SessionOptions> = {}) {
  const clock = { now: 5_000_000 }
  const store = new InMemorySessionStore({ now: () => clock.now })
  const app = new App({ access_log: false })
  const calls = { n: 0 }
  app.use(adapt_ctx(session({ secret: SECRET, store, now: () => clock.now, ...options })))
  const s = (req: Request) => req.state(Session)!
  app.get('/count', (req, res) => {
    calls.n++
    const n = Number(s(req).get('n') ?? '0') + 1
    s(req).set('n', String(n))
    res.text(`n=${n}`)
  })
  app.get('/peek', (req, res) => void res.json({ id: s(req).id, is_new: s(req).is_new, data: s(req).data }))
  app.get('/login', (req, res) => {
    s(req).regenerate()
    s(req).set('user', 'ada')
    res.json({ id: s(req).id })
  })
  app.get('/logout', (req, res) => {
    s(req).destroy()
    res.json({ ok: true })
  })
  app.get('/fail', (req) => {
    s(req).set('n', '100')
    throw new Error('handler failed')
  })
  t.teardown(() => app.close())
  return { app, store, clock, calls }
}

/** The `sid` cookie value a response sets, and the id inside it. */
function cookie_of(r: { headers: Record<string, unknown> }, name = 'sid') {
  const set = r.headers['set-cookie']
  const line = (Array.isArray(set) ? set : [set]).find(
    (c): c is string => typeof c === 'string' && c.startsWith(`${name}=`),
  )
  const value = line?.slice(name.length + 1).split(';')[0]
  return { line, value, id: value?.split('.')[0] }
}

t.test('session', async (t) => {
  t.test('starts a session without a cookie and sets a signed cookie with the default attributes', async (t) => {
    const { app, store } = build(t)
    const r = await app.inject({ url: '/count' })
    t.equal(r.body, 'n=1')
    const c = cookie_of(r)
    t.match(c.id, /^[A-Za-z0-9_-]{32}$/)
    t.equal(c.line, `sid=${c.id}.${mac(c.id!)}; Max-Age=${WEEK}; Path=/; HttpOnly; SameSite=Lax`)
    t.same(store.load(c.id!), { id: c.id, data: { n: '1' } })
  })

  t.test('counts 1, 2, 3 with the same cookie', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    const cookie = `sid=${cookie_of(first).value}`
    t.equal(first.body, 'n=1')
    t.equal((await app.inject({ url: '/count', headers: { cookie } })).body, 'n=2')
    const third = await app.inject({ url: '/count', headers: { cookie } })
    t.equal(third.body, 'n=3')
    t.equal(cookie_of(third).value, cookie_of(first).value, 'the id stays the same')
    t.equal(store.size, 1)
  })

  t.test('reads a signed cookie sent in double quotes (a quoted cookie-value, RFC 6265 4.1.1)', async (t) => {
    const { app } = build(t)
    const first = await app.inject({ url: '/count' })
    const r = await app.inject({ url: '/peek', headers: { cookie: `sid="${cookie_of(first).value}"` } })
    t.same(r.json(), { id: cookie_of(first).id, is_new: false, data: { n: '1' } })
    t.equal(r.headers['set-cookie'], undefined, 'the same session, not a new one')
  })

  t.test('sets no cookie and saves nothing when a loaded session did not change', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    const r = await app.inject({ url: '/peek', headers: { cookie: `sid=${cookie_of(first).value}` } })
    t.same(r.json(), { id: cookie_of(first).id, is_new: false, data: { n: '1' } })
    t.equal(r.headers['set-cookie'], undefined)
    t.equal(store.size, 1)
  })

  t.test('starts a new session for a forged, unknown, expired or foreign cookie', async (t) => {
    const { app, store, clock } = build(t)
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const unknown = 'A'.repeat(32)
    const cases: Array<[string, string]> = [
      ['forged signature', `${id}.${mac(id!, 'x').slice(0, -2)}AA`],
      ['signature of another id', `${id}.${mac(unknown)}`],
      ['no signature', id!],
      ['empty signature', `${id}.`],
      ['signed with another secret', `${id}.${mac(id!, 'another-secret-0123456789')}`],
      ['unknown id, validly signed', `${unknown}.${mac(unknown)}`],
      ['malformed id', `${'*'.repeat(32)}.${mac('*'.repeat(32))}`],
      ['empty', ''],
    ]
    for (const [name, cookie_value] of cases) {
      const r = await app.inject({ url: '/count', headers: { cookie: `sid=${cookie_value}` } })
      t.equal(r.body, 'n=1', name)
      t.not(cookie_of(r).id, id, name)
      t.not(cookie_of(r).id, unknown, `${name}: an id the client chose is never adopted`)
    }
    clock.now += WEEK * 1000
    const expired = await app.inject({ url: '/count', headers: { cookie: `sid=${value}` } })
    t.equal(expired.body, 'n=1', 'expired')
    t.not(cookie_of(expired).id, id)
    t.equal(store.load(id!), undefined)
  })

  t.test('opens the session of a valid cookie sent after a forged one of the same name (cookie tossing)', async (t) => {
    const { app } = build(t)
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    // A sibling subdomain sets `sid` with `Domain=` and a longer `Path`: the browser sends it before the user's own.
    for (const tossed of [`${'A'.repeat(32)}.${mac('A'.repeat(32), 'x')}`, 'garbage', `${id}.`]) {
      const r = await app.inject({ url: '/peek', headers: { cookie: `sid=${tossed}; sid=${value}` } })
      t.same(r.json(), { id, is_new: false, data: { n: '1' } }, tossed)
      t.equal(r.headers['set-cookie'], undefined, `${tossed}: no new session`)
    }
  })

  t.test('keeps a session alive up to ttl after its last save', async (t) => {
    const { app, clock } = build(t, { ttl: 60 })
    const first = await app.inject({ url: '/count' })
    const cookie = `sid=${cookie_of(first).value}`
    t.match(cookie_of(first).line, /; Max-Age=60;/)
    clock.now += 59_000
    t.equal((await app.inject({ url: '/count', headers: { cookie } })).body, 'n=2')
    clock.now += 59_000
    t.equal((await app.inject({ url: '/count', headers: { cookie } })).body, 'n=3')
    clock.now += 60_000
    t.equal((await app.inject({ url: '/count', headers: { cookie } })).body, 'n=1')
  })

  t.test('regenerate moves the values to a new id and deletes the old one', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    const old = cookie_of(first)
    const r = await app.inject({ url: '/login', headers: { cookie: `sid=${old.value}` } })
    const fresh = cookie_of(r)
    t.equal(r.json().id, fresh.id)
    t.not(fresh.id, old.id)
    t.equal(store.load(old.id!), undefined)
    t.same(store.load(fresh.id!), { id: fresh.id, data: { n: '1', user: 'ada' } })
    const again = await app.inject({ url: '/count', headers: { cookie: `sid=${old.value}` } })
    t.equal(again.body, 'n=1', 'the old cookie no longer works')
  })

  t.test('a regenerate whose save fails keeps the old session: 503, no cookie, the old id still works', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    const old = cookie_of(first)
    const save = store.save.bind(store)
    store.save = (record, ttl) => {
      if (record.id !== old.id) throw new StoreUnavailable('save: store down')
      return save(record, ttl)
    }
    const r = await app.inject({ url: '/login', headers: { cookie: `sid=${old.value}` } })
    t.equal(r.statusCode, 503)
    t.equal(r.json().error, 'session_store_unavailable')
    t.equal(r.headers['set-cookie'], undefined)
    t.same(
      store.load(old.id!),
      { id: old.id, data: { n: '1' } },
      'the old record is not deleted before the new one is saved',
    )
    t.equal(store.size, 1)
    const again = await app.inject({ url: '/count', headers: { cookie: `sid=${old.value}` } })
    t.equal(again.body, 'n=2', 'the old cookie still works')
  })

  t.test('destroy removes the session and clears the cookie', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const r = await app.inject({ url: '/logout', headers: { cookie: `sid=${value}` } })
    t.equal(cookie_of(r).line, 'sid=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax')
    t.equal(store.load(id!), undefined)
    t.same(store.load(`${id}.ended`), { id: `${id}.ended`, data: {} }, 'its id marked as ended (end_grace)')
    t.equal(store.size, 1, 'the marker alone')
  })

  t.test('does not save a session when the handler throws', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const r = await app.inject({ url: '/fail', headers: { cookie: `sid=${value}` } })
    t.equal(r.statusCode, 500)
    t.equal(r.headers['set-cookie'], undefined)
    t.same(store.load(id!), { id, data: { n: '1' } })
  })

  t.test('with auto_create false, gives no session state until the handler starts one', async (t) => {
    const { app, store } = build(t, { auto_create: false })
    app.get('/state', (req, res) => void res.json({ has: req.state(Session) !== undefined }))
    app.get('/start', (req, res) => {
      const s = start_session(req)
      t.equal(start_session(req), s, 'a second call gives the same session')
      s.set('user', 'ada')
      res.json({ id: s.id, is_new: s.is_new })
    })
    const none = await app.inject({ url: '/state' })
    t.same(none.json(), { has: false })
    t.equal(none.headers['set-cookie'], undefined)
    t.equal(store.size, 0)
    const started = await app.inject({ url: '/start' })
    t.equal(started.json().is_new, true)
    const c = cookie_of(started)
    t.equal(c.id, started.json().id)
    t.same(store.load(c.id!)?.data, { user: 'ada' })
    const back = await app.inject({ url: '/state', headers: { cookie: `sid=${c.value}` } })
    t.same(back.json(), { has: true }, 'a known session is loaded as usual')
    const forged = await app.inject({
      url: '/state',
      headers: { cookie: `sid=${'A'.repeat(32)}.${mac('A'.repeat(32))}` },
    })
    t.same(forged.json(), { has: false }, 'an unknown id gives no session either')
  })

  t.test('start_session outside a session middleware throws FW_ERR_AUTH_NO_SESSION', async (t) => {
    const app = new App({ access_log: false })
    let err: unknown
    app.get('/x', (req, res) => {
      try {
        start_session(req)
      } catch (e) {
        err = e
      }
      res.text('x')
    })
    t.teardown(() => app.close())
    await app.inject({ url: '/x' })
    t.match(err, { code: 'FW_ERR_AUTH_NO_SESSION', message: 'start_session: no session middleware runs on this route' })
  })

  t.test('writes the cookie attributes from the options', async (t) => {
    const { app } = build(t, {
      cookie_name: 'app_sid',
      cookie_path: '/app',
      secure: true,
      http_only: false,
      same_site: 'Strict',
      ttl: 3600,
    })
    const c = cookie_of(await app.inject({ url: '/count' }), 'app_sid')
    t.equal(c.line, `app_sid=${c.value}; Max-Age=3600; Path=/app; Secure; SameSite=Strict`)
    const none = build(t, { secure: true, same_site: 'None' })
    t.match(cookie_of(await none.app.inject({ url: '/count' })).line, /; HttpOnly; Secure; SameSite=None$/)
  })

  t.test('works with a store whose methods return promises', async (t) => {
    const map = new Map<string, SessionRecord>()
    const log: string[] = []
    const store: ISessionStore = {
      load: async (sid) => (log.push('load'), map.get(sid)),
      save: async (s, ttl) => void (log.push(`save ${ttl}`), map.set(s.id, { id: s.id, data: { ...s.data } })),
      destroy: async (sid) => void (log.push('destroy'), map.delete(sid)),
    }
    const { app } = build(t, { store, ttl: 90 })
    const first = await app.inject({ url: '/count' })
    const cookie = `sid=${cookie_of(first).value}`
    t.equal((await app.inject({ url: '/count', headers: { cookie } })).body, 'n=2')
    await app.inject({ url: '/logout', headers: { cookie } })
    t.same(log, ['save 90', 'load', 'save 90', 'load', 'save 10', 'destroy'])
    t.same([...map.values()], [{ id: `${cookie_of(first).id}.ended`, data: {} }], 'the ended id, marked')
  })

  t.test('works with a store answering thenables that are not native promises, its lock included', async (t) => {
    // A store over a promise library, a lazy query builder or another realm's promises; its lock's release answers a
    // bare thenable (no catch method), as a store written in JavaScript against the interface may.
    for (const [name, wrap] of Object.entries(THENABLE_KINDS)) {
      const map = new Map<string, SessionRecord>()
      const log: string[] = []
      const store = {
        load: (sid: string) => wrap(() => (log.push('load'), map.get(sid))),
        save: (s: SessionRecord, ttl: number) => wrap(() => void (log.push(`save ${ttl}`), map.set(s.id, s))),
        destroy: (sid: string) => wrap(() => void (log.push('destroy'), map.delete(sid))),
        touch: (_sid: string, ttl: number) => wrap(() => void log.push(`touch ${ttl}`)),
        lock: (_sid: string) => wrap(() => (log.push('lock'), () => wrap(() => void log.push('unlock')))),
      } as unknown as ISessionStore
      const { app } = build(t, { store, ttl: 90, rolling: true })
      const first = await app.inject({ url: '/count' })
      const cookie = `sid=${cookie_of(first).value}`
      const second = await app.inject({ url: '/count', headers: { cookie } })
      t.equal(second.statusCode, 200, name)
      t.equal(second.body, 'n=2', `${name}: the loaded session, not the thenable`)
      const peek = await app.inject({ url: '/peek', headers: { cookie } })
      t.same(peek.json().data, { n: '2' }, name)
      t.equal((await app.inject({ url: '/logout', headers: { cookie } })).statusCode, 200, name)
      t.same(
        log,
        ['save 90', 'lock', 'load', 'save 90', 'unlock', 'lock', 'load', 'touch 90', 'unlock'].concat([
          'lock',
          'load',
          'save 10',
          'destroy',
          'unlock',
        ]),
        `${name}: every answer awaited in order`,
      )
      t.same([...map.keys()], [`${cookie_of(first).id}.ended`], `${name}: the ended id, marked`)
    }
  })

  t.test('serializes concurrent requests of one session, so N increments end at N', async (t) => {
    const { app, store } = build(t)
    app.get('/slow-count', async (req, res) => {
      const s = req.state(Session)!
      const n = Number(s.get('n') ?? '0') + 1
      await new Promise((r) => setImmediate(r))
      s.set('n', String(n))
      res.text(`n=${n}`)
    })
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const N = 25
    const bodies = await Promise.all(
      Array.from({ length: N }, () => app.inject({ url: '/slow-count', headers: { cookie: `sid=${value}` } })),
    )
    t.same(
      bodies.map((r) => r.body).sort((a, b) => Number(a.slice(2)) - Number(b.slice(2))),
      Array.from({ length: N }, (_, i) => `n=${i + 2}`),
    )
    t.same(store.load(id!), { id, data: { n: String(N + 1) } })
  })

  t.test('without serialize, concurrent requests read the same value and the last write wins', async (t) => {
    const { app, store } = build(t, { serialize: false })
    const N = 10
    let arrived = 0
    let open!: () => void
    const all_in = new Promise<void>((r) => (open = r))
    app.get('/slow-count', async (req, res) => {
      const s = req.state(Session)!
      const n = Number(s.get('n') ?? '0') + 1
      if (++arrived === N) open()
      await all_in
      s.set('n', String(n))
      res.text(`n=${n}`)
    })
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const bodies = await Promise.all(
      Array.from({ length: N }, () => app.inject({ url: '/slow-count', headers: { cookie: `sid=${value}` } })),
    )
    t.same(new Set(bodies.map((r) => r.body)), new Set(['n=2']))
    t.same(store.load(id!), { id, data: { n: '2' } })
  })

  t.test(
    'with rolling, renews the store ttl and the cookie on every request, so an active user stays logged in',
    async (t) => {
      for (const rolling of [true, false]) {
        const { app, clock } = build(t, { ttl: 10, rolling })
        const start = clock.now
        const first = await app.inject({ url: '/count' })
        const cookie = { cookie: `sid=${cookie_of(first).value}` }
        for (const at of [4, 8]) {
          clock.now = start + at * 1000
          const read = await app.inject({ url: '/peek', headers: cookie })
          t.equal(read.json().is_new, false, `read at ${at} s`)
          t.equal(
            cookie_of(read).line?.includes('Max-Age=10') ?? false,
            rolling,
            `a read ${rolling ? 'renews' : 'sends no'} cookie`,
          )
        }
        clock.now = start + 12_000
        const later = await app.inject({ url: '/peek', headers: cookie })
        t.equal(
          later.json().is_new,
          !rolling,
          rolling ? 'alive at 12 s after reads at 4 and 8 s' : 'without rolling it ends at 10 s',
        )
      }
    },
  )

  t.test(
    'verifies with every listed secret, signs with the first, and re-signs a cookie of a rotated secret',
    async (t) => {
      const OLD = 'old-session-secret-0123456789abcdef'
      const before = build(t, { secret: OLD })
      const first = await before.app.inject({ url: '/count' })
      const { id, value } = cookie_of(first)
      const store = before.store
      const app = new App({ access_log: false })
      app.use(adapt_ctx(session({ secret: [SECRET, OLD], store })))
      app.get(
        '/peek',
        (req, res) => void res.json({ id: req.state(Session)!.id, n: req.state(Session)!.get('n') ?? null }),
      )
      t.teardown(() => app.close())
      const r = await app.inject({ url: '/peek', headers: { cookie: `sid=${value}` } })
      t.same(r.json(), { id, n: '1' }, 'a cookie of the previous secret still opens its session')
      t.equal(cookie_of(r).value, `${id}.${mac(id!)}`, 'and is signed again with the first secret')
      const again = await app.inject({ url: '/peek', headers: { cookie: `sid=${cookie_of(r).value}` } })
      t.same([again.json(), cookie_of(again).line], [{ id, n: '1' }, undefined], 'a current cookie is not re-sent')
      const retired = await build(t, { secret: SECRET }).app.inject({
        url: '/peek',
        headers: { cookie: `sid=${value}` },
      })
      t.equal(retired.json().is_new, true, 'a cookie of a secret dropped from the list opens nothing')
      t.not(retired.json().id, id)
    },
  )

  t.test('refuses bad options at creation', async (t) => {
    const bad = (options: unknown, message: RegExp) =>
      throws_coded(t, () => session(options as SessionOptions), 'FW_ERR_AUTH_BAD_OPTION', message)
    bad(undefined, /^session: options must be an object; got undefined$/)
    bad({}, /^session: secret must be a string of at least 32 characters; got undefined$/)
    bad(
      { secret: 'short' },
      /^session: secret must be a string of at least 32 characters; got a string of 5 characters$/,
    )
    // An HMAC-SHA256 key shorter than the hash (RFC 2104 section 3), as jwt refuses for HS256.
    bad(
      { secret: 'x'.repeat(31) },
      /^session: secret must be a string of at least 32 characters; got a string of 31 characters$/,
    )
    t.doesNotThrow(() => session({ secret: 'x'.repeat(32) }), 'a 32-character secret is accepted')
    bad({ secret: SECRET, cookie_name: 'a b' }, /^session: cookie_name must be an HTTP token/)
    bad(
      { secret: SECRET, cookie_path: 'app' },
      /^session: cookie_path must be a path starting with \/ without ; or spaces; got "app"$/,
    )
    bad({ secret: SECRET, cookie_path: '/a; Domain=evil' }, /^session: cookie_path must be a path/)
    bad({ secret: SECRET, same_site: 'lax' }, /^session: same_site must be one of Strict, Lax, None; got "lax"$/)
    bad({ secret: SECRET, same_site: 'None' }, /^session: secure must be true when same_site is None; got false$/)
    bad(
      { secret: SECRET, cookie_name: '__Host-sid' },
      /^session: secure must be true for a cookie named __Host-sid; got false$/,
    )
    bad(
      { secret: SECRET, cookie_name: '__Host-sid', secure: true, cookie_path: '/app' },
      /^session: cookie_path must be \/ for a __Host- cookie; got "\/app"$/,
    )
    bad({ secret: SECRET, ttl: 0 }, /^session: ttl must be an integer >= 1; got 0$/)
    bad({ secret: SECRET, ttl: 1.5 }, /^session: ttl must be an integer >= 1; got 1.5$/)
    bad({ secret: SECRET, http_only: 'yes' }, /^session: http_only must be a boolean; got "yes"$/)
    bad({ secret: SECRET, auto_create: null }, /^session: auto_create must be a boolean; got null$/)
    bad({ secret: SECRET, serialize: 0 }, /^session: serialize must be a boolean; got 0$/)
    bad({ secret: SECRET, rolling: 'yes' }, /^session: rolling must be a boolean; got "yes"$/)
    bad(
      { secret: [] },
      /^session: secret must be a string or a non-empty list of strings of at least 32 characters; got a list of 0 items$/,
    )
    bad(
      { secret: [SECRET, 'short'] },
      /^session: secret must be a string of at least 32 characters; got a string of 5 characters$/,
    )
    bad(
      { secret: SECRET, store: { load() {} } },
      /^session: store must be an object with load, save and destroy methods/,
    )
    bad(
      { secret: SECRET, store: null },
      /^session: store must be an object with load, save and destroy methods; got null$/,
    )
  })
})

/** A store that keeps every record until destroyed (ttl ignored, as a table without a sweeper), logging its calls. */
function keeping_store() {
  const map = new Map<string, SessionRecord>()
  const log: string[] = []
  const store: ISessionStore = {
    load: (sid) => map.get(sid),
    save: (s, ttl) => void (log.push(`save ${s.id} ${ttl}`), map.set(s.id, { id: s.id, data: { ...s.data } })),
    destroy: (sid) => void (log.push(`destroy ${sid}`), map.delete(sid)),
  }
  return { map, log, store }
}

/** The `Max-Age` of the session cookie a response sets, or undefined. */
const max_age = (r: { headers: Record<string, unknown> }) => /; Max-Age=(\d+);/.exec(cookie_of(r).line ?? '')?.[1]

t.test('session absolute_ttl', async (t) => {
  t.test('ends a session used every minute with rolling absolute_ttl seconds after its creation', async (t) => {
    const { app, store, clock } = build(t, { ttl: 600, absolute_ttl: 3600, rolling: true })
    const start = clock.now
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const cookie = { cookie: `sid=${value}` }
    for (let minute = 1; minute < 60; minute++) {
      clock.now = start + minute * 60_000
      const r = await app.inject({ url: '/peek', headers: cookie })
      if (r.json().is_new !== false || r.json().id !== id) t.fail(`minute ${minute}: ${r.body}`)
    }
    clock.now = start + 3_600_000 - 1
    t.equal((await app.inject({ url: '/peek', headers: cookie })).json().is_new, false, 'alive 1 ms before the end')
    clock.now = start + 3_600_000
    const ended = await app.inject({ url: '/count', headers: cookie })
    t.equal(ended.body, 'n=1', 'a new session at absolute_ttl')
    t.not(cookie_of(ended).id, id, 'with a new id and cookie')
    t.equal(store.load(id!), undefined)
    t.same(store.load(cookie_of(ended).id!), {
      id: cookie_of(ended).id,
      data: { n: '1', [CREATED_KEY]: String(clock.now) },
    })
  })

  t.test('still ends a session idle for ttl', async (t) => {
    const { app, clock } = build(t, { ttl: 60, absolute_ttl: 3600 })
    const first = await app.inject({ url: '/count' })
    const cookie = { cookie: `sid=${cookie_of(first).value}` }
    clock.now += 59_000
    t.equal((await app.inject({ url: '/count', headers: cookie })).body, 'n=2')
    clock.now += 60_000
    t.equal((await app.inject({ url: '/count', headers: cookie })).body, 'n=1')
  })

  t.test('destroys the outlived session in a store that would keep it, then starts a new one', async (t) => {
    const { map, log, store } = keeping_store()
    const { app, clock } = build(t, { store, absolute_ttl: 100 })
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    clock.now += 100_000
    const r = await app.inject({ url: '/count', headers: { cookie: `sid=${value}` } })
    t.equal(r.body, 'n=1')
    const fresh = cookie_of(r).id!
    t.not(fresh, id)
    t.same(log, [`save ${id} 100`, `destroy ${id}`, `save ${fresh} 100`])
    t.equal(map.has(id!), false, 'load finds nothing under the old id')
    t.same([...map.keys()], [fresh])
  })

  t.test('with auto_create false, an outlived session gives no session state', async (t) => {
    const { map, store } = keeping_store()
    const { app, clock } = build(t, { store, absolute_ttl: 100, auto_create: false })
    app.get('/start', (req, res) => void res.json({ id: start_session(req).id }))
    app.get('/state', (req, res) => void res.json({ has: req.state(Session) !== undefined }))
    const started = await app.inject({ url: '/start' })
    const cookie = { cookie: `sid=${cookie_of(started).value}` }
    t.same((await app.inject({ url: '/state', headers: cookie })).json(), { has: true })
    clock.now += 100_000
    const r = await app.inject({ url: '/state', headers: cookie })
    t.same(r.json(), { has: false })
    t.equal(r.headers['set-cookie'], undefined)
    t.equal(map.size, 0)
  })

  t.test('starts the clock of a session stored without a creation time at its first load', async (t) => {
    const { app, store, clock } = build(t, { ttl: WEEK, absolute_ttl: 3600 })
    const id = 'L'.repeat(32)
    store.save({ id, data: { n: '1' } }, WEEK)
    clock.now += 3_000_000
    const loaded_at = clock.now
    const cookie = { cookie: `sid=${id}.${mac(id)}` }
    const r = await app.inject({ url: '/peek', headers: cookie })
    t.same(r.json(), { id, is_new: false, data: { n: '1' } }, 'opened, the key hidden')
    t.same(store.load(id), { id, data: { n: '1', [CREATED_KEY]: String(loaded_at) } }, 'stamped though unchanged')
    t.equal(max_age(r), '3600', 'the stamp is saved, so the cookie is sent, capped')
    clock.now = loaded_at + 3_599_000
    t.equal((await app.inject({ url: '/count', headers: cookie })).body, 'n=2')
    clock.now = loaded_at + 3_600_000
    t.equal((await app.inject({ url: '/count', headers: cookie })).body, 'n=1')
  })

  t.test('treats an unreadable creation time as none: the clock starts at that load', async (t) => {
    const { app, store, clock } = build(t, { absolute_ttl: 3600 })
    const id = 'G'.repeat(32)
    store.save({ id, data: { n: '1', [CREATED_KEY]: 'not a time' } }, WEEK)
    const r = await app.inject({ url: '/peek', headers: { cookie: `sid=${id}.${mac(id)}` } })
    t.same(r.json(), { id, is_new: false, data: { n: '1' } })
    t.same(store.load(id)?.data, { n: '1', [CREATED_KEY]: String(clock.now) })
  })

  t.test('regenerate keeps the creation time', async (t) => {
    const { app, store, clock } = build(t, { absolute_ttl: 3600 })
    const start = clock.now
    const first = await app.inject({ url: '/count' })
    clock.now += 1_000_000
    const login = await app.inject({ url: '/login', headers: { cookie: `sid=${cookie_of(first).value}` } })
    const id = cookie_of(login).id!
    t.not(id, cookie_of(first).id)
    t.same(store.load(id), { id, data: { n: '1', user: 'ada', [CREATED_KEY]: String(start) } })
    t.equal(max_age(login), '2600', 'the new cookie lives what is left')
    clock.now = start + 3_600_000
    const r = await app.inject({ url: '/peek', headers: { cookie: `sid=${cookie_of(login).value}` } })
    t.equal(r.json().is_new, true, 'the regenerated session ends at the original deadline')
  })

  t.test('sign_in starts the lifetime again at the login, where an anonymous session began earlier', async (t) => {
    const { app, store, clock } = build(t, { absolute_ttl: 3600 })
    app.get('/sign-in', (req, res) => {
      sign_in(req, res, { id: 'ada' })
      res.json({ id: req.state(Session)!.id })
    })
    const first = await app.inject({ url: '/count' })
    clock.now += 3_000_000
    const login = await app.inject({ url: '/sign-in', headers: { cookie: `sid=${cookie_of(first).value}` } })
    const id = cookie_of(login).id!
    t.not(id, cookie_of(first).id, 'a new id')
    t.equal(store.load(id)?.data[CREATED_KEY], String(clock.now), 'created at the login')
    t.equal(store.load(id)?.data['n'], '1', 'the anonymous data kept')
    t.equal(max_age(login), '3600', 'the cookie lives a whole lifetime')
    clock.now += 3_000_000
    const later = await app.inject({ url: '/peek', headers: { cookie: `sid=${cookie_of(login).value}` } })
    t.same([later.json().is_new, later.json().id], [false, id], 'past the first deadline, the session lives on')
    clock.now += 600_000
    const ended = await app.inject({ url: '/peek', headers: { cookie: `sid=${cookie_of(login).value}` } })
    t.equal(ended.json().is_new, true, 'it ends absolute_ttl after the login')
  })

  t.test('caps the cookie Max-Age and the store ttl at what is left of the lifetime', async (t) => {
    const { log, store } = keeping_store()
    const { app, clock } = build(t, { store, ttl: 600, absolute_ttl: 1000, rolling: true })
    const start = clock.now
    const first = await app.inject({ url: '/count' })
    t.equal(max_age(first), '600', 'ttl when shorter')
    const cookie = { cookie: `sid=${cookie_of(first).value}` }
    clock.now = start + 700_000
    t.equal(max_age(await app.inject({ url: '/count', headers: cookie })), '300')
    clock.now = start + 950_500
    t.equal(max_age(await app.inject({ url: '/peek', headers: cookie })), '49', 'rolling: rounded down')
    const id = cookie_of(first).id
    t.same(log, [`save ${id} 600`, `save ${id} 300`, `save ${id} 49`])
  })

  t.test('hides the creation time from handlers and refuses to set it', async (t) => {
    const { app, store } = build(t, { absolute_ttl: 3600 })
    let seen: unknown[] = []
    app.get('/reserved', (req, res) => {
      const s = req.state(Session)!
      seen = [s.get(CREATED_KEY), s.delete(CREATED_KEY), Object.hasOwn(s.data, CREATED_KEY)]
      s.set(CREATED_KEY, '0')
      res.text('set')
    })
    const first = await app.inject({ url: '/count' })
    const { id, value } = cookie_of(first)
    const before = store.load(id!)
    const r = await app.inject({ url: '/reserved', headers: { cookie: `sid=${value}` } })
    t.same(seen, [undefined, false, false])
    t.equal(r.statusCode, 500, 'the handler threw FW_ERR_AUTH_RESERVED_SESSION_KEY')
    t.same(store.load(id!), before, 'the stored creation time is unchanged')
  })

  t.test('when off, writes no creation time and keeps one it loaded', async (t) => {
    const { app, store } = build(t)
    const first = await app.inject({ url: '/count' })
    t.same(store.load(cookie_of(first).id!), { id: cookie_of(first).id, data: { n: '1' } })
    const id = 'K'.repeat(32)
    store.save({ id, data: { n: '1', [CREATED_KEY]: '42' } }, WEEK)
    const r = await app.inject({ url: '/count', headers: { cookie: `sid=${id}.${mac(id)}` } })
    t.equal(r.body, 'n=2')
    t.equal(max_age(r), String(WEEK))
    t.same(store.load(id), { id, data: { n: '2', [CREATED_KEY]: '42' } })
  })

  t.test('refuses bad absolute_ttl and now values', async (t) => {
    const bad = (options: unknown, message: RegExp) =>
      throws_coded(
        t,
        () => session({ secret: SECRET, ...(options as object) } as SessionOptions),
        'FW_ERR_AUTH_BAD_OPTION',
        message,
      )
    bad({ absolute_ttl: 0 }, /^session: absolute_ttl must be an integer >= 1; got 0$/)
    bad({ absolute_ttl: 1.5 }, /^session: absolute_ttl must be an integer >= 1; got 1.5$/)
    bad({ absolute_ttl: '3600' }, /^session: absolute_ttl must be an integer >= 1; got "3600"$/)
    bad({ absolute_ttl: null }, /^session: absolute_ttl must be an integer >= 1; got null$/)
    bad({ now: 5 }, /^session: now must be a function; got 5$/)
    t.doesNotThrow(() => session({ secret: SECRET, absolute_ttl: 1, now: Date.now }))
  })
})

/** A promise to await in a handler, and the function that lets it go on. */
function gate() {
  let open!: () => void
  const closed = new Promise<void>((r) => (open = r))
  return { closed, open }
}

/** Lets every pending request of `app.inject` reach its handler (or its wait for the session's turn). */
const settle = () => new Promise((r) => setTimeout(r, 20))

t.test('session races with a login or logout', async (t) => {
  t.test('with auto_create, a request with an unknown id starts a session and sets its cookie', async (t) => {
    const { app } = build(t)
    const unknown = 'U'.repeat(32)
    const r = await app.inject({ url: '/peek', headers: { cookie: `sid=${unknown}.${mac(unknown)}` } })
    t.equal(r.json().is_new, true)
    t.match(cookie_of(r).line, /^sid=[A-Za-z0-9_-]{32}\./, 'an untouched empty session is saved, its cookie sent')
  })

  t.test('a request in flight with the cookie a login replaced sets no cookie over the new one', async (t) => {
    const { app, store } = build(t)
    const g = gate()
    app.get('/gated-login', async (req, res) => {
      await g.closed
      req.state(Session)!.regenerate()
      req.state(Session)!.set('user', 'ada')
      res.json({ id: req.state(Session)!.id })
    })
    const old = cookie_of(await app.inject({ url: '/count' }))
    const headers = { cookie: `sid=${old.value}` }
    const login = app.inject({ url: '/gated-login', headers })
    await settle()
    // Started while the login runs: it waits for the session's turn, then finds the old id gone.
    const racing = app.inject({ url: '/peek', headers })
    await settle()
    g.open()
    const [l, r] = await Promise.all([login, racing])
    const fresh = cookie_of(l)
    t.not(fresh.id, old.id, 'the login set a new id')
    t.same(store.load(fresh.id!)?.data, { n: '1', user: 'ada' })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['set-cookie'], undefined, 'the browser keeps the logged-in cookie')
    t.same([r.json().is_new, r.json().data], [true, {}], 'an empty session')
    t.not(r.json().id, old.id, 'not the ended id')
    t.equal(store.load(r.json().id), undefined, 'and it is not saved')
    t.equal(store.load(old.id!), undefined, 'the old id stays ended')
  })

  t.test('a request in flight with the cookie of a logout neither clears nor sets a cookie', async (t) => {
    const { app, store } = build(t)
    app.get('/logout-and-count', (req, res) => {
      req.state(Session)!.destroy()
      res.json({ ok: true })
    })
    const old = cookie_of(await app.inject({ url: '/count' }))
    const headers = { cookie: `sid=${old.value}` }
    const out = await app.inject({ url: '/logout', headers })
    t.equal(cookie_of(out).line, 'sid=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax')
    const late = await app.inject({ url: '/count', headers })
    t.equal(late.body, 'n=1', 'an empty session')
    t.equal(late.headers['set-cookie'], undefined)
    const again = await app.inject({ url: '/logout-and-count', headers })
    t.equal(again.headers['set-cookie'], undefined, 'its destroy clears nothing either')
    t.equal(store.load(old.id!), undefined)
  })

  t.test('after end_grace, the old cookie starts a new session as any unknown one does', async (t) => {
    for (const [options, grace] of [
      [{}, 10],
      [{ end_grace: 3 }, 3],
    ] as const) {
      const { app, clock } = build(t, options)
      const old = cookie_of(await app.inject({ url: '/count' }))
      const headers = { cookie: `sid=${old.value}` }
      await app.inject({ url: '/login', headers })
      clock.now += grace * 1000 - 1
      t.equal((await app.inject({ url: '/count', headers })).headers['set-cookie'], undefined, `within ${grace} s`)
      clock.now += 1
      const after = await app.inject({ url: '/count', headers })
      t.equal(after.body, 'n=1')
      t.match(cookie_of(after).line, /^sid=/, `a new session and cookie after ${grace} s`)
    }
  })

  t.test('with end_grace 0, the ended id is not marked: the old cookie starts a new session at once', async (t) => {
    const { map, log, store } = keeping_store()
    const { app } = build(t, { store, end_grace: 0 })
    const old = cookie_of(await app.inject({ url: '/count' }))
    const login = await app.inject({ url: '/login', headers: { cookie: `sid=${old.value}` } })
    const late = await app.inject({ url: '/count', headers: { cookie: `sid=${old.value}` } })
    t.match(cookie_of(late).line, /^sid=/)
    t.same(log.slice(0, 3), [`save ${old.id} ${WEEK}`, `save ${cookie_of(login).id} ${WEEK}`, `destroy ${old.id}`])
    t.equal(map.size, 2, 'the login and the late request: no marker')
  })

  t.test('marks the ended id in the store itself, with the grace as its ttl', async (t) => {
    const { map, log, store } = keeping_store()
    const { app } = build(t, { store, end_grace: 7 })
    const old = cookie_of(await app.inject({ url: '/count' }))
    const login = await app.inject({ url: '/login', headers: { cookie: `sid=${old.value}` } })
    const fresh = cookie_of(login).id
    t.same(log, [`save ${old.id} ${WEEK}`, `save ${fresh} ${WEEK}`, `save ${old.id}.ended 7`, `destroy ${old.id}`])
    t.equal(map.has(old.id!), false, 'the old record is gone')
    const out = await app.inject({ url: '/logout', headers: { cookie: `sid=${cookie_of(login).value}` } })
    t.equal(out.statusCode, 200)
    t.same(log.slice(4), [`save ${fresh}.ended 7`, `destroy ${fresh}`])
  })

  t.test('refuses a bad end_grace', async (t) => {
    throws_coded(
      t,
      () => session({ secret: SECRET, end_grace: -1 }),
      'FW_ERR_AUTH_BAD_OPTION',
      /^session: end_grace must be an integer >= 0; got -1$/,
    )
  })

  t.test('with rolling and a store without touch, a refresh never brings back a destroyed session', async (t) => {
    const inner = new InMemorySessionStore()
    const store: ISessionStore = {
      load: (sid) => inner.load(sid),
      save: (s, ttl) => inner.save(s, ttl),
      destroy: (sid) => inner.destroy(sid),
    }
    const { app } = build(t, { store, rolling: true, serialize: false })
    const g = gate()
    app.get('/gated-peek', async (req, res) => {
      await g.closed
      res.json({ data: req.state(Session)!.data })
    })
    const old = cookie_of(await app.inject({ url: '/count' }))
    const headers = { cookie: `sid=${old.value}` }
    const reading = app.inject({ url: '/gated-peek', headers })
    await settle()
    const out = await app.inject({ url: '/logout', headers })
    t.equal(cookie_of(out).line, 'sid=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax')
    g.open()
    const r = await reading
    t.same(r.json(), { data: { n: '1' } }, 'the read saw the session it loaded')
    t.equal(inner.load(old.id!), undefined, 'the logged-out session stays gone')
    t.equal(r.headers['set-cookie'], undefined, 'and its cookie is not sent again')
    const still = await app.inject({
      url: '/peek',
      headers: { cookie: `sid=${cookie_of(await app.inject({ url: '/count' })).value}` },
    })
    t.match(cookie_of(still).line, /; Max-Age=604800;/, 'a session still there is renewed')
  })
})
