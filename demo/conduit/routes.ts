// The RealWorld routes under /api: each with its schema (validation, handler types, OpenAPI), answers in the spec's
// shapes, refusals thrown as ConduitError and mapped by errors.ts.
import type { Request, Router } from '../../index.js'
import { field, schema } from '../../lib/validation/index.js'
import type { PasswordHasher } from '../auth-api/passwords.js'
import { Caller, type Tokens } from './auth.js'
import * as B from './bodies.js'
import type { Db } from './db.js'
import { foreign_key_violation, forbidden, not_found, unauthorized, unprocessable } from './errors.js'
import { all_tags, article_by_slug, comments_of, list_articles, profile_of, profile_view } from './queries.js'
import { article_id, create_article, owned_article, update_article } from './writes.js'

/**
 * `bio` and `image` of a user or profile: always sent, a string, `''` when not set (openapi.yml requires them, type
 * string). Not `required()` here: fw's required string refuses `''`, which is this field's value for a new user.
 */
const profile_text = () => field.string().describe("Always present; '' when not set")
const Profile = field.object({
  username: field.string().required(),
  bio: profile_text(),
  image: profile_text(),
  following: field.boolean().required(),
})
/** An article's members around its body, which lists leave out (openapi.yml's MultipleArticlesResponse). */
const ARTICLE_HEAD = {
  slug: field.string().required(),
  title: field.string().required(),
  description: field.string().required(),
}
const ARTICLE_TAIL = {
  tagList: field.array(field.string()).required(),
  createdAt: field.string().date_time().required(),
  updatedAt: field.string().date_time().required(),
  favorited: field.boolean().required(),
  favoritesCount: field.integer().required(),
  author: Profile.required(),
}
const Article = field.object({ ...ARTICLE_HEAD, body: field.string().required(), ...ARTICLE_TAIL })
/** An article in a list: without its body. */
const ListedArticle = field.object({ ...ARTICLE_HEAD, ...ARTICLE_TAIL })
const Comment = field.object({
  id: field.integer().required(),
  createdAt: field.string().date_time().required(),
  updatedAt: field.string().date_time().required(),
  body: field.string().required(),
  author: Profile.required(),
})
const User = field.object({
  email: field.string().required(),
  token: field.string().required(),
  username: field.string().required(),
  bio: profile_text(),
  image: profile_text(),
})
/** The RealWorld GenericErrorModel, the body of every refusal: `{"errors": {"body": ["..."]}}` (a 503 adds its `code`). */
const GenericError = field.object({
  errors: field.object({ body: field.array(field.string()).required() }).required(),
  code: field.string(),
})
/** What each refusal means; 422 (invalid input) and 503 (the database does not answer) can come from any route. */
const REFUSALS = {
  401: 'No token, or a forged, expired or malformed one',
  403: 'Another user owns it',
  404: 'No such article, profile or comment',
  422: 'Invalid input, a taken email or username, or a wrong email or password',
  503: 'The database does not answer; try again shortly',
} as const
const doc = (
  operation_id: string,
  tag: string,
  summary: string,
  ok: Parameters<typeof schema>[0] | undefined,
  { status = 200, refuses = [] }: { status?: 200 | 201 | 204; refuses?: ReadonlyArray<401 | 403 | 404> } = {},
) => ({
  operation_id,
  tags: [tag],
  summary,
  responses: {
    // A failed validation answers 422 here (errors.ts), never fw's 400.
    400: false as const,
    [status]: ok === undefined ? { description: 'No content' } : schema(ok),
    ...Object.fromEntries(
      [...refuses, 422 as const, 503 as const].map((s) => [s, { description: REFUSALS[s], body: GenericError }]),
    ),
  },
})
const ArticleOut = { article: Article.required() }
const ProfileOut = { profile: Profile.required() }
const UserOut = { user: User.required() }

/** The signed-in caller's user id, which the route's `tokens.signed_in` stored (401 on a route without it). */
function caller(req: Request): number {
  const id = req.state(Caller)
  if (id === undefined) throw unauthorized()
  return id
}

