// The Response facade: a buffered response (status, headers, body) that the adapter commits after the middleware chain
// unwinds.
import { defineError, httpCode } from './errors.js'
import { error_body } from './http-error.js'
import { BAD_HEADER_VALUE, HTTP_TOKEN, is_json_media_type } from './http-token.js'
import { set_cookie_line, type CookieAttributes } from './cookie.js'
import { pairs_to_object, type KeyValues } from './json.js'
import {
  check_source,
  discard_body,
  type SseOptions,
  type SseProducer,
  type StreamedBody,
  type StreamSource,
} from './stream/index.js'
import { merge_vary } from './vary.js'

export const ERR_RESPONSE_BAD_HEADER = defineError(
  'FW_ERR_RESPONSE_BAD_HEADER',
  (name: string) => `response header ${JSON.stringify(name)} has an invalid name or a value with CR, LF or NUL`,
)
export const ERR_RESPONSE_BAD_STREAM = defineError(
  'FW_ERR_RESPONSE_BAD_STREAM',
  (why: string) => `bad streamed response: ${why}`,
)
export const ERR_RESPONSE_BAD_STATUS = defineError(
  'FW_ERR_RESPONSE_BAD_STATUS',
  (code: unknown) => `status must be an integer from 200 to 599; got ${String(code)}`,
)

/** What kind of body the response carries. */
export type BodyKind = 'none' | 'text' | 'json' | 'send' | 'file' | 'stream' | 'sse'

export { HTTP_TOKEN }

export const CODE_BAD_PATH = httpCode('bad_path')
/** A file's precondition failed (If-Match, If-Unmodified-Since): `file()`'s 412, the `etag` middleware's too. */
export const CODE_PRECONDITION_FAILED = httpCode('precondition_failed')
/** A file's `Range` asks for no byte it has: `file()`'s 416, whose `Content-Range` gives the file's length. */
export const CODE_RANGE_NOT_SATISFIABLE = httpCode('range_not_satisfiable')

const JSON_TYPE = 'application/json; charset=utf-8'

/** True when a file path has a `..` segment (either slash), a NUL byte, or is empty. */
export function is_unsafe_path(path: string): boolean {
  if (path.length === 0 || path.includes('\0')) return true
  for (const seg of path.split(/[\\/]/)) if (seg === '..') return true
  return false
}

/** A header value as `Response.header` sets it; a name that is not a token or a value Node cannot write throws. */
function checked_value(name: string, value: string | number): string {
  const v = typeof value === 'number' ? String(value) : value
  if (!HTTP_TOKEN.test(name) || typeof v !== 'string' || BAD_HEADER_VALUE.test(v)) throw ERR_RESPONSE_BAD_HEADER(name)
  return v
}

/**
 * @internal Headers checked once, when the list is made, as `Response.header` checks each (a bad one throws
 * `FW_ERR_RESPONSE_BAD_HEADER` here): `Response.checked_headers` then sets them on every response without checking
 * them again.
 */
export class CheckedHeaders {
  /** Lowercase names, in order. */
  readonly names: readonly string[]
  readonly values: readonly string[]

  constructor(pairs: ReadonlyArray<readonly [string, string | number]>) {
    this.values = Object.freeze(pairs.map(([name, value]) => checked_value(name, value)))
    this.names = Object.freeze(pairs.map(([name]) => name.toLowerCase()))
  }
}

/**
 * What a handler writes. Calls chain: `res.status(201).json('ok', true)`. Nothing is sent until the chain unwinds, so
 * middleware can read and change the response after `await next()`.
 * @example
 * res.status(404).error(404, 'user_not_found', 'User not found')
 */
export class Response {
  // Read-only from outside: `status()` checks the range, and a body call sets the kind and payload together.
  #status_code = 200
  #kind: BodyKind = 'none'
  #payload: string | Buffer | undefined = undefined
  #streamed: StreamedBody | undefined = undefined
  #headers: Record<string, string | string[]> = {}
  #refused: string | undefined = undefined

  /**
   * The code of the 401 or 403 `error()` answer this response holds, if its body is one: what the adapter counts as an
   * auth refusal when it sends the answer, so a refusal written on a response that is never sent (an `auth.any_of`
   * trial passed over) is not counted.
   */
  get refused(): string | undefined {
    return this.#refused
  }

  /** The status code to send (default 200); set it with `status()`. */
  get status_code(): number {
    return this.#status_code
  }

  /** The body kind set by the last body call. */
  get kind(): BodyKind {
    return this.#kind
  }

  /** The body: a string, a Buffer, or for `file` the path. */
  get payload(): string | Buffer | undefined {
    return this.#payload
  }

  /** For `stream` and `sse`: what the adapter opens when it commits (nothing runs before). */
  get streamed(): StreamedBody | undefined {
    return this.#streamed
  }

