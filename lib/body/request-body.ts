// A request's body as the adapter hands it over: already buffered (most routes), or a stream left unread until the
// handler asks (routes marked with `stream_body`). The readers of `Request` go through it.
import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import { encoded_body, ERR_BODY_CONSUMED, ERR_BODY_WRONG_TYPE } from './errors.js'
import { parse_form, type FormFields } from './form.js'
import { DEFAULT_FORM_LIMITS, resolve_form_limits, type FormLimits, type ResolvedFormLimits } from './limits.js'
import { Multipart, type MultipartParserFactory } from './multipart.js'
import { limited } from './read.js'

const EMPTY = Buffer.alloc(0)

/** Where the response's end is announced, for work that must wait for it (removing uploaded files). */
export interface ResponseEnd {
  once(event: 'close', fn: () => void): unknown
  /** True once the response is over (Node's `ServerResponse.closed`): its 'close' has already been emitted. */
  readonly closed?: boolean
}

/** How the adapter hands a body over. */
export interface RequestBodyOptions {
  /** The route's byte limit. */
  readonly limit: number
  /** The App's form limits (default `DEFAULT_FORM_LIMITS`). */
  readonly form_limits?: ResolvedFormLimits
  /** The multipart parser; without one `multipart()` cannot read the body. */
  readonly multipart_parser?: MultipartParserFactory
}

/** The media type of a `Content-Type` header, lowercase and without parameters ('' when absent). */
export function media_type(content_type: string | undefined): string {
  if (content_type === undefined) return ''
  const semi = content_type.indexOf(';')
  return (semi === -1 ? content_type : content_type.slice(0, semi)).trim().toLowerCase()
}

/** A `Content-Encoding` the decoding readers refuse (any but `identity`), or undefined; no allocation without one. */
function content_encoding(headers: IncomingHttpHeaders): string | undefined {
  const enc = headers['content-encoding']
  if (enc === undefined || enc === '' || enc.trim().toLowerCase() === 'identity') return undefined
  return enc
}

/**
 * One request's body. The buffered readers (`bytes`, `form`, a buffered `multipart`) and the streamed ones (`stream`, a
 * streamed `multipart`) exclude each other: whichever comes second throws `FW_ERR_BODY_CONSUMED`.
 */
export class RequestBody {
  /** The route's byte limit (also counted on a stream). */
  readonly limit: number
  readonly #headers: IncomingHttpHeaders
  // The options object is the route's, shared by its requests: read when a form or multipart reader asks.
  readonly #options: RequestBodyOptions
  #buffer: Buffer | undefined
  #stream: Readable | undefined
  /** The reader that took the body (`json` for `req.json()`), and whether it took it as a stream. */
  #taken_by: string | undefined = undefined
  #streamed = false
  #cleanups: Array<() => Promise<unknown>> | undefined = undefined
  #response: ResponseEnd | undefined = undefined

  constructor(body: Buffer | Readable, headers: IncomingHttpHeaders, options: RequestBodyOptions) {
    if (Buffer.isBuffer(body)) this.#buffer = body
    else this.#stream = body
    this.#headers = headers
    this.limit = options.limit
    this.#options = options
  }

