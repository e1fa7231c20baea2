// The reference authentication API's durable storage: users and (production) tokens in the demos' shared database
// layer (demo/storage), SQLite or PostgreSQL, migrated at startup.
import { randomBytes } from 'node:crypto'
import { given_database_url, open_database, type Db } from '../storage/db.js'
import { id_column, migrate, type Migration } from '../storage/migrations.js'
import { unique_violation } from '../storage/sql-errors.js'
import { ERR_AUTHAPI_BAD_OPTION } from './errors.js'
import { digest, SWEEP_EVERY, type IssuedToken, type TokenStore } from './token-store.js'
import type { Role, User, Users } from './user-store.js'

/** The default SQLite file of the auth API, relative to the working directory. */
export const AUTH_DEFAULT_SQLITE = './.fw/auth-api.sqlite'

/** The auth API's schema: one email, one user (a unique constraint); tokens kept as their SHA-256 only. */
export const AUTH_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'auth_users, auth_tokens',
    async up(db, dialect) {
      await db.schema
        .createTable('auth_users')
        .addColumn('id', id_column(dialect), (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('auth_tokens')
        .addColumn('digest', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('auth_users.id').onDelete('cascade'))
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('auth_tokens_expiry').on('auth_tokens').column('expires_at_ms').execute()
    },
  },
]

const user_of = (r: { id: number; email: string; password: string; role: string }): User =>
  Object.freeze({ id: Number(r.id), email: r.email, password: r.password, role: r.role as Role })

/**
 * Users in the database: uniqueness of the email is the database's, so two instances registering one email at once
 * create one user. `reserve` claims the email in this process (racing requests here do not all hash) after checking
 * the database; `create` answers undefined when another instance took the email in between.
 */
export class SqlUsers implements Users {
  readonly #reserved = new Set<string>()

  constructor(readonly db: Db) {}

  async reserve(email: string): Promise<boolean> {
    if (this.#reserved.has(email)) return false
    this.#reserved.add(email)
    let free = false
    try {
      free = (await this.by_email(email)) === undefined
      return free
    } finally {
      // Also when the check throws (the database unreachable): a claim left behind would answer 409 for this email
      // until a restart, with no user holding it.
      if (!free) this.#reserved.delete(email)
    }
  }

  release(email: string): void {
    this.#reserved.delete(email)
  }

  async create(email: string, password: string, role: Role): Promise<User | undefined> {
    try {
      const row = await this.db.kysely
        .insertInto('auth_users')
        .values({ email, password, role })
        .returning('id')
        .executeTakeFirstOrThrow()
      return user_of({ id: row.id, email, password, role })
    } catch (err) {
      if (unique_violation(err) !== undefined) return undefined
      throw err
    } finally {
      this.#reserved.delete(email)
    }
  }

  async by_email(email: string): Promise<User | undefined> {
    const row = await this.db.kysely.selectFrom('auth_users').selectAll().where('email', '=', email).executeTakeFirst()
    return row === undefined ? undefined : user_of(row)
  }

  async by_id(id: number): Promise<User | undefined> {
    const row = await this.db.kysely.selectFrom('auth_users').selectAll().where('id', '=', id).executeTakeFirst()
    return row === undefined ? undefined : user_of(row)
  }

  async list(): Promise<readonly User[]> {
    return (await this.db.kysely.selectFrom('auth_users').selectAll().orderBy('id').execute()).map(user_of)
  }
}

/**
 * Production tokens in the database, as `RandomTokens` keeps them in memory: 32 random bytes handed out once, stored
 * as their SHA-256 with an expiry `ttl` seconds after login; an expired one is deleted on lookup, and all of them every
 * 256 logins of this instance.
 */
export class SqlTokens implements TokenStore {
  #issued = 0

  constructor(
    readonly db: Db,
    readonly ttl: number,
  ) {}

  async issue(user_id: number, now_ms: number): Promise<IssuedToken> {
    if (++this.#issued % SWEEP_EVERY === 0)
      await this.db.kysely.deleteFrom('auth_tokens').where('expires_at_ms', '<=', now_ms).execute()
    const token = randomBytes(32).toString('base64url')
    await this.db.kysely
      .insertInto('auth_tokens')
      .values({ digest: digest(token), user_id, expires_at_ms: now_ms + this.ttl * 1000 })
      .execute()
    return { token, expires_in: this.ttl }
  }

  async user_id(token: string, now_ms: number): Promise<number | undefined> {
    const key = digest(token)
    const row = await this.db.kysely.selectFrom('auth_tokens').selectAll().where('digest', '=', key).executeTakeFirst()
    if (row === undefined) return undefined
    if (now_ms < Number(row.expires_at_ms)) return Number(row.user_id)
    await this.db.kysely.deleteFrom('auth_tokens').where('digest', '=', key).execute()
    return undefined
  }
}

/** An opened, migrated auth database and its stores. */
export interface AuthStorage {
  readonly db: Db
  readonly users: SqlUsers
  /** The production token store, tokens living `ttl` seconds. */
  tokens(ttl: number): SqlTokens
  close(): Promise<void>
}

/**
 * The storage URL of the auth API: `--database <url>`, else `DATABASE_URL`, else the default SQLite file when
 * `default_file`, else undefined (the in-memory stores).
 * @example
 * auth_storage_url(true, [], {}) // 'sqlite:./.fw/auth-api.sqlite'
 */
export function auth_storage_url(
  default_file: boolean,
  argv: readonly string[] = process.argv,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  return given_database_url(argv, env) ?? (default_file ? `sqlite:${AUTH_DEFAULT_SQLITE}` : undefined)
}

/**
 * Opens `url` (`sqlite:<path>` or `postgres://...`; another throws FW_ERR_AUTHAPI_BAD_OPTION) and runs the auth
 * migrations (under PostgreSQL's advisory lock, so instances starting together take turns).
 * @example
 * const storage = await open_auth_storage('sqlite:./.fw/auth-api.sqlite')
 * auth_api(app, { mode: 'production', users: storage.users, tokens: storage.tokens(3600) })
 */
export async function open_auth_storage(url: string): Promise<AuthStorage> {
  const db = open_database(url, (u) => ERR_AUTHAPI_BAD_OPTION('database', 'sqlite:<path> or postgres://...', u))
  try {
    await migrate(db, 'auth-api', AUTH_MIGRATIONS)
  } catch (err) {
    await db.close()
    throw err
  }
  return { db, users: new SqlUsers(db), tokens: (ttl) => new SqlTokens(db, ttl), close: () => db.close() }
}
