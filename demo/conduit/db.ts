// The conduit demo's database: the demos' shared storage (demo/storage) with conduit's default file and coded error.
import { given_database_url, open_database, type Db } from '../storage/db.js'
import { ERR_CONDUIT_BAD_OPTION } from './errors.js'

export type { Db, Dialect, Tables } from '../storage/db.js'

/** The default SQLite file, relative to the working directory. */
export const DEFAULT_SQLITE = './.fw/conduit.sqlite'

/**
 * The storage URL: `--database <url>` among `argv`, else `DATABASE_URL`, else the default SQLite file.
 * @example
 * storage_url(['--database', 'sqlite:/tmp/c.sqlite'], {}) // 'sqlite:/tmp/c.sqlite'
 */
export function storage_url(
  argv: readonly string[] = process.argv,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return given_database_url(argv, env) ?? `sqlite:${DEFAULT_SQLITE}`
}

/** Opens the database `url` names (`sqlite:<path>` or `postgres://...`); another URL throws FW_ERR_CONDUIT_BAD_OPTION. */
export function open_db(url: string): Db {
  return open_database(url, (u) => ERR_CONDUIT_BAD_OPTION('conduit', 'database', 'sqlite:<path> or postgres://...', u))
}
