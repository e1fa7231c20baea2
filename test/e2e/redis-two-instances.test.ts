// Two App processes on two ports sharing one real Redis: sessions, rate limits and cached responses span both; with
// Redis killed they answer 503 or bypass within bounded time and never crash; after Redis restarts on the same port
// they recover.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { send, type SocketResponse } from '../helpers/http.js'
import { start_redis } from '../helpers/redis-server.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/redis-app.ts', import.meta.url))

interface Instance {
  name: string
  port: number
  child: ChildProcess
  stderr: () => string
}

/** Starts the fixture under `node --import tsx` and resolves once it prints its port. */
async function start_instance(name: string, redis_port: number, fail_open: boolean): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: {
      ...process.env,
      REDIS_PORT: String(redis_port),
      INSTANCE: name,
      FAIL_OPEN: fail_open ? '1' : '0',
      FW_LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let err = ''
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening (\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', (code) => reject(new Error(`instance ${name} exited with ${code} before listening: ${err}`)))
  })
  return { name, port, child, stderr: () => err }
}

/** GET `path` on an instance, with optional headers; also measures how long the answer took. */
async function get(
  i: Instance,
  path: string,
  headers: Record<string, string> = {},
): Promise<SocketResponse & { ms: number }> {
  const started = Date.now()
  const r = await send(i.port, { path, headers })
  return { ...r, ms: Date.now() - started }
}

const cookie_of = (r: SocketResponse): string => String(r.headers['set-cookie']).split(';')[0]!

/**
 * The Host of `/cached` requests: the one public host a load balancer forwards to both instances. `http_cache` keys on
 * the host, so each instance's own `127.0.0.1:<port>` would give each its own entries.
 */
const SITE = { host: 'app.example' }

t.test('two App instances on one Redis', async (t) => {
  const redis = await start_redis(t)
  const [a, b] = await Promise.all([start_instance('a', redis.port, true), start_instance('b', redis.port, false)])
  for (const i of [a, b]) t.teardown(() => void (i.child.exitCode === null && i.child.kill('SIGKILL')))
  let cookie = ''

  t.test('continue a session created on one instance on the other', async (t) => {
    const first = await get(a, '/session')
    cookie = cookie_of(first)
    const bodies = [first.body]
    for (let n = 0; n < 5; n++) bodies.push((await get(n % 2 ? a : b, '/session', { cookie })).body)
    t.same(bodies, ['n=1', 'n=2', 'n=3', 'n=4', 'n=5', 'n=6'])
  })

  t.test('count one rate limit across both instances', async (t) => {
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, n) => get(n % 2 ? a : b, '/limited', { 'x-client': 'burst' })),
    )
    const passed = rs.filter((r) => r.status === 200)
    t.equal(passed.length, 20, 'exactly max_requests pass in total')
    t.equal(rs.filter((r) => r.status === 429).length, 10)
    t.ok(
      passed.some((r) => r.body.includes('"a"')) && passed.some((r) => r.body.includes('"b"')),
      'both instances let some through',
    )
    const remaining = passed.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => x - y)
    t.same(
      remaining,
      Array.from({ length: 20 }, (_, n) => n),
      'every passed request saw its own count',
    )
  })

  t.test('serve a response cached by one instance from the other', async (t) => {
    const miss = await get(a, '/cached', SITE)
    t.equal(miss.headers['x-fw-cache-status'], 'miss')
    t.same(JSON.parse(miss.body), { instance: 'a', handled: 1 })
    const hit = await get(b, '/cached', SITE)
    t.equal(hit.headers['x-fw-cache-status'], 'hit')
    t.same(JSON.parse(hit.body), { instance: 'a', handled: 1 }, 'b answers with what a stored')
  })

  t.test('degrade within bounded time while Redis is down, without crashing', async (t) => {
    await redis.kill()
    for (const i of [a, b]) {
      const s = await get(i, '/session', { cookie })
      t.equal(s.status, 503, `${i.name}: session`)
      t.same(JSON.parse(s.body), {
        ok: false,
        error: 'session_store_unavailable',
        message: 'Session store unavailable, retry later',
      })
      t.ok(s.ms < 2000, `${i.name}: answered in ${s.ms} ms`)
    }
    const c = await get(b, '/cached', SITE)
    t.equal(c.status, 200)
    t.equal(c.headers['x-fw-cache-status'], 'bypass')
    t.same(JSON.parse(c.body), { instance: 'b', handled: 1 }, 'the handler ran')
    const open = await get(a, '/limited', { 'x-client': 'down' })
    t.equal(open.status, 200, 'fail_open: true lets the request through')
    t.equal(open.headers['x-ratelimit-limit'], undefined)
    const closed = await get(b, '/limited', { 'x-client': 'down' })
    t.equal(closed.status, 503, 'fail_open: false refuses it')
    t.same(JSON.parse(closed.body), {
      ok: false,
      error: 'rate_limit_unavailable',
      message: 'Rate limit unavailable, retry later',
    })
    t.same([a.child.exitCode, b.child.exitCode], [null, null], 'both instances still run')
  })

  t.test('recover once Redis is back on the same port', async (t) => {
    await redis.restart()
    let s = await get(a, '/session', { cookie })
    for (const deadline = Date.now() + 5000; s.status !== 200 && Date.now() < deadline;)
      s = await get(a, '/session', { cookie })
    t.equal(s.status, 200, 'sessions answer again')
    t.equal(s.body, 'n=1', 'the restarted Redis kept nothing (no persistence), so the session starts over')
    cookie = cookie_of(s)
    t.equal((await get(b, '/session', { cookie })).body, 'n=2')
    const limited = [
      await get(b, '/limited', { 'x-client': 'after' }),
      await get(a, '/limited', { 'x-client': 'after' }),
    ]
    t.same(
      limited.map((r) => [r.status, r.headers['x-ratelimit-remaining']]),
      [
        [200, '19'],
        [200, '18'],
      ],
    )
    t.equal((await get(b, '/cached', SITE)).headers['x-fw-cache-status'], 'miss')
    const hit = await get(a, '/cached', SITE)
    t.equal(hit.headers['x-fw-cache-status'], 'hit')
    t.same(JSON.parse(hit.body), { instance: 'b', handled: 2 })
  })

  t.test('exit cleanly on SIGTERM, with no unhandled rejection on the way', async (t) => {
    for (const i of [a, b]) {
      const exited = once(i.child, 'exit')
      i.child.kill('SIGTERM')
      const [code, signal] = await exited
      t.same({ code, signal }, { code: 0, signal: null }, `${i.name} exit`)
      t.equal(i.stderr(), '', `${i.name} wrote nothing to stderr`)
    }
  })
})
