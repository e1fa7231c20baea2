// A private PostgreSQL for tests: Debian's binaries, a cluster made by initdb in a temp dir (run as the `postgres` user
// when this process is root, as in CI), 127.0.0.1 on a free port, its socket in the temp dir; stopped when the test ends.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chownSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { Teardown } from './build.js'
import { free_port } from './redis-server.js'
import { ensure } from './services.js'

/** A running (or stopped, then restartable) PostgreSQL server. */
export interface PostgresServer {
  readonly port: number
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust authentication on 127.0.0.1 only). */
  url(database?: string): string
  /** Creates a database and returns its URL. */
  create_database(name: string): Promise<string>
  /** Stops the server (fast shutdown) and waits for it to exit; the data stays for `start()`. */
  halt(): Promise<void>
  /** Starts it again on the same port and data, and waits until it accepts connections. */
  start(): Promise<void>
  /** Stops the server and removes its temp dir. */
  stop(): Promise<void>
}

/** The folder of Debian's PostgreSQL binaries (`/usr/lib/postgresql/<version>/bin`), newest version first. */
export function postgres_bin(): string | undefined {
  const root = '/usr/lib/postgresql'
  let versions: string[]
  try {
    versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  } catch {
    return undefined
  }
  for (const v of versions) {
    const bin = join(root, v, 'bin')
    if (spawnSync(join(bin, 'initdb'), ['--version']).status === 0) return bin
  }
  return undefined
}

/** The uid and gid to run the server as: the `postgres` user when root (PostgreSQL refuses to run as root). */
function run_as(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim())
  return { uid: id('-u'), gid: id('-g') }
}

async function accepts(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * Starts a private PostgreSQL for the test and stops it when the test ends (also if this process exits first).
 * @example
 * const pg = await start_postgres(t)
 * const url = await pg.create_database('conduit_a')
 */
export async function start_postgres(t: Teardown): Promise<PostgresServer> {
  ensure('postgresql')
  const bin = postgres_bin()!
  const user = run_as()
  const dir = mkdtempSync(join(tmpdir(), 'fw-postgres-'))
  chmodSync(dir, 0o700)
  if (user !== undefined) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
    {
      ...user,
      encoding: 'utf8',
    },
  )
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr}`)
  const port = await free_port()
  let child: ChildProcess | undefined
  const launch = async (): Promise<void> => {
    const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1']
    const fast = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
    child = spawn(join(bin, 'postgres'), [...args, ...fast], { ...user, stdio: 'ignore' })
    let exited = false
    child.once('exit', () => (exited = true))
    for (const deadline = Date.now() + 15_000; Date.now() < deadline && !exited;) {
      if (await accepts(port)) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    child.kill('SIGKILL')
    throw new Error(`postgres on port ${port} ${exited ? 'exited' : 'did not accept connections within 15 s'}`)
  }
  const halt = async (): Promise<void> => {
    const c = child
    child = undefined
    if (c === undefined || c.exitCode !== null || c.signalCode !== null) return
    const exited = once(c, 'exit')
    c.kill('SIGINT') // fast shutdown: ends sessions, no waiting for clients
    await exited
  }
  await launch()
  const on_exit = (): void => void child?.kill('SIGKILL')
  process.once('exit', on_exit)
  const url = (database = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${database}`
  const server: PostgresServer = {
    port,
    url,
    async create_database(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`)
      const client = new pg.Client({ connectionString: url() })
      await client.connect()
      try {
        await client.query(`create database ${name}`)
      } finally {
        await client.end()
      }
      return url(name)
    },
    halt,
    start: launch,
    async stop() {
      await halt()
      process.off('exit', on_exit)
      rmSync(dir, { recursive: true, force: true })
    },
  }
  t.teardown(() => server.stop())
  return server
}
