// The conduit API suite, run on SQLite (api-sqlite.test.ts) and on PostgreSQL (api-postgres.test.ts): every route, its
// refusals, the query count of a page of articles, and the bad inputs of the issue with nothing half-written.
import { createSigner } from 'fast-jwt'
import pg_client from 'pg'
import type { Test } from 'tap'
import { call, conduit_app, errors, fresh_database, register, TEST_SECRET } from '../../helpers/conduit.js'
import type { PostgresServer } from '../../helpers/postgres-server.js'

type Kind = 'sqlite' | 'postgres'
type Obj = Record<string, unknown>

async function fresh(t: Test, kind: Kind, pg: PostgresServer | undefined) {
  return conduit_app(t, await fresh_database(t, kind, pg))
}

/** How many rows each table holds, to prove a refused request wrote nothing. */
async function counts(c: Awaited<ReturnType<typeof conduit_app>>['c']): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of ['users', 'articles', 'tags', 'article_tags', 'favorites', 'follows', 'comments'] as const) {
    const r = await c.db.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    out[table] = Number(r.n)
  }
  return out
}

/**
 * A fresh database whose default collation is not byte order where the engine has one: on PostgreSQL an ICU `en-US`
 * database, as a server initialised with `en_US.UTF-8` (a usual default) sorts; SQLite's is always BINARY.
 */
async function collated_database(t: Test, kind: Kind, pg: PostgresServer | undefined): Promise<string> {
  if (kind === 'sqlite') return fresh_database(t, kind)
  const name = `conduit_icu_${process.pid}_${++collated}`
  const client = new pg_client.Client({ connectionString: pg!.url() })
  await client.connect()
  try {
    await client.query(`create database ${name} template template0 locale_provider icu icu_locale 'en-US'`)
  } finally {
    await client.end()
  }
  return pg!.url(name)
}
let collated = 0

const ARTICLE = { title: 'How to train your dragon', description: 'Ever wonder how?', body: 'Very carefully.' }

