// Versioned migrations run at startup: each set's versions applied once, in order, under a PostgreSQL advisory lock.
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Db, Dialect, Tables } from './db.js'

/** One schema change: applied once per database, in a transaction of its own. */
export interface Migration {
  readonly version: number
  readonly name: string
  up(db: Transaction<Tables>, dialect: Dialect): Promise<void>
}

// Any fixed 64-bit number: every instance takes the same lock, so one migrates while the others wait.
const ADVISORY_LOCK = 7_262_754_160_027

function id_column(dialect: Dialect): 'integer' | 'serial' {
  return dialect === 'postgres' ? 'serial' : 'integer'
}

/** The conduit schema. Uniqueness lives in the database: email, username, slug, tag name, favourite, follow. */
export const CONDUIT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'users, follows, articles, tags, favourites, comments',
    async up(db, dialect) {
      const id = id_column(dialect)
      await db.schema
        .createTable('users')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password', 'text', (c) => c.notNull())
        .addColumn('bio', 'text')
        .addColumn('image', 'text')
        .execute()
      await db.schema
        .createTable('follows')
        .addColumn('follower_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('followee_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'followee_id'])
        .execute()
      await db.schema
        .createTable('articles')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('slug', 'text', (c) => c.notNull().unique())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('articles_author').on('articles').column('author_id').execute()
      await db.schema
        .createTable('tags')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .execute()
      await db.schema
        .createTable('article_tags')
        .addColumn('article_id', 'integer', (c) => c.notNull().references('articles.id').onDelete('cascade'))
        .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('article_tags_pk', ['article_id', 'tag_id'])
        .execute()
      await db.schema.createIndex('article_tags_tag').on('article_tags').column('tag_id').execute()
      await db.schema
        .createTable('favorites')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('article_id', 'integer', (c) => c.notNull().references('articles.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('favorites_pk', ['user_id', 'article_id'])
        .execute()
      await db.schema.createIndex('favorites_article').on('favorites').column('article_id').execute()
      await db.schema
        .createTable('comments')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('article_id', 'integer', (c) => c.notNull().references('articles.id').onDelete('cascade'))
        .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('comments_article').on('comments').column('article_id').execute()
    },
  },
]

async function apply(db: Kysely<Tables>, dialect: Dialect, set: string, migrations: readonly Migration[]) {
  await db.schema
    .createTable('fw_migrations')
    .ifNotExists()
    .addColumn('set_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('applied_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('fw_migrations_pk', ['set_name', 'version'])
    .execute()
  const done = await db.selectFrom('fw_migrations').select('version').where('set_name', '=', set).execute()
  const applied = new Set(done.map((r) => Number(r.version)))
  for (const m of migrations) {
    if (applied.has(m.version)) continue
    await db.transaction().execute(async (trx) => {
      await m.up(trx, dialect)
      await trx
        .insertInto('fw_migrations')
        .values({ set_name: set, version: m.version, applied_at: new Date().toISOString() })
        .execute()
    })
  }
}

/**
 * Applies the versions of `set` the database lacks, each in its own transaction, and records them in `fw_migrations`.
 * On PostgreSQL the whole run holds an advisory lock on one connection, so instances starting together take turns
 * and the later ones find nothing left to do. Running it again is a no-op.
 * @example
 * await migrate(db, 'conduit', CONDUIT_MIGRATIONS)
 */
export async function migrate(db: Db, set: string, migrations: readonly Migration[]): Promise<void> {
  if (db.dialect === 'sqlite') return apply(db.kysely, db.dialect, set, migrations)
  await db.kysely.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${ADVISORY_LOCK})`.execute(conn)
    try {
      await apply(conn, db.dialect, set, migrations)
    } finally {
      await sql`select pg_advisory_unlock(${ADVISORY_LOCK})`.execute(conn)
    }
  })
}
