// The reference auth API made durable (issue 27): in production mode a registered user logs in after SIGTERM and a new
// start, on SQLite and on PostgreSQL, and a token issued before the restart still names its user; two instances over
// one PostgreSQL share users (a user registered on one logs in on the other, and the email is taken on both).
import t from 'tap'
import { start_child_server } from '../helpers/child-server.js'
import { fresh_database } from '../helpers/conduit.js'
import { start_postgres } from '../helpers/postgres-server.js'

async function http(port: number, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: r.status, body: (await r.json()) as Record<string, unknown> }
}

const ADA = { email: 'ada@example.com', password: 'correct horse battery', confirm: 'correct horse battery' }
const LOGIN = { email: ADA.email, password: ADA.password }
const ARGS = ['auth-api', '--port', '0']

// Child servers and a PostgreSQL take more than tap's 60 s on a loaded machine.
t.setTimeout(240_000)

t.test('auth-api storage', async (t) => {
  const pg = await start_postgres(t)

  for (const kind of ['sqlite', 'postgres'] as const) {
    t.test(`${kind}: register, SIGTERM, start, log in`, async (t) => {
      const env = { DATABASE_URL: await fresh_database(t, kind, pg), FW_AUTH_MODE: 'production' }
      const first = await start_child_server(t, 'demo/run.ts', { env, args: ARGS })
      t.match(first.output(), `auth-api: storage ${kind}`)
      const reg = await http(first.port, 'POST', '/auth/register', ADA)
      t.same(reg, { status: 201, body: { ok: true, user: { id: 1, email: ADA.email, role: 'user' } } })
      const before = await http(first.port, 'POST', '/auth/login', LOGIN)
      t.equal(before.status, 200)
      first.child.kill('SIGTERM')
      t.same((await first.exited)[0], 0, 'exits cleanly on SIGTERM')

      const second = await start_child_server(t, 'demo/run.ts', { env, args: ARGS })
      const login = await http(second.port, 'POST', '/auth/login', LOGIN)
      t.match(login, { status: 200, body: { ok: true, token: /^[A-Za-z0-9_-]{43}$/, expires_in: 3600 } })
      const me = { status: 200, body: { ok: true, user: { id: 1, email: ADA.email, role: 'user' } } }
      t.same(await http(second.port, 'GET', '/auth/me', undefined, login.body['token'] as string), me)
      t.same(
        await http(second.port, 'GET', '/auth/me', undefined, before.body['token'] as string),
        me,
        'a token issued before the restart still names its user',
      )
      t.same(
        (await http(second.port, 'POST', '/auth/register', ADA)).status,
        409,
        'the email is still taken after the restart',
      )
      second.child.kill('SIGTERM')
      await second.exited
    })
  }

  t.test('postgres: two instances share users', async (t) => {
    const env = { DATABASE_URL: await fresh_database(t, 'postgres', pg), FW_AUTH_MODE: 'production' }
    const [a, b] = await Promise.all([
      start_child_server(t, 'demo/run.ts', { env, args: ARGS }),
      start_child_server(t, 'demo/run.ts', { env, args: ARGS }),
    ])
    t.equal((await http(a.port, 'POST', '/auth/register', ADA)).status, 201)
    const login = await http(b.port, 'POST', '/auth/login', LOGIN)
    t.equal(login.status, 200, 'registered on one, logs in on the other')
    t.same(await http(a.port, 'GET', '/auth/me', undefined, login.body['token'] as string), {
      status: 200,
      body: { ok: true, user: { id: 1, email: ADA.email, role: 'user' } },
    })
    t.same(await http(b.port, 'POST', '/auth/register', ADA), {
      status: 409,
      body: { ok: false, error: 'email_taken', message: 'email already registered' },
    })
    const bob = { email: 'bob@example.com', password: 'another long pass', confirm: 'another long pass' }
    const both = await Promise.all([
      http(a.port, 'POST', '/auth/register', bob),
      http(b.port, 'POST', '/auth/register', bob),
    ])
    t.same(both.map((r) => r.status).sort(), [201, 409], 'one registration of one email sent to both at once')
    a.child.kill('SIGTERM')
    b.child.kill('SIGTERM')
    await Promise.all([a.exited, b.exited])
  })
})