  get #limits(): ResolvedFormLimits {
    return this.#options.form_limits ?? DEFAULT_FORM_LIMITS
  }

  /** The body of a request the adapter did not read: a string or Buffer a host parsed, or none. */
  static of(body: unknown, headers: IncomingHttpHeaders): RequestBody {
    if (body instanceof RequestBody) return body
    const buf = Buffer.isBuffer(body) ? body : typeof body === 'string' ? Buffer.from(body) : EMPTY
    return new RequestBody(buf, headers, { limit: Number.MAX_SAFE_INTEGER })
  }

  /** Whether the body is still an unread stream (the route streams its bodies). */
  get streamed(): boolean {
    return this.#stream !== undefined
  }

  /**
   * Whether the body is a stream the handler did not read to its end (a refusal, the streamed 413, a multipart loop
   * left early): its bytes still hold the connection, so the answer must close it.
   */
  get unread(): boolean {
    return this.#stream !== undefined && !this.#stream.readableEnded
  }

  /**
   * The whole body. `bytes` gives it as sent; the readers that decode it (`body`, `json`, `form`, `multipart`) refuse one
   * with a `Content-Encoding` (415).
   */
  bytes(reader = 'bytes'): Buffer {
    if (this.#streamed) throw ERR_BODY_CONSUMED(reader, `req.${this.#taken_by}() already read it as a stream`)
    if (this.#buffer === undefined) {
      throw ERR_BODY_CONSUMED(
        reader,
        'this route streams its body (stream_body): read it with req.stream() or req.multipart()',
      )
    }
    if (reader !== 'bytes') this.#check_decodable(reader)
    this.#taken_by ??= reader
    return this.#buffer
  }

  /** Throws `FW_ERR_BODY_WRONG_TYPE` (415) when the body has a `Content-Encoding` that `reader` cannot decode. */
  #check_decodable(reader: string): void {
    const enc = content_encoding(this.#headers)
    if (enc !== undefined) throw encoded_body(reader, enc)
  }

  /** The body as a stream, counted against the route's limit; once only, and not after a buffered reader. */
  stream(reader = 'stream'): Readable {
    if (this.#taken_by !== undefined) throw ERR_BODY_CONSUMED(reader, `req.${this.#taken_by}() already read it`)
    this.#taken_by = reader
    this.#streamed = true
    return this.#stream === undefined ? Readable.from([this.#buffer!]) : limited(this.#stream, this.limit)
  }

  /** An `application/x-www-form-urlencoded` body; another content type throws `FW_ERR_BODY_WRONG_TYPE` (415). */
  form(limits?: FormLimits): FormFields {
    const type = media_type(this.#headers['content-type'])
    if (type !== 'application/x-www-form-urlencoded')
      throw ERR_BODY_WRONG_TYPE('form', 'application/x-www-form-urlencoded', type)
    return parse_form(this.bytes('form').toString('utf8'), resolve_form_limits(limits, this.#limits).fields)
  }

  /** A `multipart/form-data` body; another content type throws `FW_ERR_BODY_WRONG_TYPE` (415). */
  multipart(limits?: FormLimits): Multipart {
    const type = media_type(this.#headers['content-type'])
    if (type !== 'multipart/form-data') throw ERR_BODY_WRONG_TYPE('multipart', 'multipart/form-data', type)
    this.#check_decodable('multipart')
    const parser = this.#options.multipart_parser
    if (parser === undefined) throw ERR_BODY_CONSUMED('multipart', 'the host parsed this body before fw')
    const resolved = resolve_form_limits(limits, this.#limits)
    const source =
      this.#stream === undefined
        ? (): Readable => Readable.from([this.bytes('multipart')])
        : (): Readable => this.stream('multipart')
    return new Multipart(parser, source, this.#headers, resolved, (fn) => this.after_response(fn))
  }

  /** Tells the body where its response ends; the adapter calls it before the handler runs. */
  bind_response(end: ResponseEnd): void {
    this.#response = end
  }

  /** Runs `fn` once the response is over (sent, or the client gone); without a bound response, at `finish()`. */
  after_response(fn: () => Promise<unknown>): void {
    const cleanups = (this.#cleanups ??= [])
    if (this.#response === undefined) return void cleanups.push(fn)
    if (cleanups.push(fn) !== 1) return
    // A client gone before the handler asked (its 'close' already emitted) would never announce the end.
    if (this.#response.closed === true) setImmediate(() => void this.finish())
    else this.#response.once('close', () => void this.finish())
  }

  /** Runs the work waiting for the response's end; failures are ignored (a temporary file already gone). */
  async finish(): Promise<void> {
    const cleanups = this.#cleanups ?? []
    this.#cleanups = undefined
    for (const fn of cleanups) await fn().catch(() => undefined)
  }
}