export function conduit_suite(t: Test, kind: Kind, pg?: PostgresServer): void {
  t.test('users: register, log in, current user, update; taken names answer 422', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const r = await call(app, 'POST', '/api/users', {
      user: { username: 'jake', email: 'Jake@Example.com', password: 'jakejake' },
    })
    t.equal(r.status, 201)
    const user = (r.body as { user: Obj }).user
    t.same(
      { ...user, token: typeof user['token'] },
      { email: 'jake@example.com', token: 'string', username: 'jake', bio: '', image: '' },
    )
    const again = await call(app, 'POST', '/api/users', {
      user: { username: 'jake', email: 'other@example.com', password: 'jakejake' },
    })
    t.same([again.status, again.body], [422, errors('username has already been taken')])
    const email = await call(app, 'POST', '/api/users', {
      user: { username: 'jake2', email: 'jake@example.com', password: 'jakejake' },
    })
    t.same([email.status, email.body], [422, errors('email has already been taken')])
    const login = await call(app, 'POST', '/api/users/login', {
      user: { email: 'jake@example.com', password: 'jakejake' },
    })
    t.equal(login.status, 200)
    const token = (login.body as { user: Obj }).user['token'] as string
    const wrong = await call(app, 'POST', '/api/users/login', {
      user: { email: 'jake@example.com', password: 'jakejak3' },
    })
    t.same([wrong.status, wrong.body], [422, errors('email or password is invalid')])
    const me = await call(app, 'GET', '/api/user', undefined, token)
    t.same([me.status, (me.body as { user: Obj }).user['username']], [200, 'jake'])
    const bearer = await app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } })
    t.equal(bearer.statusCode, 200)
    const upd = await call(
      app,
      'PUT',
      '/api/user',
      { user: { bio: 'I like to skateboard', image: 'https://i.example/j.png', password: 'newpassword' } },
      token,
    )
    t.same([upd.status, (upd.body as { user: Obj }).user['bio']], [200, 'I like to skateboard'])
    const relog = await call(app, 'POST', '/api/users/login', {
      user: { email: 'jake@example.com', password: 'newpassword' },
    })
    t.equal(relog.status, 200)
    const none = await call(app, 'GET', '/api/user')
    t.same([none.status, none.body, none.headers['www-authenticate']], [401, errors('unauthorized'), 'Token'])
  })

  t.test('profiles: read, follow and unfollow; an unknown profile is 404', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await register(app, 'celeb')
    const p = await call(app, 'GET', '/api/profiles/celeb', undefined, jake)
    t.same([p.status, p.body], [200, { profile: { username: 'celeb', bio: '', image: '', following: false } }])
    const f = await call(app, 'POST', '/api/profiles/celeb/follow', { user: { email: 'x' } }, jake)
    t.same([f.status, (f.body as { profile: Obj }).profile['following']], [200, true])
    const twice = await call(app, 'POST', '/api/profiles/celeb/follow', undefined, jake)
    t.equal(twice.status, 200)
    const seen = await call(app, 'GET', '/api/profiles/celeb', undefined, jake)
    t.equal((seen.body as { profile: Obj }).profile['following'], true)
    const u = await call(app, 'DELETE', '/api/profiles/celeb/follow', undefined, jake)
    t.same([u.status, (u.body as { profile: Obj }).profile['following']], [200, false])
    const missing = await call(app, 'GET', '/api/profiles/nobody')
    t.same([missing.status, missing.body], [404, errors('profile not found')])
    const anon = await call(app, 'POST', '/api/profiles/celeb/follow')
    t.same([anon.status, anon.body], [401, errors('unauthorized')])
  })

  t.test('articles: create, read, list with filters, feed, update, favourite, comment, delete', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const reader = await register(app, 'reader')
    const created = await call(
      app,
      'POST',
      '/api/articles',
      { article: { ...ARTICLE, tagList: ['training', 'dragons'] } },
      jake,
    )
    t.equal(created.status, 201)
    const a = (created.body as { article: Obj }).article
    t.match(a, {
      slug: 'how-to-train-your-dragon',
      tagList: ['dragons', 'training'],
      favorited: false,
      favoritesCount: 0,
    })
    t.match(a['createdAt'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/)
    const second = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    t.match((second.body as { article: Obj }).article['slug'], /^how-to-train-your-dragon-[0-9a-f]{8}$/)
    const slug = a['slug'] as string
    const list = await call(app, 'GET', '/api/articles')
    t.equal((list.body as Obj)['articlesCount'], 2)
    t.same(
      (list.body as { articles: Obj[] }).articles.map((x) => x['slug']),
      [(second.body as { article: Obj }).article['slug'], slug],
    )
    const by_tag = await call(app, 'GET', '/api/articles?tag=dragons')
    t.same(
      [(by_tag.body as Obj)['articlesCount'], (by_tag.body as { articles: Obj[] }).articles[0]!['tagList']],
      [1, ['dragons', 'training']],
    )
    const by_author = await call(app, 'GET', '/api/articles?author=jake&limit=1&offset=1')
    t.same(
      [
        (by_author.body as Obj)['articlesCount'],
        (by_author.body as { articles: Obj[] }).articles.map((x) => x['slug']),
      ],
      [2, [slug]],
    )
    // An empty filter is no filter (a client's form sends `?tag=&author=` for the fields left blank).
    for (const url of ['/api/articles?tag=', '/api/articles?author=&favorited=&tag=']) {
      t.match((await call(app, 'GET', url)).body, { articlesCount: 2 }, url)
    }
    const fav = await call(app, 'POST', `/api/articles/${slug}/favorite`, undefined, reader)
    t.match((fav.body as { article: Obj }).article, { favorited: true, favoritesCount: 1 })
    const by_fav = await call(app, 'GET', '/api/articles?favorited=reader', undefined, reader)
    t.match(by_fav.body, { articlesCount: 1, articles: [{ slug, favorited: true, favoritesCount: 1 }] })
    const empty_feed = await call(app, 'GET', '/api/articles/feed', undefined, reader)
    t.same(empty_feed.body, { articles: [], articlesCount: 0 })
    await call(app, 'POST', '/api/profiles/jake/follow', undefined, reader)
    const feed = await call(app, 'GET', '/api/articles/feed', undefined, reader)
    t.match(feed.body, { articlesCount: 2, articles: [{ author: { username: 'jake', following: true } }, { slug }] })
    const unfav = await call(app, 'DELETE', `/api/articles/${slug}/favorite`, undefined, reader)
    t.match((unfav.body as { article: Obj }).article, { favorited: false, favoritesCount: 0 })
    const not_mine = await call(app, 'PUT', `/api/articles/${slug}`, { article: { body: 'mine now' } }, reader)
    t.same([not_mine.status, not_mine.body], [403, errors('only the author may change this article')])
    const upd = await call(app, 'PUT', `/api/articles/${slug}`, { article: { body: 'With two hands' } }, jake)
    t.match([upd.status, (upd.body as { article: Obj }).article], [200, { slug, body: 'With two hands' }])
    const renamed = await call(app, 'PUT', `/api/articles/${slug}`, { article: { title: 'Dragons, again' } }, jake)
    t.equal((renamed.body as { article: Obj }).article['slug'], 'dragons-again')
    const comment = await call(
      app,
      'POST',
      '/api/articles/dragons-again/comments',
      { comment: { body: 'Thank you so much!' } },
      reader,
    )
    t.match(
      [comment.status, comment.body],
      [200, { comment: { id: Number, body: 'Thank you so much!', author: { username: 'reader' } } }],
    )
    const id = (comment.body as { comment: Obj }).comment['id'] as number
    const comments = await call(app, 'GET', '/api/articles/dragons-again/comments')
    t.match(comments.body, { comments: [{ id, body: 'Thank you so much!' }] })
    const steal = await call(app, 'DELETE', `/api/articles/dragons-again/comments/${id}`, undefined, jake)
    t.same([steal.status, steal.body], [403, errors('only the author may change this comment')])
    const gone = await call(app, 'DELETE', `/api/articles/dragons-again/comments/${id}`, undefined, reader)
    t.same(
      [gone.status, gone.body],
      [204, undefined],
      'a deleted comment answers 204 No Content, as the specification says',
    )
    const again = await call(app, 'DELETE', `/api/articles/dragons-again/comments/${id}`, undefined, reader)
    t.same([again.status, again.body], [404, errors('comment not found')])
    t.same((await call(app, 'GET', '/api/tags')).body, { tags: ['dragons', 'training'] })
    const del = await call(app, 'DELETE', '/api/articles/dragons-again', undefined, jake)
    t.same([del.status, del.body], [204, undefined], 'a deleted article answers 204 No Content')
    const missing = await call(app, 'GET', '/api/articles/dragons-again')
    t.same([missing.status, missing.body], [404, errors('article not found')])
    t.same((await call(app, 'GET', '/api/tags')).body, { tags: [] }, 'tags no article uses are not listed')
  })

  t.test("a new comment's author has the following flag the comment list gives", async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const follow = await call(app, 'POST', '/api/profiles/jake/follow', undefined, jake)
    t.match([follow.status, follow.body], [200, { profile: { username: 'jake', following: true } }])
    const url = '/api/articles/how-to-train-your-dragon/comments'
    const created = await call(app, 'POST', url, { comment: { body: 'Noted.' } }, jake)
    const listed = await call(app, 'GET', url, undefined, jake)
    const author = { username: 'jake', bio: '', image: '', following: true }
    t.same((created.body as { comment: Obj }).comment['author'], author, 'in the answer to the comment')
    t.same((listed.body as { comments: Obj[] }).comments[0]!['author'], author, 'in the list')
  })

  t.test('an article titled "Feed" can be read: its slug is not the feed\'s path', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const other = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const other_slug = (other.body as { article: Obj }).article['slug'] as string
    const renamed = await call(app, 'PUT', `/api/articles/${other_slug}`, { article: { title: 'feed!' } }, jake)
    const renamed_slug = (renamed.body as { article: Obj }).article['slug'] as string
    t.match(renamed_slug, /^feed-[0-9a-f]{8}$/, 'a new title')
    const created = await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, title: 'Feed' } }, jake)
    const slug = (created.body as { article: Obj }).article['slug'] as string
    t.match(slug, /^feed-[0-9a-f]{8}$/, 'a new article')
    for (const s of [renamed_slug, slug]) {
      const read = await call(app, 'GET', `/api/articles/${s}`)
      t.match([read.status, read.body], [200, { article: { slug: s } }], `GET /api/articles/${s}`)
    }
  })

  t.test('a slug keeps the letters of a title: ß, æ, ø, ł, þ spelled out, apostrophes inside words', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const slugs: Record<string, string> = {}
    for (const title of [
      'Straße nach Øresund',
      'Æsir and Œuvres',
      'Łódź, Đakovo, Þingvellir',
      "Don't panic: it’s fine",
      'Crème brûlée — “quoted” & 100% good!?',
    ]) {
      const r = await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, title } }, jake)
      slugs[title] = (r.body as { article: Obj }).article['slug'] as string
    }
    t.same(slugs, {
      'Straße nach Øresund': 'strasse-nach-oresund',
      'Æsir and Œuvres': 'aesir-and-oeuvres',
      'Łódź, Đakovo, Þingvellir': 'lodz-dakovo-thingvellir',
      "Don't panic: it’s fine": 'dont-panic-its-fine',
      'Crème brûlée — “quoted” & 100% good!?': 'creme-brulee-quoted-100-good',
    })
    const read = await call(app, 'GET', '/api/articles/strasse-nach-oresund')
    t.match([read.status, read.body], [200, { article: { title: 'Straße nach Øresund' } }])
  })

  t.test('the Authorization scheme is case-insensitive (RFC 9110): token, TOKEN, bearer', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const statuses: Record<string, unknown> = {}
    for (const scheme of ['Token', 'token', 'TOKEN', 'Bearer', 'bearer']) {
      const r = await app.inject({ url: '/api/user', headers: { authorization: `${scheme} ${jake}` } })
      statuses[scheme] = [r.statusCode, (JSON.parse(r.body) as { user?: Obj }).user?.['username']]
    }
    t.same(statuses, {
      Token: [200, 'jake'],
      token: [200, 'jake'],
      TOKEN: [200, 'jake'],
      Bearer: [200, 'jake'],
      bearer: [200, 'jake'],
    })
    const other = await app.inject({ url: '/api/user', headers: { authorization: `Basic ${jake}` } })
    t.same([other.statusCode, JSON.parse(other.body)], [401, errors('unauthorized')], 'another scheme is refused')
  })

  t.test('an edit that sends the unchanged title keeps the slug, suffixed or not', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const second = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const slug = (second.body as { article: Obj }).article['slug'] as string
    t.match(slug, /^how-to-train-your-dragon-[0-9a-f]{8}$/)
    // The RealWorld editor sends title, description and body on every save.
    const edit = await call(app, 'PUT', `/api/articles/${slug}`, { article: { ...ARTICLE, body: 'Edited.' } }, jake)
    t.match([edit.status, edit.body], [200, { article: { slug, body: 'Edited.' } }])
    t.equal((await call(app, 'GET', `/api/articles/${slug}`)).status, 200, 'the old link still works')
    const retitled = await call(
      app,
      'PUT',
      `/api/articles/${slug}`,
      { article: { title: 'How to train your dragon!' } },
      jake,
    )
    t.equal((retitled.body as { article: Obj }).article['slug'], slug, 'a title with the same slug keeps it')
  })

  t.test(
    'lists of articles leave out the body (openapi.yml MultipleArticlesResponse); one article has it',
    async (t) => {
      const { app } = await fresh(t, kind, pg)
      const jake = await register(app, 'jake')
      const created = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
      const slug = (created.body as { article: Obj }).article['slug'] as string
      await call(app, 'POST', '/api/profiles/jake/follow', undefined, jake)
      for (const url of ['/api/articles', '/api/articles?author=jake', '/api/articles/feed']) {
        const r = await call(app, 'GET', url, undefined, jake)
        const listed = (r.body as { articles: Obj[] }).articles
        t.same(
          [r.status, listed.length, Object.keys(listed[0]!).sort()],
          [
            200,
            1,
            [
              'author',
              'createdAt',
              'description',
              'favorited',
              'favoritesCount',
              'slug',
              'tagList',
              'title',
              'updatedAt',
            ],
          ],
          url,
        )
      }
      t.match((await call(app, 'GET', `/api/articles/${slug}`)).body, { article: { body: ARTICLE.body } })
    },
  )

  t.test('a page of 20 articles costs 3 queries, whatever it holds (no N+1)', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const authors = []
    for (let i = 0; i < 5; i++) authors.push(await register(app, `author${i}`))
    const reader = await register(app, 'reader')
    const queries_of = async (url: string, token?: string): Promise<number> => {
      const before = c.db.queries.count
      const r = await call(app, 'GET', url, undefined, token)
      t.equal(r.status, 200)
      return c.db.queries.count - before
    }
    t.equal(await queries_of('/api/articles?limit=20', reader), 2, 'an empty page: count and rows')
    await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, tagList: ['a'] } }, authors[0])
    const one = await queries_of('/api/articles?limit=20', reader)
    for (let i = 0; i < 24; i++) {
      const r = await call(
        app,
        'POST',
        '/api/articles',
        { article: { ...ARTICLE, title: `t${i}`, tagList: [`tag${i % 3}`, 'all'] } },
        authors[i % 5],
      )
      if (i % 2 === 0)
        await call(
          app,
          'POST',
          `/api/articles/${(r.body as { article: Obj }).article['slug']}/favorite`,
          undefined,
          reader,
        )
    }
    await call(app, 'POST', '/api/profiles/author1/follow', undefined, reader)
    const page = await call(app, 'GET', '/api/articles?limit=20', undefined, reader)
    t.equal((page.body as { articles: unknown[] }).articles.length, 20)
    t.same(
      [one, await queries_of('/api/articles?limit=20', reader), await queries_of('/api/articles?limit=20')],
      [3, 3, 3],
    )
    t.equal(await queries_of('/api/articles/feed?limit=20', reader), 3)
    t.equal(await queries_of('/api/articles?tag=all&limit=20', reader), 3)
    t.equal(await queries_of('/api/articles/t3', reader), 2)
  })

  t.test('bad input answers the RealWorld shape with exact messages and writes nothing', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, tagList: ['x'] } }, jake)
    const before = await counts(c)
    const cases: Array<[string, string, string, unknown, string | undefined, number, unknown]> = [
      ['malformed JSON', 'POST', '/api/users', '{"user": {', undefined, 422, errors('Expected JSON object')],
      [
        'no user wrapper',
        'POST',
        '/api/users',
        { username: 'a', email: 'a@example.com', password: 'aaaaaaaa' },
        undefined,
        422,
        errors('user is required'),
      ],
      ['no article wrapper', 'POST', '/api/articles', ARTICLE, jake, 422, errors('article is required')],
      [
        'wrong types',
        'POST',
        '/api/users',
        { user: { username: 7, email: true, password: [] } },
        undefined,
        422,
        errors('username must be a string', 'email must be a string', 'password must be a string'),
      ],
      [
        'a 10,000-character title',
        'POST',
        '/api/articles',
        { article: { ...ARTICLE, title: 'x'.repeat(10_000) } },
        jake,
        422,
        errors('title must be at most 200 characters'),
      ],
      ['limit=-1', 'GET', '/api/articles?limit=-1', undefined, undefined, 422, errors('limit must be at least 1')],
      [
        'limit=100000',
        'GET',
        '/api/articles?limit=100000',
        undefined,
        undefined,
        422,
        errors('limit must be at most 100'),
      ],
      ['offset=abc', 'GET', '/api/articles?offset=abc', undefined, undefined, 422, errors('offset must be an integer')],
      [
        'offset past its cap',
        'GET',
        '/api/articles?offset=1000000001',
        undefined,
        undefined,
        422,
        errors('offset must be at most 1000000000'),
      ],
      ['a forged token', 'GET', '/api/user', undefined, forged(jake), 401, errors('unauthorized')],
      ['an expired token', 'GET', '/api/user', undefined, expired(), 401, errors('unauthorized')],
      [
        'a token signed with another secret',
        'POST',
        '/api/articles',
        { article: ARTICLE },
        other_secret(),
        401,
        errors('unauthorized'),
      ],
      // A route's token check runs before its validation: a caller without a valid token learns nothing of the body.
      [
        'no token and an invalid body',
        'POST',
        '/api/articles',
        { article: { title: 7 } },
        undefined,
        401,
        errors('unauthorized'),
      ],
      ['no token and malformed JSON', 'POST', '/api/articles', '{"article": {', undefined, 401, errors('unauthorized')],
      ['no token and no field', 'PUT', '/api/user', { user: {} }, undefined, 401, errors('unauthorized')],
      [
        'a forged token and a bad limit',
        'GET',
        '/api/articles?limit=-1',
        undefined,
        forged(jake),
        401,
        errors('unauthorized'),
      ],
      [
        'a forged token and a bad comment id',
        'DELETE',
        '/api/articles/x/comments/abc',
        undefined,
        forged(jake),
        401,
        errors('unauthorized'),
      ],
      [
        '500 tags',
        'POST',
        '/api/articles',
        { article: { ...ARTICLE, tagList: Array.from({ length: 500 }, (_, i) => `t${i}`) } },
        jake,
        422,
        errors('tagList must have at most 20 items'),
      ],
      [
        'duplicate tags',
        'POST',
        '/api/articles',
        { article: { ...ARTICLE, tagList: ['a', 'b', 'a'] } },
        jake,
        422,
        errors('tagList must not repeat a tag'),
      ],
      [
        'a blank description',
        'POST',
        '/api/articles',
        { article: { ...ARTICLE, description: ' \n\t' } },
        jake,
        422,
        errors('description must not be empty'),
      ],
      [
        'a blank body',
        'POST',
        '/api/articles',
        { article: { ...ARTICLE, body: '   ' } },
        jake,
        422,
        errors('body must not be empty'),
      ],
      [
        'a blank comment',
        'POST',
        '/api/articles/how-to-train-your-dragon/comments',
        { comment: { body: ' \n ' } },
        jake,
        422,
        errors('body must not be empty'),
      ],
      [
        'a username with /',
        'POST',
        '/api/users',
        { user: { username: 'a/b', email: 'ab@example.com', password: 'aaaaaaaa' } },
        undefined,
        422,
        errors('username may hold only letters, digits, _, - and single dots'),
      ],
      [
        'a username with ..',
        'PUT',
        '/api/user',
        { user: { username: '..' } },
        jake,
        422,
        errors('username may hold only letters, digits, _, - and single dots'),
      ],
    ]
    for (const [name, method, url, body, token, status, answer] of cases) {
      const r = await call(app, method, url, body, token)
      t.same([r.status, r.body], [status, answer], name)
    }
    t.same(await counts(c), before, 'no row was written')
  })

  t.test('an update with no field, or blanking a required field, answers 422 and changes nothing', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const created = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const { slug, updatedAt } = (created.body as { article: { slug: string; updatedAt: string } }).article
    const cases: Array<[string, string, string, unknown, unknown]> = [
      // openapi.yml, UpdateUserRequest: "At least **one** field is required."
      ['no field', 'PUT', '/api/user', { user: {} }, errors('user must have at least one field')],
      ['a null email', 'PUT', '/api/user', { user: { email: null } }, errors('email must be a string')],
      ['an empty email', 'PUT', '/api/user', { user: { email: '' } }, errors('email must not be empty')],
      ['a blank username', 'PUT', '/api/user', { user: { username: '  ' } }, errors('username must not be empty')],
      ['an empty password', 'PUT', '/api/user', { user: { password: '' } }, errors('password must not be empty')],
      ['a blank title', 'PUT', `/api/articles/${slug}`, { article: { title: ' ' } }, errors('title must not be empty')],
      [
        'an empty description',
        'PUT',
        `/api/articles/${slug}`,
        { article: { description: '' } },
        errors('description must not be empty'),
      ],
      ['an empty body', 'PUT', `/api/articles/${slug}`, { article: { body: '' } }, errors('body must not be empty')],
      [
        'a blank description',
        'PUT',
        `/api/articles/${slug}`,
        { article: { description: '  ' } },
        errors('description must not be empty'),
      ],
      ['a blank body', 'PUT', `/api/articles/${slug}`, { article: { body: '\n' } }, errors('body must not be empty')],
    ]
    for (const [name, method, url, body, answer] of cases) {
      const r = await call(app, method, url, body, jake)
      t.same([r.status, r.body], [422, answer], name)
    }
    const me = (await call(app, 'GET', '/api/user', undefined, jake)).body as { user: Obj }
    t.same(
      { ...me.user, token: undefined },
      { email: 'jake@example.com', token: undefined, username: 'jake', bio: '', image: '' },
    )
    const login = await call(app, 'POST', '/api/users/login', {
      user: { email: 'jake@example.com', password: 'password-jake' },
    })
    t.equal(login.status, 200, 'the password is unchanged')
    const a = await call(app, 'GET', `/api/articles/${slug}`)
    t.match((a.body as { article: Obj }).article, { ...ARTICLE, slug, updatedAt })
    const cleared = await call(app, 'PUT', '/api/user', { user: { bio: '', image: null } }, jake)
    t.match([cleared.status, (cleared.body as { user: Obj }).user], [200, { bio: '', image: '' }], 'bio may be emptied')
  })

  t.test("an unknown route under /api answers 404 in RealWorld's error shape", async (t) => {
    const { app } = await fresh(t, kind, pg)
    for (const [method, url] of [
      ['GET', '/api/nothing'],
      ['DELETE', '/api/tags'],
      ['PATCH', '/api/articles/some-slug'],
    ] as const) {
      const r = await call(app, method, url)
      t.same([r.status, r.body], [404, { errors: { body: ['route not found'] } }], `${method} ${url}`)
    }
  })

  t.test('an article update with no field answers 200 and changes nothing, updatedAt included', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const reader = await register(app, 'reader')
    const created = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const slug = (created.body as { article: Obj }).article['slug'] as string
    // A past updatedAt, so that any write would move it, however fast the update follows the creation.
    const updatedAt = '2020-01-01T00:00:00.000Z'
    await c.db.kysely.updateTable('articles').set({ updated_at: updatedAt }).where('slug', '=', slug).execute()
    // openapi.yml's UpdateArticle makes every field optional, and its UpdateArticleRequest, unlike UpdateUserRequest,
    // does not ask for one: an empty update is valid, and changes nothing.
    const r = await call(app, 'PUT', `/api/articles/${slug}`, { article: {} }, jake)
    t.match([r.status, r.body], [200, { article: { ...ARTICLE, slug, updatedAt } }], 'the answer')
    const read = await call(app, 'GET', `/api/articles/${slug}`)
    t.match((read.body as { article: Obj }).article, { ...ARTICLE, slug, updatedAt }, 'what is stored')
    const refusals = [
      [await call(app, 'PUT', `/api/articles/${slug}`, { article: {} }, reader), 403],
      [await call(app, 'PUT', '/api/articles/nothing-here', { article: {} }, jake), 404],
      [await call(app, 'PUT', `/api/articles/${slug}`, { article: {} }), 401],
    ] as const
    t.same(
      refusals.map(([r]) => r.status),
      refusals.map(([, status]) => status),
      'another author, an unknown slug and no token are still refused',
    )
  })

  t.test('bio and image are strings everywhere (openapi.yml: required, type string), "" when not set', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const reader = await register(app, 'reader')
    await call(app, 'POST', '/api/profiles/jake/follow', undefined, reader)
    const created = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const slug = (created.body as { article: Obj }).article['slug'] as string
    await call(app, 'POST', `/api/articles/${slug}/comments`, { comment: { body: 'Noted.' } }, jake)
    /** bio and image of jake in every answer that shows him. */
    const seen = async (): Promise<Record<string, unknown>> => {
      const pick = (o: unknown): unknown => {
        const x = o as Obj
        return { bio: x['bio'], image: x['image'], keys: ['bio', 'image'].filter((k) => k in x) }
      }
      const login = await call(app, 'POST', '/api/users/login', {
        user: { email: 'jake@example.com', password: 'password-jake' },
      })
      const comment = await call(app, 'POST', `/api/articles/${slug}/comments`, { comment: { body: 'Again.' } }, jake)
      return {
        'GET /user': pick(((await call(app, 'GET', '/api/user', undefined, jake)).body as { user: Obj }).user),
        'POST /users/login': pick((login.body as { user: Obj }).user),
        'GET /profiles/jake': pick(((await call(app, 'GET', '/api/profiles/jake')).body as { profile: Obj }).profile),
        'POST /profiles/jake/follow': pick(
          ((await call(app, 'POST', '/api/profiles/jake/follow', undefined, reader)).body as { profile: Obj }).profile,
        ),
        'GET /articles/{slug}': pick(
          ((await call(app, 'GET', `/api/articles/${slug}`)).body as { article: Obj }).article['author'],
        ),
        'GET /articles': pick(
          ((await call(app, 'GET', '/api/articles')).body as { articles: Obj[] }).articles[0]!['author'],
        ),
        'GET /articles/feed': pick(
          ((await call(app, 'GET', '/api/articles/feed', undefined, reader)).body as { articles: Obj[] }).articles[0]![
            'author'
          ],
        ),
        'POST /articles/{slug}/comments': pick((comment.body as { comment: Obj }).comment['author']),
        'GET /articles/{slug}/comments': pick(
          ((await call(app, 'GET', `/api/articles/${slug}/comments`)).body as { comments: Obj[] }).comments[0]![
            'author'
          ],
        ),
      }
    }
    const everywhere = (bio: string, image: string) =>
      Object.fromEntries(
        [
          'GET /user',
          'POST /users/login',
          'GET /profiles/jake',
          'POST /profiles/jake/follow',
          'GET /articles/{slug}',
          'GET /articles',
          'GET /articles/feed',
          'POST /articles/{slug}/comments',
          'GET /articles/{slug}/comments',
        ].map((where) => [where, { bio, image, keys: ['bio', 'image'] }]),
      )
    t.same(await seen(), everywhere('', ''), 'a new user who set neither')
    const set = await call(app, 'PUT', '/api/user', { user: { bio: 'Rides', image: 'https://i.example/j.png' } }, jake)
    t.match((set.body as { user: Obj }).user, { bio: 'Rides', image: 'https://i.example/j.png' })
    t.same(await seen(), everywhere('Rides', 'https://i.example/j.png'), 'once set')
    const cleared = await call(app, 'PUT', '/api/user', { user: { bio: null, image: null } }, jake)
    t.match([cleared.status, (cleared.body as { user: Obj }).user], [200, { bio: '', image: '' }], 'null clears')
    t.same(await seen(), everywhere('', ''), 'once cleared with null')
    await call(app, 'PUT', '/api/user', { user: { bio: 'Again', image: 'x' } }, jake)
    const emptied = await call(app, 'PUT', '/api/user', { user: { bio: '', image: '' } }, jake)
    t.match([emptied.status, (emptied.body as { user: Obj }).user], [200, { bio: '', image: '' }], '"" clears')
    t.same(await seen(), everywhere('', ''), 'once cleared with ""')
    const registered = await call(app, 'POST', '/api/users', {
      user: { username: 'newbie', email: 'newbie@example.com', password: 'newbienewbie' },
    })
    t.match((registered.body as { user: Obj }).user, { bio: '', image: '' }, 'POST /users')
  })

  t.test('tags are ordered by code point on both databases, mixed case and accents included', async (t) => {
    const { app } = await conduit_app(t, await collated_database(t, kind, pg))
    const jake = await register(app, 'jake')
    const tags = ['b', 'É', 'Zebra', 'a', 'é', 'B', 'zebra', 'e', 'Ab', 'ab', '_x', '1']
    const sorted = ['1', 'Ab', 'B', 'Zebra', '_x', 'a', 'ab', 'b', 'e', 'zebra', 'É', 'é']
    const created = await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, tagList: tags } }, jake)
    t.same((created.body as { article: Obj }).article['tagList'], sorted, "an article's tagList")
    t.same((await call(app, 'GET', '/api/tags')).body, { tags: sorted }, 'GET /api/tags')
    const listed = await call(app, 'GET', '/api/articles')
    t.same((listed.body as { articles: Obj[] }).articles[0]!['tagList'], sorted, 'GET /api/articles')
  })

  t.test('SQL metacharacters in every field are stored and matched verbatim (parameters only)', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const evil = `x'); DROP TABLE users; -- " OR 1=1 \\ %_`
    const token = await register(app, 'jake')
    const upd = await call(app, 'PUT', '/api/user', { user: { bio: evil, image: evil } }, token)
    t.match((upd.body as { user: Obj }).user, { bio: evil, image: evil })
    const r = await call(
      app,
      'POST',
      '/api/articles',
      { article: { title: evil, description: evil, body: evil, tagList: [evil] } },
      token,
    )
    t.match(
      [r.status, (r.body as { article: Obj }).article],
      [201, { title: evil, description: evil, body: evil, tagList: [evil] }],
    )
    const slug = (r.body as { article: Obj }).article['slug'] as string
    await call(app, 'POST', `/api/articles/${slug}/comments`, { comment: { body: evil } }, token)
    const q = encodeURIComponent(evil)
    t.match((await call(app, 'GET', `/api/articles?tag=${q}`)).body, { articlesCount: 1 })
    t.match((await call(app, 'GET', `/api/articles?author=${q}`)).body, { articlesCount: 0 })
    t.match((await call(app, 'GET', `/api/articles?favorited=${encodeURIComponent("' OR '1'='1")}`)).body, {
      articlesCount: 0,
    })
    t.equal((await call(app, 'GET', `/api/profiles/${encodeURIComponent("x' OR '1'='1")}`)).status, 404)
    t.match(await counts(c), { users: 1, articles: 1, comments: 1, tags: 1 })
  })

  t.test('lists are newest first by createdAt, and paging by 1 gives each article once', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const tokens = [await register(app, 'jake'), await register(app, 'anne')]
    // Created at once: on PostgreSQL the inserts commit in another order than their timestamps, and some share one.
    const n = 12
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(app, 'POST', '/api/articles', { article: { ...ARTICLE, title: `fast ${i}` } }, tokens[i % 2]),
      ),
    )
    const paged: Obj[] = []
    for (let i = 0; i < n; i++) {
      const r = await call(app, 'GET', `/api/articles?limit=1&offset=${i}`)
      t.match(r.body, { articlesCount: n, articles: { length: 1 } }, `offset ${i}`)
      paged.push(...(r.body as { articles: Obj[] }).articles)
    }
    t.equal(new Set(paged.map((a) => a['slug'])).size, n, 'each article on exactly one page')
    const times = paged.map((a) => a['createdAt'] as string)
    t.same(times, [...times].sort().reverse(), 'newest first by createdAt')
    const whole = (await call(app, 'GET', `/api/articles?limit=${n}`)).body as { articles: Obj[] }
    t.same(
      whole.articles.map((a) => a['slug']),
      paged.map((a) => a['slug']),
      'pages of 1 in the order of one page',
    )
  })

  t.test('comments are oldest first by createdAt, then by id, whatever order their ids came in', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const created = await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const slug = (created.body as { article: Obj }).article['slug'] as string
    const url = `/api/articles/${slug}/comments`
    const { id: article_id } = await c.db.kysely
      .selectFrom('articles')
      .select('id')
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow()
    const { id: author_id } = await c.db.kysely
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'jake')
      .executeTakeFirstOrThrow()
    // Ids in insert order, timestamps not: as on PostgreSQL when the pool's connections commit in another order than
    // the handlers read the clock. Two share one millisecond: the id orders them.
    const at = (s: number) => `2030-01-01T12:00:0${s}.000Z`
    for (const [body, second] of [
      ['third', 3],
      ['first', 1],
      ['second a', 2],
      ['second b', 2],
    ] as const) {
      await c.db.kysely
        .insertInto('comments')
        .values({ article_id, author_id, body, created_at: at(second), updated_at: at(second) })
        .execute()
    }
    const listed = (await call(app, 'GET', url)).body as { comments: Obj[] }
    t.same(
      listed.comments.map((x) => [x['body'], x['createdAt']]),
      [
        ['first', at(1)],
        ['second a', at(2)],
        ['second b', at(2)],
        ['third', at(3)],
      ],
      'by createdAt, then by id',
    )
    const [a, b] = listed.comments.slice(1, 3).map((x) => x['id'] as number)
    t.ok(a! < b!, 'one millisecond: the lower id first')
    // Comments sent at once, through the API: listed in the order of their createdAt.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(app, 'POST', url, { comment: { body: `fast ${i}` } }, jake)),
    )
    const fast = ((await call(app, 'GET', url)).body as { comments: Obj[] }).comments.slice(4)
    const times = fast.map((x) => x['createdAt'] as string)
    t.same([fast.length, times], [12, [...times].sort()], 'oldest first by createdAt')
  })

  t.test('GET /api/tags lists every tag in use, past 500 (openapi.yml sets no limit)', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    // 26 articles of 20 tags each (the most an article takes): 520 tags, t000 to t519.
    const name = (i: number) => `t${String(i).padStart(3, '0')}`
    const statuses: number[] = []
    for (let a = 0; a < 26; a++) {
      const tagList = Array.from({ length: 20 }, (_, i) => name(a * 20 + i))
      const r = await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, title: `a${a}`, tagList } }, jake)
      statuses.push(r.status)
    }
    t.same(statuses, Array(26).fill(201), 'every article created')
    const before = c.db.queries.count
    const r = await call(app, 'GET', '/api/tags')
    t.equal(c.db.queries.count - before, 1, 'one query')
    t.same([r.status, r.body], [200, { tags: Array.from({ length: 520 }, (_, i) => name(i)) }], 'all 520 tags, by name')
  })

  t.test('a favourite or comment racing the deletion of its article answers 404, never 500', async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const reader = await register(app, 'reader')
    const answers: string[] = []
    for (let i = 0; i < 15; i++) {
      const r = await call(app, 'POST', '/api/articles', { article: { ...ARTICLE, title: `race ${i}` } }, jake)
      const slug = (r.body as { article: Obj }).article['slug'] as string
      const [fav, comment, del] = await Promise.all([
        call(app, 'POST', `/api/articles/${slug}/favorite`, undefined, reader),
        call(app, 'POST', `/api/articles/${slug}/comments`, { comment: { body: 'First!' } }, reader),
        call(app, 'DELETE', `/api/articles/${slug}`, undefined, jake),
      ])
      t.equal(del!.status, 204)
      for (const [what, x] of [
        ['favourite', fav!],
        ['comment', comment!],
      ] as const) {
        if (x.status !== 200) answers.push(`${what} ${x.status} ${JSON.stringify(x.body)}`)
      }
    }
    const refused = errors('article not found')
    t.same(
      answers.filter((a) => !a.endsWith(` 404 ${JSON.stringify(refused)}`)),
      [],
      'each answer is 200 or 404 article not found',
    )
  })

  t.test('articles sent at once with the same new tags in other orders are all created', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    const failed: string[] = []
    // On PostgreSQL each transaction waits for the other's uncommitted tag: a deadlock when they insert in other orders.
    for (let round = 0; round < 25; round++) {
      const tags = Array.from({ length: 20 }, (_, i) => `r${round}-${i}`)
      const rotated = (k: number) => [...tags.slice(k), ...tags.slice(0, k)]
      const orders = [0, 7, 14].flatMap((k) => [rotated(k), rotated(k).reverse()])
      const rs = await Promise.all(
        orders.map((tagList, k) =>
          call(app, 'POST', '/api/articles', { article: { ...ARTICLE, title: `${round} ${k}`, tagList } }, jake),
        ),
      )
      for (const r of rs) if (r.status !== 201) failed.push(`round ${round}: ${r.status} ${JSON.stringify(r.body)}`)
    }
    t.same(failed, [])
    t.match(await counts(c), { articles: 150, tags: 500, article_tags: 3000 })
  })

  t.test('two identical registrations at once create one user; the other answers 422', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const user = { user: { username: 'twin', email: 'twin@example.com', password: 'twinstwins' } }
    const [a, b] = await Promise.all([call(app, 'POST', '/api/users', user), call(app, 'POST', '/api/users', user)])
    t.same([a.status, b.status].sort(), [201, 422])
    t.match(await counts(c), { users: 1 })
  })

  t.test('a token of a user that no longer exists answers 401 on every write, never 500', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const gone = await register(app, 'gone')
    // A user removed (a database reset or restored, an account deleted) while a client still holds its token.
    await c.db.kysely.deleteFrom('users').where('username', '=', 'gone').execute()
    const before = await counts(c)
    const slug = 'how-to-train-your-dragon'
    for (const [method, url, body] of [
      ['POST', '/api/articles', { article: { ...ARTICLE, title: 'Ghost writer' } }],
      ['POST', '/api/profiles/jake/follow', undefined],
      ['POST', `/api/articles/${slug}/favorite`, undefined],
      ['POST', `/api/articles/${slug}/comments`, { comment: { body: 'Boo' } }],
    ] as const) {
      const r = await call(app, method, url, body, gone)
      t.same([r.status, r.body, r.headers['www-authenticate']], [401, errors('unauthorized'), 'Token'], url)
    }
    t.same(await counts(c), before, 'no row was written')
  })

  t.test("a comment id past the database's integer answers 422, never 500", async (t) => {
    const { app } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const url = '/api/articles/how-to-train-your-dragon/comments'
    const r = await call(app, 'DELETE', `${url}/2147483648`, undefined, jake)
    t.same([r.status, r.body], [422, errors('id must be at most 2147483647')])
    const last = await call(app, 'DELETE', `${url}/2147483647`, undefined, jake)
    t.same([last.status, last.body], [404, errors('comment not found')])
  })

  t.test('a NUL character in any text answers 422 and writes nothing (PostgreSQL text cannot hold one)', async (t) => {
    const { app, c } = await fresh(t, kind, pg)
    const jake = await register(app, 'jake')
    await call(app, 'POST', '/api/articles', { article: ARTICLE }, jake)
    const before = await counts(c)
    const nul = 'a\u0000b'
    const slug = '/api/articles/how-to-train-your-dragon'
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/articles', { article: { ...ARTICLE, title: nul } }, 'title'],
      ['POST', '/api/articles', { article: { ...ARTICLE, description: nul } }, 'description'],
      ['POST', '/api/articles', { article: { ...ARTICLE, body: nul } }, 'body'],
      ['POST', '/api/articles', { article: { ...ARTICLE, tagList: [nul] } }, 'tagList'],
      ['PUT', slug, { article: { title: nul } }, 'title'],
      ['POST', `${slug}/comments`, { comment: { body: nul } }, 'body'],
      ['PUT', '/api/user', { user: { bio: nul } }, 'bio'],
      ['PUT', '/api/user', { user: { image: nul } }, 'image'],
      ['GET', '/api/articles?tag=a%00b', undefined, 'tag'],
      ['GET', '/api/articles?author=a%00b', undefined, 'author'],
      ['GET', '/api/articles?favorited=a%00b', undefined, 'favorited'],
      ['GET', '/api/articles/a%00b', undefined, 'slug'],
      ['GET', '/api/profiles/a%00b', undefined, 'username'],
    ]
    for (const [method, url, body, key] of cases) {
      const r = await call(app, method, url, body, jake)
      t.same([r.status, r.body], [422, errors(`${key} must not contain a NUL character`)], `${method} ${url} ${key}`)
    }
    t.same(await counts(c), before, 'no row was written')
    const me = await call(app, 'GET', '/api/user', undefined, jake)
    t.same((me.body as { user: Obj }).user['bio'], '', 'bio unchanged')
  })
}

function forged(token: string): string {
  const [h, , s] = token.split('.')
  const payload = Buffer.from(JSON.stringify({ sub: '1', exp: 4_000_000_000 })).toString('base64url')
  return `${h}.${payload}.${s}`
}

function expired(): string {
  return createSigner({ key: TEST_SECRET, algorithm: 'HS256' })({ sub: '1', exp: Math.floor(Date.now() / 1000) - 60 })
}

function other_secret(): string {
  return createSigner({ key: 'another-secret-of-more-than-32-characters', algorithm: 'HS256' })({ sub: '1' })
}
