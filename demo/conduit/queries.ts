// The conduit's reads: articles with their author, tags, favourite count and the caller's flags in a fixed number of
// queries (a page of articles is 3: its count, its rows, their tags), whatever the page holds.
import { sql, type Kysely } from 'kysely'
import type { Tables } from './db.js'

/** An article as a list shows it: without its body (openapi.yml's MultipleArticlesResponse). */
export interface ListedArticleView {
  slug: string
  title: string
  description: string
  tagList: string[]
  createdAt: string
  updatedAt: string
  favorited: boolean
  favoritesCount: number
  author: ProfileView
}

/** An article as the API shows it alone: with its body. */
export interface ArticleView extends ListedArticleView {
  body: string
}

/** A profile as the API shows it: `bio` and `image` always strings, `''` when not set (openapi.yml's Profile). */
export interface ProfileView {
  username: string
  bio: string
  image: string
  following: boolean
}

/**
 * The profile of a user's row: `bio` and `image` are `''` when the column is NULL (a user who never set them, or
 * cleared them with `null`), as openapi.yml's Profile and User require a string.
 */
export function profile_view(r: { username: string; bio: string | null; image: string | null; following: unknown }) {
  return { username: r.username, bio: r.bio ?? '', image: r.image ?? '', following: Boolean(Number(r.following)) }
}

/** The filters and page of a list of articles. */
export interface ArticleFilter {
  tag?: string
  author?: string
  favorited?: string
  /** The feed: articles by the authors this user follows. */
  followed_by?: number
  /** One article. */
  slug?: string
  limit: number
  offset: number
}

type Db = Kysely<Tables>

function filtered(db: Db, f: Omit<ArticleFilter, 'limit' | 'offset'>) {
  let q = db.selectFrom('articles as a').innerJoin('users as u', 'u.id', 'a.author_id')
  if (f.slug !== undefined) q = q.where('a.slug', '=', f.slug)
  if (f.author !== undefined) q = q.where('u.username', '=', f.author)
  if (f.tag !== undefined) {
    const tag = f.tag
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('article_tags as at')
          .innerJoin('tags as t', 't.id', 'at.tag_id')
          .whereRef('at.article_id', '=', 'a.id')
          .where('t.name', '=', tag)
          .select(sql`1`.as('one')),
      ),
    )
  }
  if (f.favorited !== undefined) {
    const name = f.favorited
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('favorites as f')
          .innerJoin('users as fu', 'fu.id', 'f.user_id')
          .whereRef('f.article_id', '=', 'a.id')
          .where('fu.username', '=', name)
          .select(sql`1`.as('one')),
      ),
    )
  }
  if (f.followed_by !== undefined) {
    const follower = f.followed_by
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('follows as fo')
          .whereRef('fo.followee_id', '=', 'a.author_id')
          .where('fo.follower_id', '=', follower)
          .select(sql`1`.as('one')),
      ),
    )
  }
  return q
}

/** The flag `viewer` follows the user in column `ref`: 0 without a viewer. */
function following(viewer: number | undefined, ref: 'a.author_id' | 'c.author_id' | 'u.id') {
  if (viewer === undefined) return sql<number>`0`
  return sql<number>`(case when exists (select 1 from follows fo2 where fo2.follower_id = ${viewer} and fo2.followee_id = ${sql.ref(ref)}) then 1 else 0 end)`
}

/**
 * The rows of the articles `f` selects, newest first (by `created_at`, then id), with their counts and the viewer's
 * flags, in one query; their bodies only `with_body`.
 */
function article_rows(db: Db, f: ArticleFilter, viewer: number | undefined, with_body: boolean) {
  const favorited =
    viewer === undefined
      ? sql<number>`0`
      : sql<number>`(case when exists (select 1 from favorites f2 where f2.article_id = a.id and f2.user_id = ${viewer}) then 1 else 0 end)`
  // Newest by `createdAt`, the order a client sees: ids follow the order of the inserts, which concurrent writers
  // (PostgreSQL's pool, several instances) commit in another order than their timestamps. The id breaks ties (two
  // articles of one millisecond), so pages never swap or repeat an article.
  return filtered(db, f)
    .select([
      'a.id',
      'a.slug',
      'a.title',
      'a.description',
      'a.created_at',
      'a.updated_at',
      'u.username',
      'u.bio',
      'u.image',
      sql<number>`(select count(*) from favorites f1 where f1.article_id = a.id)`.as('favorites_count'),
      favorited.as('favorited'),
      following(viewer, 'a.author_id').as('following'),
    ])
    .$if(with_body, (q) => q.select('a.body'))
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(f.limit)
    .offset(f.offset)
    .execute()
}