  /**
   * Sets the status code, 200 to 599: a 1xx is informational (RFC 9110 15.2), never the final answer this response is.
   */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 200 || code > 599) throw ERR_RESPONSE_BAD_STATUS(code)
    this.#status_code = code
    return this
  }

  /**
   * Replaces the bytes of a buffered body, keeping its kind and headers: for middleware that rewrites the body after
   * `next()` (compression, an empty 304). A response with no buffered body (none, a file, a stream) is left as it is.
   * @example
   * res.replace_payload(gzipSync(res.body_text()))
   */
  replace_payload(payload: string | Buffer): this {
    if (this.#kind !== 'none' && this.#kind !== 'file' && this.#streamed === undefined) this.#payload = payload
    return this
  }

  /**
   * Replaces a streamed body with a transformed one (compression), keeping its headers: for middleware that wraps the
   * stream after `next()`. A response that is not streamed is left as it is.
   */
  replace_stream(streamed: StreamedBody): this {
    if (this.#streamed !== undefined) this.#streamed = streamed
    return this
  }

  /**
   * Sets a header; `Set-Cookie` accumulates, and `Vary` merges: the names are added to those already listed (each once,
   * case-insensitively; `*` wins), so a handler's `Vary` keeps the `Origin` CORS set. `remove_header('vary')` first to
   * replace it. A name that is not a token or a value with CR/LF/NUL or another byte Node refuses throws (no header
   * injection).
   * @example
   * res.header('Vary', 'Accept-Language') // after CORS: `Vary: Origin, Accept-Language`
   */
  header(name: string, value: string | number): this {
    const v = checked_value(name, value)
    return this.#set_header(name.toLowerCase(), v)
  }

  /**
   * @internal Sets the headers of a `CheckedHeaders` list, in order, as `header()` would one by one, without checking
   * them again: for middleware that sets the same headers on every response (`security_headers`).
   */
  checked_headers(list: CheckedHeaders): this {
    const { names, values } = list
    for (let i = 0; i < names.length; i++) this.#set_header(names[i]!, values[i]!)
    return this
  }

  #set_header(key: string, v: string): this {
    if (key === 'set-cookie') {
      const prev = this.#headers[key]
      this.#headers[key] = prev === undefined ? [v] : [...(prev as string[]), v]
    } else if (key === 'vary') {
      this.#headers[key] = merge_vary(this.#headers[key] as string | undefined, v)
    } else {
      this.#headers[key] = v
    }
    return this
  }

  /**
   * Adds a `Set-Cookie` line built by the `cookie` package's serializer; a bad name or attribute throws
   * `FW_ERR_RESPONSE_BAD_COOKIE`.
   * @example
   * res.cookie('theme', 'dark', { path: '/', max_age: 86_400, same_site: 'Lax' })
   */
  cookie(name: string, value: string, attributes: CookieAttributes = {}): this {
    return this.header('Set-Cookie', set_cookie_line(name, value, attributes))
  }

  /** A response header already set (lowercase lookup); `Set-Cookie` gives the list joined by `, `. */
  get_header(name: string): string | undefined {
    const key = name.toLowerCase()
    // Own members only: `constructor` (a valid header name) would otherwise find Object.prototype's and throw.
    if (!Object.hasOwn(this.#headers, key)) return undefined
    const v = this.#headers[key]!
    return typeof v === 'string' ? v : v.join(', ')
  }

  /** Removes a header. */
  remove_header(name: string): this {
    delete this.#headers[name.toLowerCase()]
    return this
  }

  /** Every header set so far, names lowercase. */
  headers(): Readonly<Record<string, string | string[]>> {
    return this.#headers
  }

  /** A plain-text body (`text/plain; charset=utf-8`). */
  text(s: string): this {
    this.#content_type('text/plain; charset=utf-8')
    return this.#body('text', s)
  }

  /**
   * A basic body: a string (text/plain unless a content type is set) or a Buffer (application/octet-stream); none when
   * omitted.
   */
  send(s?: string | Buffer): this {
    if (s === undefined) return this.#body('send', '')
    if (this.#headers['content-type'] === undefined) {
      this.#headers['content-type'] = typeof s === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream'
    }
    return this.#body('send', s)
  }

  /**
   * A JSON body: one value, or alternating key/value arguments kept in order. Sent as `application/json;
   * charset=utf-8`, unless a JSON content type was set before (`application/json` or a `+json` suffix, such as
   * `application/problem+json`): that one is kept.
   * @example
   * res.json({ ok: true }); res.json('ok', true, 'count', 2)
   * res.status(409).header('content-type', 'application/problem+json').json('title', 'Conflict')
   */
  json(value: unknown): this
  json<const A extends unknown[]>(...pairs: A & KeyValues<A>): this
  json(...args: unknown[]): this {
    const value = args.length === 1 ? args[0] : pairs_to_object(args)
    // Only `set-cookie` holds a list, so a content type set is a string.
    const type = this.#headers['content-type'] as string | undefined
    if (!is_json_media_type(type)) this.#content_type(JSON_TYPE)
    return this.#body('json', JSON.stringify(value) ?? 'null')
  }

  /**
   * The conventional error body. With three arguments `{ok:false, error:code, message}`; with two `{ok:false,
   * error:message}` (the reference authentication API's variant). Always `application/json; charset=utf-8`: the body
   * is fw's, not the one a JSON content type set before described.
   */
  error(status: number, code: string, message: string, details?: unknown): this
  error(status: number, message: string): this
  error(status: number, code: string, message?: string, details?: unknown): this {
    this.status(status)
    this.#content_type(JSON_TYPE)
    this.#body('json', JSON.stringify(error_body(code, message, details)))
    // After the body: setting a body clears the refusal, so any later body replaces this answer's count too.
    if (status === 401 || status === 403) this.#refused = code
    return this
  }

  /**
   * Sends a file, streamed when committed. A path with a `..` segment answers 400 `bad_path`; a missing file 404.
   * Neither error keeps a `Cache-Control` meant for the file.
   */
  file(path: string): this {
    if (is_unsafe_path(path)) return this.remove_header('cache-control').error(400, CODE_BAD_PATH, 'Invalid file path')
    return this.#body('file', path)
  }

  /**
   * A streamed body: a Node Readable or an async iterable of strings and bytes, sent with backpressure once the
   * middleware chain has unwound (its headers are on the answer). A client going away destroys the source (a
   * generator's `finally` runs). Never stored by `http_cache`.
   * @example
   * res.stream(createReadStream(path), 'text/csv; charset=utf-8')
   */
  stream(source: StreamSource, content_type = 'application/octet-stream'): this {
    const checked = check_source(source)
    this.header('content-type', content_type)
    this.#body('stream', undefined)
    this.#streamed = { kind: 'stream', source: checked }
    return this
  }

  /**
   * Server-sent events: `producer(sink)` runs when the answer is sent and the stream ends when its promise settles.
   * Sends `text/event-stream`, `cache-control: no-cache` and `x-accel-buffering: no`, and a heartbeat comment every 15
   * s.
   * @example
   * res.sse(async (sink) => {
   *   for (let n = 1; !sink.closed; n++) {
   *     await sink.send({ data: { n } })
   *     await sleep(1000)
   *   }
   * })
   */
  sse(producer: SseProducer, options: SseOptions = {}): this {
    const heartbeat_ms = options.heartbeat_ms ?? 15_000
    if (typeof producer !== 'function') throw ERR_RESPONSE_BAD_STREAM('sse() takes a function (sink) => ...')
    if (!Number.isInteger(heartbeat_ms) || heartbeat_ms < 0)
      throw ERR_RESPONSE_BAD_STREAM(`heartbeat_ms must be an integer >= 0; got ${heartbeat_ms}`)
    this.#content_type('text/event-stream; charset=utf-8')
    this.#headers['cache-control'] = 'no-cache'
    this.#headers['x-accel-buffering'] = 'no'
    this.#body('sse', undefined)
    this.#streamed = { kind: 'sse', producer, heartbeat_ms }
    return this
  }

  /** Whether a body call (text, send, json, error, file, stream, sse) was made. */
  is_sent(): boolean {
    return this.#kind !== 'none'
  }

  /** The body as text, for middleware that reads it after `next()`; '' for none or a file. */
  body_text(): string {
    const p = this.#payload
    return this.#kind === 'file' || p === undefined ? '' : typeof p === 'string' ? p : p.toString('utf8')
  }

  /**
   * Drops the status and body written so far, keeping the headers: an error answer replaces a half-written response.
   */
  discard_body(): this {
    this.#status_code = 200
    return this.#body('none', undefined)
  }

  /** Clears body and headers (keeps nothing), so an error answer does not inherit a half-written response. */
  reset(): this {
    this.#status_code = 200
    this.#body('none', undefined)
    this.#headers = {}
    return this
  }

  /**
   * Takes another response's answer (status, headers, body) in place of this one's: for middleware that tries answers
   * on trial responses and keeps one (`auth.any_of`).
   */
  adopt(other: Response): this {
    this.#body(other.#kind, other.#payload)
    this.#refused = other.#refused
    this.#streamed = other.#streamed
    this.#status_code = other.#status_code
    this.#headers = Object.fromEntries(
      Object.entries(other.#headers).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]),
    )
    return this
  }

  #content_type(v: string): void {
    this.#headers['content-type'] = v
  }

  #body(kind: BodyKind, payload: string | Buffer | undefined): this {
    // A stream replaced before it was sent (an error answer after res.stream()) is let go, so no file stays open.
    if (this.#streamed !== undefined) {
      discard_body(this.#streamed)
      this.#streamed = undefined
    }
    this.#kind = kind
    this.#payload = payload
    this.#refused = undefined
    return this
  }
}
