// The conduit's writes: an article with its tags in one transaction, slugs made unique by the database, and ownership
// checks before a change.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Tables } from './db.js'
import { forbidden, not_found, unique_violation } from './errors.js'

type Db = Kysely<Tables>

/**
 * Latin letters NFKD leaves whole (no accent to drop): spelled out in ASCII, so `Straße` is `strasse`, not `stra-e`.
 * Keys are lowercase: the title is lowercased first.
 */
const SPELLED: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŧ: 't',
}

/**
 * The slug of a title: lowercase ASCII words joined by `-` (accents dropped, letters such as `ß` and `ø` spelled out,
 * apostrophes inside a word removed: `Don't` is `dont`), at most 80 characters.
 */
export function slugify(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþħıŧ]/g, (c) => SPELLED[c]!)
    .replace(/([a-z0-9])['’ʼ]+(?=[a-z0-9])/g, '$1')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '')
  return base === '' ? 'article' : base
}

/** Slugs that are paths of their own under `/api/articles/`: `GET /api/articles/feed` is the feed, not an article. */
const RESERVED_SLUGS = new Set(['feed'])

/**
 * Runs `write(slug)` with the title's slug, and again with a random suffix while the database refuses the slug as
 * taken (the unique index decides, so two instances racing on one title still get two slugs). A reserved slug is
 * taken from the start.
 */
async function with_unique_slug<T>(title: string, write: (slug: string) => Promise<T>): Promise<T> {
  const base = slugify(title)
  for (let attempt = RESERVED_SLUGS.has(base) ? 1 : 0; ; attempt++) {
    const slug = attempt === 0 ? base : `${base}-${randomBytes(4).toString('hex')}`
    try {
      return await write(slug)
    } catch (err) {
      if (unique_violation(err) !== 'slug' || attempt >= 5) throw err
    }
  }
}

/** What a new article holds. */
export interface NewArticleValues {
  title: string
  description: string
  body: string
  tagList?: string[] | undefined
}

/** Creates an article and its tags in one transaction; returns its slug. */
export function create_article(db: Db, author_id: number, a: NewArticleValues, now = new Date()): Promise<string> {
  const at = now.toISOString()
  // Sorted, so every transaction inserts (and locks) new tags in one order: two articles sent at once with the same new
  // tags in other orders would otherwise each wait for the other's tag, and PostgreSQL would abort one (deadlock).
  const tags = [...(a.tagList ?? [])].sort()
  return with_unique_slug(a.title, (slug) =>
    db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('articles')
        .values({
          slug,
          title: a.title,
          description: a.description,
          body: a.body,
          author_id,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      if (tags.length > 0) {
        await trx
          .insertInto('tags')
          .values(tags.map((name) => ({ name })))
          .onConflict((oc) => oc.column('name').doNothing())
          .execute()
        const ids = await trx.selectFrom('tags').select('id').where('name', 'in', tags).execute()
        await trx
          .insertInto('article_tags')
          .values(ids.map((t) => ({ article_id: Number(id), tag_id: Number(t.id) })))
          .execute()
      }
      return slug
    }),
  )
}

/** The article's id and title when `user_id` wrote it: 404 without such an article, 403 when another user wrote it. */
export async function owned_article(db: Db, slug: string, user_id: number): Promise<{ id: number; title: string }> {
  const row = await db
    .selectFrom('articles')
    .select(['id', 'author_id', 'title'])
    .where('slug', '=', slug)
    .executeTakeFirst()
  if (row === undefined) throw not_found('article')
  if (Number(row.author_id) !== user_id) throw forbidden('article')
  return { id: Number(row.id), title: row.title }
}

/** The id of the article with this slug; 404 without one. */
export async function article_id(db: Db, slug: string): Promise<number> {
  const row = await db.selectFrom('articles').select('id').where('slug', '=', slug).executeTakeFirst()
  if (row === undefined) throw not_found('article')
  return Number(row.id)
}

/**
 * Updates the author's article; a title with another slug gives a new slug. Returns the slug. A title whose slug is the
 * current one's (the same title, as editors send on every save) keeps the slug, suffix included, so links still work.
 * A change with no field writes nothing (the ownership checks still apply).
 */
export async function update_article(
  db: Db,
  slug: string,
  user_id: number,
  change: Partial<Omit<NewArticleValues, 'tagList'>>,
  now = new Date(),
): Promise<string> {
  const { id, title } = await owned_article(db, slug, user_id)
  // openapi.yml's UpdateArticle makes every field optional and asks for none: an update with nothing to change is
  // valid, and moves nothing, `updatedAt` included.
  if (change.title === undefined && change.description === undefined && change.body === undefined) return slug
  const values = { ...change, updated_at: now.toISOString() }
  if (change.title === undefined || slugify(change.title) === slugify(title)) {
    await db.updateTable('articles').set(values).where('id', '=', id).execute()
    return slug
  }
  return with_unique_slug(change.title, async (next) => {
    await db
      .updateTable('articles')
      .set({ ...values, slug: next })
      .where('id', '=', id)
      .execute()
    return next
  })
}