/** The tags of each article id, sorted by name: one query for a whole page. */
async function tags_of(db: Db, ids: readonly number[]): Promise<Map<number, string[]>> {
  const by_id = new Map<number, string[]>(ids.map((id) => [id, []]))
  if (ids.length === 0) return by_id
  const rows = await db
    .selectFrom('article_tags as at')
    .innerJoin('tags as t', 't.id', 'at.tag_id')
    .select(['at.article_id', 't.name'])
    .where('at.article_id', 'in', ids)
    .orderBy('t.name')
    .execute()
  for (const r of rows) by_id.get(Number(r.article_id))?.push(r.name)
  return by_id
}

/**
 * A page of articles and how many match: 3 queries (count, rows, tags), 2 when the page is empty.
 * @example
 * const { articles, count } = await list_articles(db, { tag: 'dragons', limit: 20, offset: 0 }, viewer)
 */
export async function list_articles(
  db: Db,
  f: ArticleFilter,
  viewer: number | undefined,
): Promise<{ articles: ListedArticleView[]; count: number }> {
  const counted = await filtered(db, f)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  const articles = await find_articles(db, f, viewer, false)
  return { articles, count: Number(counted.n) }
}

/** The articles `f` selects, in 2 queries (rows, tags); with their bodies only `with_body`. */
export async function find_articles(
  db: Db,
  f: ArticleFilter,
  viewer: number | undefined,
  with_body: true,
): Promise<ArticleView[]>
export async function find_articles(
  db: Db,
  f: ArticleFilter,
  viewer: number | undefined,
  with_body: boolean,
): Promise<ListedArticleView[]>
export async function find_articles(
  db: Db,
  f: ArticleFilter,
  viewer: number | undefined,
  with_body: boolean,
): Promise<ListedArticleView[]> {
  const rows = await article_rows(db, f, viewer, with_body)
  const tags = await tags_of(
    db,
    rows.map((r) => Number(r.id)),
  )
  return rows.map((r) => ({
    slug: r.slug,
    title: r.title,
    description: r.description,
    ...(r.body === undefined ? {} : { body: r.body }),
    tagList: tags.get(Number(r.id)) ?? [],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    favorited: Boolean(Number(r.favorited)),
    favoritesCount: Number(r.favorites_count),
    author: profile_view(r),
  }))
}

/** One article by slug, or undefined: 2 queries. */
export async function article_by_slug(
  db: Db,
  slug: string,
  viewer: number | undefined,
): Promise<ArticleView | undefined> {
  return (await find_articles(db, { slug, limit: 1, offset: 0 }, viewer, true))[0]
}

/** A profile by username (or user id) with the viewer's `following` flag, or undefined: 1 query. */
export async function profile_of(
  db: Db,
  who: string | number,
  viewer: number | undefined,
): Promise<(ProfileView & { id: number }) | undefined> {
  const q = db
    .selectFrom('users as u')
    .select(['u.id', 'u.username', 'u.bio', 'u.image', following(viewer, 'u.id').as('following')])
  const r = await (
    typeof who === 'string' ? q.where('u.username', '=', who) : q.where('u.id', '=', who)
  ).executeTakeFirst()
  if (r === undefined) return undefined
  return { id: Number(r.id), ...profile_view(r) }
}

/** A comment as the API shows it. */
export interface CommentView {
  id: number
  createdAt: string
  updatedAt: string
  body: string
  author: ProfileView
}

/**
 * The comments of an article, oldest first (by `created_at`, then id, as articles are listed), with their authors:
 * 1 query.
 */
export async function comments_of(db: Db, article_id: number, viewer: number | undefined): Promise<CommentView[]> {
  const rows = await db
    .selectFrom('comments as c')
    .innerJoin('users as u', 'u.id', 'c.author_id')
    .select([
      'c.id',
      'c.body',
      'c.created_at',
      'c.updated_at',
      'u.username',
      'u.bio',
      'u.image',
      following(viewer, 'c.author_id').as('following'),
    ])
    .where('c.article_id', '=', article_id)
    // By `createdAt`, the order a client sees: ids follow the order of the inserts, which PostgreSQL's pool commits in
    // another order than the handlers read the clock. The id orders comments of one millisecond.
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute()
  return rows.map((r) => ({
    id: Number(r.id),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    body: r.body,
    author: profile_view(r),
  }))
}

/**
 * Every tag in use, by name: openapi.yml's GetTags has no page or limit. One query (`tags` semi-joined to
 * `article_tags`, whose `article_tags_tag` index finds a tag's uses), linear in the tags, which are at most 20 per
 * article written, and are listed whole.
 */
export async function all_tags(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('tags as t')
    .select('t.name')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('article_tags as at')
          .whereRef('at.tag_id', '=', 't.id')
          .select(sql`1`.as('one')),
      ),
    )
    .orderBy('t.name')
    .execute()
  return rows.map((r) => r.name)
}
