// The demos' durable storage (conduit, auth-api): one Kysely instance over SQLite (the runtime's node:sqlite where it
// has one, else better-sqlite3; WAL) or PostgreSQL (pg), chosen by URL, with the storage URL read from `--database` or
// `DATABASE_URL`.
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, type Generated, type SqliteDatabase } from 'kysely'
import pg from 'pg'

/** The tables, as Kysely types them (timestamps are ISO 8601 text in both dialects). */
export interface Tables {
  users: {
    id: Generated<number>
    email: string
    username: string
    password: string
    bio: string | null
    image: string | null
  }
  follows: { follower_id: number; followee_id: number }
  articles: {
    id: Generated<number>
    slug: string
    title: string
    description: string
    body: string
    author_id: number
    created_at: string
    updated_at: string
  }
  tags: { id: Generated<number>; name: string }
  article_tags: { article_id: number; tag_id: number }
  favorites: { user_id: number; article_id: number }
  comments: {
    id: Generated<number>
    article_id: number
    author_id: number
    body: string
    created_at: string
    updated_at: string
  }
  auth_users: { id: Generated<number>; email: string; password: string; role: string }
  auth_tokens: { digest: string; user_id: number; expires_at_ms: number }
  fw_migrations: { set_name: string; version: number; applied_at: string }
}

/** Which engine a database runs on. */
export type Dialect = 'sqlite' | 'postgres'

/** An open database: the query builder, its dialect, where it lives (no password) and a count of queries run. */
export interface Db {
  readonly kysely: Kysely<Tables>
  readonly dialect: Dialect
  /** The SQLite file, or the PostgreSQL URL with its password masked. */
  readonly where: string
  /** Queries sent since the database was opened (tests read it to prove a request's query count). */
  readonly queries: { count: number }
  close(): Promise<void>
}

/**
 * The storage URL given: `--database <url>` among `argv`, else `DATABASE_URL`, else undefined.
 * @example
 * given_database_url(['--database', 'sqlite:/tmp/c.sqlite'], {}) // 'sqlite:/tmp/c.sqlite'
 */
export function given_database_url(
  argv: readonly string[] = process.argv,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const at = argv.indexOf('--database')
  const given = at === -1 ? undefined : argv[at + 1]
  return given || env['DATABASE_URL'] || undefined
}

/** A URL with its password masked, as errors and startup lines show it. */
export function masked(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
}

/**
 * Opens (and for SQLite creates, with its folder) the database `url` names: `sqlite:<path>` or `postgres://...`; any
 * other URL throws what `bad_url` makes of it (password masked), the caller's own coded error.
 */
export function open_database(url: string, bad_url: (masked_url: string) => Error): Db {
  const queries = { count: 0 }
  const log = (): void => void queries.count++
  if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 2000 })
    // A server that goes away drops idle clients with an error event; without a listener it would end the process.
    pool.on('error', () => {})
    const kysely = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), log })
    return { kysely, dialect: 'postgres', where: masked(url), queries, close: () => kysely.destroy() }
  }
  if (!url.startsWith('sqlite:') || url.length === 'sqlite:'.length) {
    throw bad_url(masked(url))
  }
  const file = resolve(url.slice('sqlite:'.length))
  mkdirSync(dirname(file), { recursive: true })
  const database = open_sqlite(file)
  // WAL: a crash (kill -9) mid-write leaves the last committed state; readers do not block the writer.
  database.exec('PRAGMA journal_mode = WAL')
  database.exec('PRAGMA synchronous = NORMAL')
  database.exec('PRAGMA foreign_keys = ON')
  database.exec('PRAGMA busy_timeout = 5000')
  const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database }), log })
  return { kysely, dialect: 'sqlite', where: file, queries, close: () => kysely.destroy() }
}

/** The part of node:sqlite's `DatabaseSync` this file uses (typed here: `@types/node` 20 does not know the module). */
interface NodeSqlite {
  DatabaseSync: new (path: string) => {
    exec(sql: string): void
    close(): void
    prepare(sql: string): {
      columns(): unknown[]
      all(...params: unknown[]): unknown[]
      run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
      iterate(...params: unknown[]): IterableIterator<unknown>
    }
  }
}

/**
 * An SQLite file as Kysely's dialect takes it: the runtime's own node:sqlite where it has one (Node 22.13 and later),
 * else better-sqlite3, loaded only then. A native addon is built for one Node ABI, so one installed tree could not serve
 * the two Node versions the suite runs on; node:sqlite has no such tie.
 */
function open_sqlite(file: string): SqliteDatabase & { exec(sql: string): void } {
  const builtin = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined
  if (builtin === undefined) {
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3
    return new Database(file)
  }
  const database = new builtin.DatabaseSync(file)
  return {
    exec: (sql) => database.exec(sql),
    close: () => database.close(),
    prepare(sql) {
      const statement = database.prepare(sql)
      return {
        // Kysely asks whether a statement returns rows; a statement with result columns does.
        reader: statement.columns().length > 0,
        all: (params) => statement.all(...params),
        run: (params) => statement.run(...params),
        iterate: (params) => statement.iterate(...params),
      }
    },
  }
}
