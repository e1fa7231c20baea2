// Production mode of the reference authentication API: scrypt hashes, random expiring tokens, login limits, log lines.
import t, { type Test } from 'tap'
import { auth_api, type AuthApiOptions, type AuthService } from '../../demo/auth-api/index.js'
import type { App } from '../../index.js'
import { MemoryRateLimitStore } from '../../lib/middleware/security/index.js'
import { build } from '../helpers/build.js'

const PASSWORD = 'correct horse'
const ADA = { email: 'ada@example.com', password: PASSWORD, confirm: PASSWORD }
// A multiple of 60 s, so windows of the login limits start exactly at T0.
const T0 = 1_800_000_000_000

function api(t: Test, options: AuthApiOptions = {}): { app: App; auth: AuthService; clock: { ms: number } } {
  const clock = { ms: T0 }
  let auth!: AuthService
  const app = build(
    t,
    (app) =>
      void (auth = auth_api(app, {
        mode: 'production',
        env: {},
        scrypt: { cost: 1024 },
        now: () => clock.ms,
        ...options,
      })),
  )
  return { app, auth, clock }
}

const post = (app: App, url: string, payload: unknown, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, remoteAddress })
const me = (app: App, token: string) => app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${token}` } })

t.test('auth_api in production mode', async (t) => {
  t.test('keeps a salted scrypt hash with its parameters, never the password', async (t) => {
    const { app, auth } = api(t, { scrypt: {} })
    await post(app, '/auth/register', ADA)
    await post(app, '/auth/register', { ...ADA, email: 'bob@example.com' })
    const [ada, bob] = (await auth.users.list()).map((u) => u.password)
    t.match(ada, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/)
    t.notMatch(ada, PASSWORD)
    t.not(ada, bob, 'the same password hashes differently under another salt')
    t.equal((await post(app, '/auth/login', { email: 'bob@example.com', password: PASSWORD })).statusCode, 200)
  })

  t.test('keeps the password as sent in demo mode, as the spec record does', async (t) => {
    const { app, auth } = api(t, { mode: 'demo' })
    await post(app, '/auth/register', ADA)
    t.equal((await auth.users.list())[0]!.password, PASSWORD)
  })

  t.test('hands out a new random token on every login, each one valid', async (t) => {
    const { app } = api(t)
    await post(app, '/auth/register', ADA)
    const tokens = await Promise.all(
      [1, 2, 3].map(async () => (await post(app, '/auth/login', ADA)).json().token as string),
    )
    t.equal(new Set(tokens).size, 3)
    for (const token of tokens) {
      t.match(token, /^[A-Za-z0-9_-]{43}$/)
      t.equal((await me(app, token)).statusCode, 200)
    }
    t.equal((await me(app, 'dev-token-1')).statusCode, 401, 'a demonstration token means nothing here')
  })

  t.test('expires a token ttl seconds after login', async (t) => {
    const { app, clock } = api(t, { ttl: 60 })
    await post(app, '/auth/register', ADA)
    const login = await post(app, '/auth/login', ADA)
    t.same(login.json(), { ok: true, token: login.json().token, expires_in: 60 })
    clock.ms += 59_999
    t.equal((await me(app, login.json().token)).statusCode, 200)
    clock.ms += 1
    const expired = await me(app, login.json().token)
    t.same([expired.statusCode, expired.json()], [401, { ok: false, error: 'unauthorized' }])
    const admin = await app.inject({ url: '/auth/admin', headers: { authorization: `Bearer ${login.json().token}` } })
    t.same([admin.statusCode, admin.json()], [401, { ok: false, error: 'unauthorized' }])
  })

  t.test('limits login attempts per email, whatever its case, with 429 and Retry-After', async (t) => {
    const { app, clock } = api(t)
    await post(app, '/auth/register', ADA)
    const wrong = { email: ADA.email, password: 'wrong password' }
    const first = await post(app, '/auth/login', wrong)
    t.same(
      [first.statusCode, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']],
      [401, '5', '4'],
    )
    for (let i = 0; i < 4; i++) t.equal((await post(app, '/auth/login', wrong)).statusCode, 401)
    const limited = await post(app, '/auth/login', { ...ADA, email: ' ADA@Example.com' })
    t.equal(limited.statusCode, 429)
    t.same(limited.json(), { ok: false, error: 'rate_limit_exceeded', message: 'Too many requests, retry later' })
    // Six hits in one window: the sliding estimate falls back to 5 a third into the next window, 80 s from now.
    t.equal(limited.headers['retry-after'], '80')
    t.equal((await post(app, '/auth/login', ADA)).statusCode, 429, 'the right password waits too')
    t.equal(
      (await post(app, '/auth/login', { email: 'bob@example.com', password: PASSWORD })).statusCode,
      401,
      'other emails go on',
    )
    clock.ms += 120_000
    t.equal((await post(app, '/auth/login', ADA)).statusCode, 200, 'two windows later the email may log in')
  })

  t.test('limits login attempts per client address across emails', async (t) => {
    const { app, clock } = api(t, { login_limit_per_ip: { max_requests: 3, window_seconds: 60 } })
    const attempt = (i: number, ip: string) =>
      post(app, '/auth/login', { email: `u${i}@example.com`, password: PASSWORD }, ip)
    const codes = []
    for (let i = 0; i < 4; i++) codes.push((await attempt(i, '10.0.0.1')).statusCode)
    t.same(codes, [401, 401, 401, 429])
    t.equal((await attempt(9, '10.0.0.2')).statusCode, 401, 'another address has its own count')
    clock.ms += 120_000
    t.equal((await attempt(0, '10.0.0.1')).statusCode, 401)
  })

  t.test('counts a login body without an email per address only', async (t) => {
    const { app } = api(t, { login_limit_per_email: { max_requests: 1, window_seconds: 60 } })
    for (const body of [{}, { email: '' }, { email: '  ' }, { email: 7 }]) {
      t.equal((await post(app, '/auth/login', { ...body, password: PASSWORD })).statusCode, 400, JSON.stringify(body))
    }
  })

  t.test('leaves register out of the login limits', async (t) => {
    const { app } = api(t, { login_limit_per_ip: { max_requests: 1, window_seconds: 60 } })
    for (let i = 0; i < 3; i++) {
      const r = await post(app, '/auth/register', { ...ADA, email: `u${i}@example.com` })
      // Counted by the registration limit (10 an hour), not by the login limit of 1.
      t.same([r.statusCode, r.headers['x-ratelimit-limit']], [201, '10'])
    }
  })

  t.test('limits registrations per client address, 10 an hour, with 429 and Retry-After', async (t) => {
    const { app, auth, clock } = api(t)
    const register = (i: number, ip = '10.0.0.1') =>
      post(app, '/auth/register', { ...ADA, email: `u${i}@example.com` }, ip)
    const first = await register(0)
    t.same(
      [first.statusCode, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']],
      [201, '10', '9'],
    )
    for (let i = 1; i < 10; i++) t.equal((await register(i)).statusCode, 201)
    const limited = await register(10)
    t.equal(limited.statusCode, 429)
    t.same(limited.json(), { ok: false, error: 'rate_limit_exceeded', message: 'Too many requests, retry later' })
    // Eleven hits in one window of an hour: the sliding estimate falls back to 10 at 2/11 into the next window.
    t.equal(limited.headers['retry-after'], String(Math.ceil(3600 + (3600 * 2) / 11)))
    t.equal((await auth.users.list()).length, 10, 'the refused registration created no user')
    t.equal(
      (await post(app, '/auth/login', { email: 'u10@example.com', password: PASSWORD })).statusCode,
      401,
      'the refused email cannot log in',
    )
    t.equal((await register(11, '10.0.0.2')).statusCode, 201, 'another address has its own count')
    clock.ms += 2 * 3600_000
    t.equal((await register(10)).statusCode, 201, 'two windows later the address may register again')
  })

  t.test('counts invalid registrations too, before validation', async (t) => {
    const { app, auth } = api(t, { register_limit_per_ip: { max_requests: 3, window_seconds: 60 } })
    const invalid = [{}, { ...ADA, email: 'not an email' }, { ...ADA, confirm: 'other password' }]
    for (const body of invalid) t.equal((await post(app, '/auth/register', body)).statusCode, 400, JSON.stringify(body))
    const limited = await post(app, '/auth/register', ADA)
    t.same([limited.statusCode, limited.json().error], [429, 'rate_limit_exceeded'])
    t.ok(limited.headers['retry-after'])
    t.same(await auth.users.list(), [])
    const refused = await post(app, '/auth/register', {})
    t.same([refused.statusCode, refused.json().error], [429, 'rate_limit_exceeded'], 'refused before validation')
    const other = await post(app, '/auth/register', { ...ADA, password: '' }, '10.9.9.9')
    t.equal(other.statusCode, 400, 'another address is still validated')
  })

  t.test('tells another address behind a trusted proxy apart by X-Forwarded-For', async (t) => {
    const clock = { ms: T0 }
    const app = build(
      t,
      (app) =>
        void auth_api(app, {
          mode: 'production',
          env: {},
          scrypt: { cost: 1024 },
          now: () => clock.ms,
          register_limit_per_ip: { max_requests: 1, window_seconds: 60 },
        }),
      { trust_proxy: ['127.0.0.1'] },
    )
    const from = (ip: string, i: number) =>
      app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: { ...ADA, email: `u${i}@example.com` },
        headers: { 'x-forwarded-for': ip },
      })
    t.equal((await from('203.0.113.1', 0)).statusCode, 201)
    t.equal((await from('203.0.113.1', 1)).statusCode, 429)
    t.equal((await from('203.0.113.2', 2)).statusCode, 201)
  })

  t.test('counts registrations and logins apart in one shared store', async (t) => {
    const one = { max_requests: 1, window_seconds: 60 }
    const { app } = api(t, {
      rate_limit_store: new MemoryRateLimitStore(),
      register_limit_per_ip: one,
      login_limit_per_ip: one,
      login_limit_per_email: one,
    })
    t.equal((await post(app, '/auth/register', ADA)).statusCode, 201)
    t.equal((await post(app, '/auth/login', ADA)).statusCode, 200, 'the registration left the login count alone')
    t.equal((await post(app, '/auth/register', { ...ADA, email: 'bob@example.com' })).statusCode, 429)
    t.equal((await post(app, '/auth/login', ADA)).statusCode, 429)
  })

  t.test('has no registration limit in demo mode', async (t) => {
    const { app, auth } = api(t, { mode: 'demo' })
    const codes = new Set<unknown>()
    for (let i = 0; i < 15; i++) {
      const r = await post(app, '/auth/register', { ...ADA, email: `u${i}@example.com` })
      codes.add(`${r.statusCode} ${r.headers['x-ratelimit-limit']}`)
    }
    t.same([...codes], ['201 undefined'])
    t.equal((await auth.users.list()).length, 15)
  })

  t.test('has no login limits in demo mode', async (t) => {
    const { app } = api(t, { mode: 'demo' })
    const codes = new Set<number>()
    for (let i = 0; i < 30; i++)
      codes.add((await post(app, '/auth/login', { email: ADA.email, password: 'wrong password' })).statusCode)
    t.same([...codes], [401])
  })

  t.test('logs each registration and login without the password or the token', async (t) => {
    const lines: string[] = []
    const { app } = api(t, { log: (line) => lines.push(line) })
    await post(app, '/auth/register', ADA)
    await post(app, '/auth/register', ADA)
    await post(app, '/auth/register', { ...ADA, confirm: 'other password' })
    await post(app, '/auth/login', { email: ADA.email, password: PASSWORD + '!' })
    const token = (await post(app, '/auth/login', ADA, '10.1.2.3')).json().token as string
    t.same(lines, [
      'auth registered user_id=1 role=user ip=127.0.0.1',
      'auth register refused reason=email_taken ip=127.0.0.1',
      'auth login refused reason=invalid_credentials ip=127.0.0.1',
      'auth logged in user_id=1 ip=10.1.2.3',
    ])
    for (const line of lines) {
      t.notMatch(line, PASSWORD)
      t.notMatch(line, token)
    }
  })

  t.test('releases the email when creating the user fails, so a retry is not refused as taken', async (t) => {
    let fail = true
    const passwords = {
      hash: async (p: string) => {
        if (fail) throw new Error('hashing failed')
        return `x${p.length}`
      },
      verify: async () => false,
    }
    const { app, auth } = api(t, { passwords })
    const broken = await post(app, '/auth/register', ADA)
    t.same([broken.statusCode, broken.json().error], [500, 'internal_error'])
    t.notMatch(broken.body, PASSWORD)
    fail = false
    t.equal((await post(app, '/auth/register', ADA)).statusCode, 201)
    t.same(
      (await auth.users.list()).map((u) => [u.id, u.password]),
      [[1, 'x13']],
    )
  })
})
