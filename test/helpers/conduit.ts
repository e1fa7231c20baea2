// Test helpers for the conduit demo: an App over a given database, requests in the RealWorld shape, and the databases
// the suite runs on (a temp SQLite file, and a database of a private PostgreSQL).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { App } from '../../index.js'
import { ScryptPasswords } from '../../demo/auth-api/passwords.js'
import { conduit, type Conduit } from '../../demo/conduit/index.js'
import { build, type Teardown } from './build.js'
import type { PostgresServer } from './postgres-server.js'

/** The secret the tests sign with (32 characters or more). */
export const TEST_SECRET = 'conduit-test-secret-0123456789-abcdefghij'

/** A conduit App and its storage. */
export interface ConduitApp {
  readonly app: App
  readonly c: Conduit
}

/** An App serving conduit over `database`, closed (with its storage) when the test ends. Cheap scrypt for speed. */
export async function conduit_app(t: Teardown, database: string): Promise<ConduitApp> {
  let started: Promise<Conduit> | undefined
  const app = build(t, (app) => {
    started = conduit(app, { database, jwt_secret: TEST_SECRET, passwords: new ScryptPasswords({ cost: 1024 }) })
  })
  const c = await started!
  t.teardown(() => c.close())
  return { app, c }
}

/** A fresh SQLite URL in a temp dir removed when the test ends. */
export function sqlite_url(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-conduit-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return `sqlite:${join(dir, 'conduit.sqlite')}`
}

let databases = 0

/** A fresh database URL of the given kind. */
export async function fresh_database(t: Teardown, kind: 'sqlite' | 'postgres', pg?: PostgresServer): Promise<string> {
  if (kind === 'sqlite') return sqlite_url(t)
  return pg!.create_database(`conduit_${process.pid}_${++databases}`)
}

/** An answer: status, parsed JSON body (undefined when empty) and headers. */
export interface Answer {
  status: number
  body: unknown
  headers: Record<string, unknown>
}

/** Sends one request; `token` goes in `Authorization: Token <token>`; a string body is sent as is. */
export async function call(app: App, method: string, url: string, body?: unknown, token?: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers['authorization'] = `Token ${token}`
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  const r = await app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) })
  return { status: r.statusCode, body: r.body === '' ? undefined : JSON.parse(r.body), headers: r.headers }
}

/** Registers `name` (email `<name>@example.com`, password `password-<name>`) and returns its token. */
export async function register(app: App, name: string): Promise<string> {
  const r = await call(app, 'POST', '/api/users', {
    user: { username: name, email: `${name}@example.com`, password: `password-${name}` },
  })
  if (r.status !== 201) throw new Error(`register ${name}: ${r.status} ${JSON.stringify(r.body)}`)
  return (r.body as { user: { token: string } }).user.token
}

/** The RealWorld error body with these messages. */
export function errors(...messages: string[]): { errors: { body: string[] } } {
  return { errors: { body: messages } }
}
