// The conduit demo's storage for real: data survives SIGTERM and a new start (SQLite and PostgreSQL), a stopped
// PostgreSQL answers 503 database_unavailable and recovers without a restart, and two instances over one PostgreSQL
// start together and let one of two identical registrations through.
import t from 'tap'
import { start_child_server } from '../../helpers/child-server.js'
import { call, conduit_app, errors, fresh_database, register, TEST_SECRET } from '../../helpers/conduit.js'
import { start_postgres } from '../../helpers/postgres-server.js'
import { CONDUIT_MIGRATIONS } from '../../../demo/conduit/migrations.js'

async function http(port: number, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers['authorization'] = `Token ${token}`
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: r.status, body: (await r.json()) as Record<string, Record<string, unknown>> }
}

// Four child servers and a PostgreSQL take more than tap's 60 s on a loaded machine.
t.setTimeout(240_000)

t.test('conduit storage', async (t) => {
  const pg = await start_postgres(t)

  for (const kind of ['sqlite', 'postgres'] as const) {
    t.test(`${kind}: written data is read back after SIGTERM and a new start`, async (t) => {
      const database = await fresh_database(t, kind, pg)
      const env = { DATABASE_URL: database, CONDUIT_JWT_SECRET: TEST_SECRET }
      const args = ['conduit', '--port', '0']
      const first = await start_child_server(t, 'demo/run.ts', { env, args })
      t.match(first.output(), `conduit: storage ${kind}`)
      const user = { username: 'keeper', email: 'keeper@example.com', password: 'keep-it-safe' }
      const reg = await http(first.port, 'POST', '/api/users', { user })
      t.equal(reg.status, 201)
      const token = reg.body['user']!['token'] as string
      const art = await http(
        first.port,
        'POST',
        '/api/articles',
        { article: { title: 'Kept', description: 'd', body: 'b', tagList: ['kept'] } },
        token,
      )
      t.equal(art.status, 201)
      first.child.kill('SIGTERM')
      t.same((await first.exited)[0], 0, 'exits cleanly on SIGTERM')
      const second = await start_child_server(t, 'demo/run.ts', { env, args })
      const login = await http(second.port, 'POST', '/api/users/login', {
        user: { email: user.email, password: user.password },
      })
      t.equal(login.status, 200)
      const read = await http(second.port, 'GET', '/api/articles/kept', undefined, token)
      t.match(read, {
        status: 200,
        body: { article: { slug: 'kept', tagList: ['kept'], author: { username: 'keeper' } } },
      })
      second.child.kill('SIGTERM')
      await second.exited
    })
  }

  t.test('postgres stopped: 503 database_unavailable; back: served again without a restart', async (t) => {
    const { app } = await conduit_app(t, await fresh_database(t, 'postgres', pg))
    const token = await register(app, 'patient')
    t.equal((await call(app, 'GET', '/api/articles')).status, 200)
    await pg.halt()
    for (const [method, url] of [
      ['GET', '/api/articles'],
      ['GET', '/api/user'],
      ['POST', '/api/articles'],
    ] as const) {
      const body = method === 'POST' ? { article: { title: 't', description: 'd', body: 'b' } } : undefined
      const r = await call(app, method, url, body, token)
      t.same(
        [r.status, r.body, r.headers['retry-after']],
        [503, { ...errors('the database is unavailable; try again shortly'), code: 'database_unavailable' }, '1'],
        `${method} ${url}`,
      )
    }
    await pg.start()
    t.equal((await call(app, 'GET', '/api/user', undefined, token)).status, 200)
    const created = await call(
      app,
      'POST',
      '/api/articles',
      { article: { title: 'Back', description: 'd', body: 'b' } },
      token,
    )
    t.equal(created.status, 201)
  })

  t.test(
    'two instances on one PostgreSQL: they migrate together, one of two identical registrations wins',
    async (t) => {
      const database = await fresh_database(t, 'postgres', pg)
      const [a, b] = await Promise.all([conduit_app(t, database), conduit_app(t, database)])
      for (let i = 0; i < 5; i++) {
        const user = { user: { username: `twin${i}`, email: `twin${i}@example.com`, password: 'twinstwins' } }
        const answers = await Promise.all([
          call(a.app, 'POST', '/api/users', user),
          call(b.app, 'POST', '/api/users', user),
        ])
        t.same(answers.map((r) => r.status).sort(), [201, 422], `round ${i}`)
        t.match(answers.find((r) => r.status === 422)?.body, { errors: { body: [/has already been taken$/] } })
      }
      const users = await a.c.db.kysely
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      t.equal(Number(users.n), 5)
      const versions = await a.c.db.kysely.selectFrom('fw_migrations').select('version').orderBy('version').execute()
      t.same(
        versions.map((v) => Number(v.version)),
        CONDUIT_MIGRATIONS.map((m) => m.version),
        'each migration ran once',
      )
    },
  )
})
