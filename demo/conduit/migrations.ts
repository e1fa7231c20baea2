// The conduit schema's versioned migrations, run by the demos' shared migration runner (demo/storage/migrations.ts).
import { sql } from 'kysely'
import { id_column, type Migration } from '../storage/migrations.js'

export { migrate, type Migration } from '../storage/migrations.js'

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
  {
    version: 2,
    name: 'tag names in byte order on PostgreSQL, as on SQLite',
    async up(db, dialect) {
      // SQLite compares text with BINARY (UTF-8 bytes, so code points); PostgreSQL with the database's collation, often
      // a language's (en_US: `a` < `B` < `b` < `é` < `Z`). "C" is byte order there too, so GET /api/tags and a tagList
      // list the same tags in the same order on both. Equality is unchanged (both collations are deterministic).
      if (dialect === 'postgres') await sql`alter table tags alter column name type text collate "C"`.execute(db)
    },
  },
  {
    version: 3,
    name: 'articles listed newest first from an index',
    async up(db) {
      // Lists order by (created_at desc, id desc): the index gives a page without sorting every article.
      await db.schema.createIndex('articles_created').on('articles').columns(['created_at', 'id']).execute()
    },
  },
  {
    version: 4,
    name: "an article's comments listed oldest first from an index",
    async up(db) {
      // An article's comments order by (created_at, id): the index finds them and gives their order without a sort.
      // It leads with article_id, so it also serves what `comments_article` served (the lookup, the cascade of a
      // deleted article): that one is dropped, one index less to write per comment.
      await db.schema
        .createIndex('comments_article_created')
        .on('comments')
        .columns(['article_id', 'created_at', 'id'])
        .execute()
      await db.schema.dropIndex('comments_article').execute()
    },
  },
]
