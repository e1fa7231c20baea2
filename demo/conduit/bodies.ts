// The conduit's input schemas: RealWorld's wrapped bodies ({"user":...}, {"article":...}) with limits, and its queries.
import { field, schema } from '../../lib/validation/index.js'

/** A username: letters, digits, `_`, `-` and single dots, so it is safe in a path (no `/`, no `..`). */
const USERNAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/
const username = field
  .string()
  .trim()
  .max_length(40)
  .check((v) => USERNAME.test(v), 'username may hold only letters, digits, _, - and single dots')
const email = field.string().trim().lowercase().max_length(254).email('email is invalid')
const password = field.string().length(8, 128)
/**
 * Text of at most `max` characters that holds no U+0000: PostgreSQL's `text` cannot store one (the query fails, a 500)
 * and SQLite would; refused on both alike, in what is stored and in what is looked up.
 */
function text(key: string, max: number) {
  return field
    .string()
    .max_length(max)
    .check((value) => !value.includes('\0'), `${key} must not contain a NUL character`)
}

const bio = text('bio', 2000).nullable()
const image = text('image', 2000).nullable()

/** `POST /users`. */
export const NewUser = schema({
  user: field
    .object({ username: username.required(), email: email.required(), password: password.required() })
    .required(),
})

/** `POST /users/login`. */
export const LoginUser = schema({
  user: field.object({ email: email.required(), password: field.string().required().max_length(128) }).required(),
})

/**
 * An update's test that `key`, when sent, is not empty. An optional string sent as `''` (or blank once trimmed) skips
 * its field's rules, so without this an update would store an empty email, username, password, title, description or
 * body, which creation refuses as required.
 */
function filled(key: string): [(values: Readonly<Record<string, unknown>>) => boolean, string] {
  return [(values) => values[key] !== '', `${key} must not be empty`]
}

/**
 * `PUT /user`: every field optional, at least one given (openapi.yml's UpdateUserRequest); bio and image may be `''`,
 * or `null` (as clients that read a `null` back send it), which clears them as `''` does: either answers `''` after.
 */
export const UpdateUser = schema({
  user: field
    .object({ email, username, password, bio, image })
    .required()
    .check((u) => Object.values(u).some((v) => v !== undefined), 'user must have at least one field')
    .check(...filled('email'))
    .check(...filled('username'))
    .check(...filled('password')),
})

/**
 * The check that text sent is not blank: whitespace alone is no description, body or comment. Unlike `trim()` (title,
 * username), it keeps the text as sent.
 */
function not_blank(key: string): [(value: string) => boolean, string] {
  return [(value) => value.trim() !== '', `${key} must not be empty`]
}

const title = text('title', 200).trim()
const description = text('description', 1000).check(...not_blank('description'))
const body = text('body', 100_000).check(...not_blank('body'))
const tag_list = field
  .array(text('tagList', 40).required().trim())
  .max_items(20)
  .check((tags) => new Set(tags).size === tags.length, 'tagList must not repeat a tag')

/** `POST /articles`. */
export const NewArticle = schema({
  article: field
    .object({ title: title.required(), description: description.required(), body: body.required(), tagList: tag_list })
    .required(),
})

/**
 * `PUT /articles/{slug}`: every field optional; one that is sent is not empty. None at all is valid (openapi.yml asks
 * for one field in `UpdateUserRequest` only): the article is answered unchanged.
 */
export const UpdateArticle = schema({
  article: field
    .object({ title, description, body })
    .required()
    .check(...filled('title'))
    .check(...filled('description'))
    .check(...filled('body')),
})

/** `POST /articles/{slug}/comments`. */
export const NewComment = schema({
  comment: field
    .object({
      body: text('body', 10_000)
        .required()
        .check(...not_blank('body')),
    })
    .required(),
})

const limit = field.integer().min(1).max(100).default(20)
const offset = field.integer().min(0).max(1_000_000_000).default(0)

/** `GET /articles`: filters and the page (limit 1-100, default 20; offset default 0). */
export const ArticleQuery = schema({
  tag: text('tag', 40),
  author: text('author', 40),
  favorited: text('favorited', 40),
  limit,
  offset,
})

/** `GET /articles/feed`: the page only. */
export const FeedQuery = schema({ limit, offset })

const slug = text('slug', 300).required()

/** `{slug}` of the article routes. */
export const SlugParams = schema({ slug })

/** `{username}` of the profile routes. */
export const UsernameParams = schema({
  username: text('username', 40).required(),
})

/**
 * `{slug}` and `{id}` of `DELETE /articles/{slug}/comments/{id}`. The id is at most PostgreSQL's `integer` (the `serial`
 * column's type): a larger one fails the query there (a 500), where no comment can have it.
 */
export const CommentParams = schema({
  slug,
  id: field.integer().required().min(1).max(2_147_483_647),
})
