// The RealWorld "Conduit" API on fw: storage opened and migrated, routes under /api with the RealWorld error mapping.
import type { Router } from '../../index.js'
import { ScryptPasswords, type PasswordHasher } from '../auth-api/passwords.js'
import { Tokens } from './auth.js'
import { open_db, storage_url, type Db } from './db.js'
import { realworld_errors } from './errors.js'
import { CONDUIT_MIGRATIONS, migrate } from './migrations.js'
import { conduit_routes } from './routes.js'

export { open_db, storage_url, DEFAULT_SQLITE, type Db, type Tables } from './db.js'
export { migrate, CONDUIT_MIGRATIONS, type Migration } from './migrations.js'
export { ERR_CONDUIT_BAD_OPTION, DATABASE_UNAVAILABLE } from './errors.js'

/** The development secret used when `CONDUIT_JWT_SECRET` is unset (a warning says so at startup). */
export const DEV_JWT_SECRET = 'conduit-development-secret-never-use-in-production-0123456789'

/** Options of `conduit()`. */
export interface ConduitOptions {
  /** `sqlite:<path>` or `postgres://...` (default: `--database`, `DATABASE_URL`, then `./.fw/conduit.sqlite`). */
  database?: string
  /** HS256 secret, at least 32 characters (default `CONDUIT_JWT_SECRET`, else a development default). */
  jwt_secret?: string
  /** Seconds a token lives (default 30 days). */
  token_ttl?: number
  /** How passwords are hashed (default the auth-api's `ScryptPasswords`). */
  passwords?: PasswordHasher
}

/** A running conduit: its database (closed with `close()`). */
export interface Conduit {
  readonly db: Db
  close(): Promise<void>
}

/**
 * Opens the database, runs its migrations, and registers the API under `/api` on `r`.
 * @example
 * const app = new App()
 * const c = await conduit(app, { database: 'sqlite:./conduit.sqlite' })
 * app.on_close(() => c.close())
 */
export async function conduit(r: Router, o: ConduitOptions = {}): Promise<Conduit> {
  const db = open_db(o.database ?? storage_url())
  try {
    await migrate(db, 'conduit', CONDUIT_MIGRATIONS)
  } catch (err) {
    await db.close()
    throw err
  }
  const secret = o.jwt_secret ?? process.env['CONDUIT_JWT_SECRET'] ?? DEV_JWT_SECRET
  const tokens = new Tokens(secret, o.token_ttl ?? 30 * 86400)
  r.group('/api', (api) => {
    api.on_error(realworld_errors)
    conduit_routes(api, { db, tokens, passwords: o.passwords ?? new ScryptPasswords() })
  })
  return { db, close: () => db.close() }
}