/** What the routes need: the database, the token signer and the password hasher. */
export interface ConduitDeps {
  readonly db: Db
  readonly tokens: Tokens
  readonly passwords: PasswordHasher
}

/** Registers the RealWorld routes on `api` (a router whose paths start at `/api`). */
export function conduit_routes(api: Router, { db: store, tokens, passwords }: ConduitDeps): void {
  const db = store.kysely
  async function user_answer(id: number) {
    const u = await db
      .selectFrom('users')
      .select(['email', 'username', 'bio', 'image'])
      .where('id', '=', id)
      .executeTakeFirst()
    if (u === undefined) throw unauthorized()
    const { bio, image } = profile_view({ ...u, following: 0 })
    return { user: { email: u.email, token: tokens.sign(id), username: u.username, bio, image } }
  }
  /**
   * The write's result. When the database refuses it for a foreign key: 401 if the caller's user is gone (deleted
   * since its token was signed: the insert names it; it answered 500), else 404 `<what> not found`, the row it points
   * at deleted by another request between the handler's lookup and this write. One query more, on that failure only.
   */
  async function refused_as<T>(write: Promise<T>, me: number, what?: 'article' | 'profile'): Promise<T> {
    try {
      return await write
    } catch (err) {
      if (!foreign_key_violation(err)) throw err
      const user = await db.selectFrom('users').select('id').where('id', '=', me).executeTakeFirst()
      if (user === undefined) throw unauthorized()
      if (what === undefined) throw err
      throw not_found(what)
    }
  }
  async function article_answer(slug: string, viewer: number | undefined) {
    const article = await article_by_slug(db, slug, viewer)
    if (article === undefined) throw not_found('article')
    return { article }
  }

  api.post(
    '/users',
    { body: B.NewUser, ...doc('CreateUser', 'User and Authentication', 'Register', UserOut, { status: 201 }) },
    async (req, res) => {
      const { username, email, password } = req.valid('body').user
      const { id } = await db
        .insertInto('users')
        .values({ username, email, password: await passwords.hash(password), bio: null, image: null })
        .returning('id')
        .executeTakeFirstOrThrow()
      res.status(201).json(await user_answer(Number(id)))
    },
  )

  api.post(
    '/users/login',
    { body: B.LoginUser, ...doc('Login', 'User and Authentication', 'Log in', UserOut) },
    async (req, res) => {
      const { email, password } = req.valid('body').user
      const u = await db.selectFrom('users').select(['id', 'password']).where('email', '=', email).executeTakeFirst()
      if (!(await passwords.verify(password, u?.password)) || u === undefined)
        throw unprocessable('email or password is invalid')
      res.json(await user_answer(Number(u.id)))
    },
  )

  api.get(
    '/user',
    {
      use: tokens.signed_in,
      ...doc('GetCurrentUser', 'User and Authentication', 'The current user', UserOut, { refuses: [401] }),
    },
    async (req, res) => {
      res.json(await user_answer(caller(req)))
    },
  )

  api.put(
    '/user',
    {
      use: tokens.signed_in,
      body: B.UpdateUser,
      ...doc('UpdateCurrentUser', 'User and Authentication', 'Update the current user', UserOut, {
        refuses: [401],
      }),
    },
    async (req, res) => {
      const id = caller(req)
      const { password, ...rest } = req.valid('body').user
      const change = { ...rest, ...(password === undefined ? {} : { password: await passwords.hash(password) }) }
      if (Object.keys(change).length > 0) await db.updateTable('users').set(change).where('id', '=', id).execute()
      res.json(await user_answer(id))
    },
  )

  api.get(
    '/profiles/{username}',
    {
      use: tokens.maybe_signed_in,
      params: B.UsernameParams,
      ...doc('GetProfileByUsername', 'Profile', 'A profile', ProfileOut, { refuses: [401, 404] }),
    },
    async (req, res) => {
      const profile = await profile_of(db, req.valid('params').username, req.state(Caller))
      if (profile === undefined) throw not_found('profile')
      const { id: _, ...shown } = profile
      res.json({ profile: shown })
    },
  )

  for (const follow of [true, false]) {
    const route = {
      use: tokens.signed_in,
      params: B.UsernameParams,
      ...doc(
        follow ? 'FollowUserByUsername' : 'UnfollowUserByUsername',
        'Profile',
        follow ? 'Follow a user' : 'Unfollow a user',
        ProfileOut,
        { refuses: [401, 404] },
      ),
    }
    api.route(follow ? 'POST' : 'DELETE', '/profiles/{username}/follow', route, async (req, res) => {
      const me = caller(req)
      const profile = await profile_of(db, req.valid('params').username, me)
      if (profile === undefined) throw not_found('profile')
      if (follow) {
        await refused_as(
          db
            .insertInto('follows')
            .values({ follower_id: me, followee_id: profile.id })
            .onConflict((oc) => oc.columns(['follower_id', 'followee_id']).doNothing())
            .execute(),
          me,
          'profile',
        )
      } else {
        await db.deleteFrom('follows').where('follower_id', '=', me).where('followee_id', '=', profile.id).execute()
      }
      res.json({ profile: { username: profile.username, bio: profile.bio, image: profile.image, following: follow } })
    })
  }

  const Many = { articles: field.array(ListedArticle.required()).required(), articlesCount: field.integer().required() }
  api.get(
    '/articles/feed',
    {
      use: tokens.signed_in,
      query: B.FeedQuery,
      ...doc('GetArticlesFeed', 'Articles', 'Articles by followed authors', Many, { refuses: [401] }),
    },
    async (req, res) => {
      const me = caller(req)
      const { limit, offset } = req.valid('query')
      const { articles, count } = await list_articles(db, { followed_by: me, limit, offset }, me)
      res.json({ articles, articlesCount: count })
    },
  )

  api.get(
    '/articles',
    {
      use: tokens.maybe_signed_in,
      query: B.ArticleQuery,
      ...doc('GetArticles', 'Articles', 'Recent articles, filtered', Many, { refuses: [401] }),
    },
    async (req, res) => {
      const q = req.valid('query')
      const f = { limit: q.limit, offset: q.offset, ...pick(q, ['tag', 'author', 'favorited'] as const) }
      const { articles, count } = await list_articles(db, f, req.state(Caller))
      res.json({ articles, articlesCount: count })
    },
  )

  api.post(
    '/articles',
    {
      use: tokens.signed_in,
      body: B.NewArticle,
      ...doc('CreateArticle', 'Articles', 'Create an article', ArticleOut, { status: 201, refuses: [401] }),
    },
    async (req, res) => {
      const me = caller(req)
      const slug = await refused_as(create_article(db, me, req.valid('body').article), me)
      res.status(201).json(await article_answer(slug, me))
    },
  )

  api.get(
    '/articles/{slug}',
    {
      use: tokens.maybe_signed_in,
      params: B.SlugParams,
      ...doc('GetArticle', 'Articles', 'An article', ArticleOut, { refuses: [401, 404] }),
    },
    async (req, res) => {
      res.json(await article_answer(req.valid('params').slug, req.state(Caller)))
    },
  )

  api.put(
    '/articles/{slug}',
    {
      use: tokens.signed_in,
      params: B.SlugParams,
      body: B.UpdateArticle,
      ...doc('UpdateArticle', 'Articles', 'Update an article', ArticleOut, { refuses: [401, 403, 404] }),
    },
    async (req, res) => {
      const me = caller(req)
      const slug = await update_article(db, req.valid('params').slug, me, req.valid('body').article)
      res.json(await article_answer(slug, me))
    },
  )

  api.del(
    '/articles/{slug}',
    {
      use: tokens.signed_in,
      params: B.SlugParams,
      ...doc('DeleteArticle', 'Articles', 'Delete an article', undefined, { status: 204, refuses: [401, 403, 404] }),
    },
    async (req, res) => {
      const me = caller(req)
      const { id } = await owned_article(db, req.valid('params').slug, me)
      await db.deleteFrom('articles').where('id', '=', id).execute()
      res.status(204).send()
    },
  )

  for (const favorite of [true, false]) {
    const route = {
      use: tokens.signed_in,
      params: B.SlugParams,
      ...doc(
        favorite ? 'CreateArticleFavorite' : 'DeleteArticleFavorite',
        'Favorites',
        favorite ? 'Favourite an article' : 'Unfavourite an article',
        ArticleOut,
        { refuses: [401, 404] },
      ),
    }
    api.route(favorite ? 'POST' : 'DELETE', '/articles/{slug}/favorite', route, async (req, res) => {
      const me = caller(req)
      const { slug } = req.valid('params')
      const id = await article_id(db, slug)
      if (favorite) {
        await refused_as(
          db
            .insertInto('favorites')
            .values({ user_id: me, article_id: id })
            .onConflict((oc) => oc.columns(['user_id', 'article_id']).doNothing())
            .execute(),
          me,
          'article',
        )
      } else {
        await db.deleteFrom('favorites').where('user_id', '=', me).where('article_id', '=', id).execute()
      }
      res.json(await article_answer(slug, me))
    })
  }

  api.get(
    '/articles/{slug}/comments',
    {
      use: tokens.maybe_signed_in,
      params: B.SlugParams,
      ...doc(
        'GetArticleComments',
        'Comments',
        'Comments of an article',
        { comments: field.array(Comment.required()).required() },
        { refuses: [401, 404] },
      ),
    },
    async (req, res) => {
      const viewer = req.state(Caller)
      const id = await article_id(db, req.valid('params').slug)
      res.json({ comments: await comments_of(db, id, viewer) })
    },
  )

  api.post(
    '/articles/{slug}/comments',
    {
      use: tokens.signed_in,
      params: B.SlugParams,
      body: B.NewComment,
      ...doc(
        'CreateArticleComment',
        'Comments',
        'Comment on an article',
        { comment: Comment.required() },
        { refuses: [401, 404] },
      ),
    },
    async (req, res) => {
      const me = caller(req)
      const id = await article_id(db, req.valid('params').slug)
      const at = new Date().toISOString()
      const { body } = req.valid('body').comment
      const row = await refused_as(
        db
          .insertInto('comments')
          .values({ article_id: id, author_id: me, body, created_at: at, updated_at: at })
          .returning('id')
          .executeTakeFirstOrThrow(),
        me,
        'article',
      )
      // The author's own `following` flag, as the comment list gives it: a user may follow himself.
      const { id: _, ...author } = (await profile_of(db, me, me))!
      res.json({ comment: { id: Number(row.id), createdAt: at, updatedAt: at, body, author } })
    },
  )

  api.del(
    '/articles/{slug}/comments/{id}',
    {
      use: tokens.signed_in,
      params: B.CommentParams,
      ...doc('DeleteArticleComment', 'Comments', 'Delete a comment', undefined, {
        status: 204,
        refuses: [401, 403, 404],
      }),
    },
    async (req, res) => {
      const me = caller(req)
      const { slug, id } = req.valid('params')
      const article = await article_id(db, slug)
      const c = await db
        .selectFrom('comments')
        .select('author_id')
        .where('id', '=', id)
        .where('article_id', '=', article)
        .executeTakeFirst()
      if (c === undefined) throw not_found('comment')
      if (Number(c.author_id) !== me) throw forbidden('comment')
      await db.deleteFrom('comments').where('id', '=', id).execute()
      res.status(204).send()
    },
  )

  api.get(
    '/tags',
    doc('GetTags', 'Tags', 'Tags in use', { tags: field.array(field.string()).required() }),
    async (_req, res) => {
      res.json({ tags: await all_tags(db) })
    },
  )
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {}
  // An empty value (`?tag=`, a form's blank field) filters for nothing, as an absent one.
  for (const k of keys) if (o[k] !== undefined && o[k] !== '') out[k] = o[k]
  return out
}
