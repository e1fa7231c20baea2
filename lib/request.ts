// The Request facade: the spec's accessors over the host's request, with lazily parsed body, JSON and cookies.
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { parseCookie } from 'cookie'
import { RequestBody } from './body/request-body.js'
import { cookie_value } from './cookie.js'
import type { FormFields } from './body/form.js'
import type { FormLimits } from './body/limits.js'
import type { Multipart } from './body/multipart.js'
import { header_fallback, is_json_media_type } from './http-token.js'
import { Json } from './json.js'
import { request_context, type StoredContext } from './log/context.js'
import { bound_logger, type Logger } from './log/logger.js'
import { canonical_segments } from './path.js'
import type { Response } from './response.js'
import { KeyMap, type Key, type Services } from './state.js'

/** The part of a host request (a Fastify request satisfies it) that the facade reads. */
export interface HostRequest {
  readonly id: string
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly params: unknown
  readonly query: unknown
  readonly body: unknown
  readonly ip: string
  /** `http` or `https`: the socket's, or `X-Forwarded-Proto` from a trusted proxy (Fastify's `trustProxy`). */
  readonly protocol?: string
}

/** How the App resolves the client address; see `trust_proxy`. */
export type IpResolver = (req: HostRequest) => string

const default_ip: IpResolver = (req) => req.ip

const COOKIE_PARSING = { decode: cookie_value }

/** The context that context middleware (`fw.middleware.auth`, `fw.middleware.security`) receives. */
export interface Ctx {
  readonly req: Request
  readonly res: Response
  readonly services: Services
}

/** The validated values a route's schema gives its handler, by part (`req.valid('body')`). */
export type Valid = { body?: unknown; query?: unknown; params?: unknown; headers?: unknown }

/**
 * What a handler and middleware read of the request. `P` names the route's path parameters and `V` its validated
 * values, both inferred by `app.get(path, { ...schemas }, handler)`.
 * @example
 * app.get('/users/{id}', (req, res) => res.json('id', req.param('id'), 'page', req.query_value('page', '1')))
 */
export class Request<P extends string = string, V extends Valid = Valid> {
  /** The host request (a Fastify request), for what the facade does not cover. */
  readonly raw: HostRequest
  /** The app's service registry. */
  readonly services: Services
  #ip_resolver: IpResolver
  #body: string | undefined = undefined
  #request_body: RequestBody | undefined = undefined
  #json: Json | undefined = undefined
  #cookies: Record<string, string | undefined> | undefined = undefined
  #state: KeyMap | undefined = undefined
  #path: string | undefined = undefined
  #valid: Valid | undefined = undefined
  #segments: readonly string[] | undefined = undefined
  #ctx: Ctx | undefined = undefined
  /** The log context the request is served in (its id, itself, its App's log core), for `log`. */
  readonly #log_ctx: StoredContext | undefined
  #log: Logger | undefined = undefined

  /** `log_ctx`: the log context the App serves the request in; by default one holding its id. */
  constructor(raw: HostRequest, services: Services, ip_resolver: IpResolver = default_ip, log_ctx?: StoredContext) {
    this.raw = raw
    this.services = services
    this.#ip_resolver = ip_resolver
    this.#log_ctx = log_ctx
  }

  /**
   * A logger bound to this request, named `fw`: every line it writes carries `rid=<id>` and goes to the App's log
   * destination, wherever it is written (after an `await`, in a timer, in a callback), so two concurrent requests never
   * mix. While the current flow serves this request, a module and fields set there (`set_context`) show too.
   * @example
   * app.get('/orders/{id}', async (req, res) => {
   *   const order = await load(req.param('id'))
   *   req.log.info('loaded order {}', order.id) // 12:00:00.042 [fw] [info] loaded order 42 rid=7f3a
   *   res.json('ok', true)
   * })
   */
  get log(): Logger {
    return (this.#log ??= bound_logger('fw', this.#log_ctx ?? request_context(this.raw.id, this.raw, undefined)))
  }

  /**
   * A path parameter (`{name}` in the route; `*` for the wildcard), URL-decoded; `fallback` (default '') when absent.
   */
  param(name: P, fallback = ''): string {
    const v = (this.raw.params as Record<string, string | undefined>)[name]
    return v === undefined ? fallback : v
  }

  /** One query parameter (the first when repeated), or `fallback`. */
  query_value(name: string, fallback: string): string {
    const v = (this.raw.query as Record<string, string | string[] | undefined>)[name]
    if (v === undefined) return fallback
    return typeof v === 'string' ? v : (v[0] ?? fallback)
  }

  /** All query parameters; a repeated name has an array of values. */
  query(): Readonly<Record<string, string | string[]>> {
    return this.raw.query as Record<string, string | string[]>
  }

  /**
   * A request header, case-insensitively; repeated headers are joined with `, `. `fallback` (default '') when absent.
   * `host` reads HTTP/2's `:authority` when the request has no `host` header (RFC 9113 8.3.1: it stands for Host), so
   * fw's same-origin checks and a handler see one authority over either protocol.
   */
  header(name: string, fallback = ''): string {
    const key = name.toLowerCase()
    const headers = this.raw.headers
    // Own properties only: the headers object inherits `constructor`, `__proto__` and the like.
    let v = Object.hasOwn(headers, key) ? headers[key] : undefined
    if (v === undefined) {
      const other = header_fallback(key)
      if (other !== undefined && Object.hasOwn(headers, other)) v = headers[other]
    }
    if (v === undefined) return fallback
    return typeof v === 'string' ? v : v.join(', ')
  }

  /** The raw body as a string, decoded as UTF-8 ('' when there is none). */
  body(): string {
    return this.#text('body')
  }

  /** The body decoded once, by whichever of `body()` and `json()` asks first (`reader`, named in a refusal). */
  #text(reader: string): string {
    if (this.#body === undefined) {
      const b = this.raw.body
      this.#body = typeof b === 'string' ? b : this.#read().bytes(reader).toString('utf8')
    }
    return this.#body
  }

  /** The raw body as bytes, exactly as sent (an empty Buffer when there is none). */
  bytes(): Buffer {
    return this.#read().bytes()
  }

  /**
   * An `application/x-www-form-urlencoded` body: fields by name, a repeated name as an array, no prototype (`__proto__`
   * is a field like any other). Over `limits.fields` fields it throws 413; another content type 415.
   * @example
   * const { email = '' } = req.form()
   */
  form(limits?: FormLimits): FormFields {
    return this.#read().form(limits)
  }

  /**
   * A `multipart/form-data` body as an async iterable of parts, or `save()`d to a temporary folder removed after the
   * response. Limits come from the App's `form_limits`, overridden by `limits`.
   * @example
   * const { fields, files } = await req.multipart({ file_size: 10 * 1024 * 1024 }).save()
   */
  multipart(limits?: FormLimits): Multipart {
    return this.#read().multipart(limits)
  }

  /**
   * The body as a stream (for proxies and large uploads on `stream_body` routes), counted against the route's limit.
   * Once only; the buffered readers throw `FW_ERR_BODY_CONSUMED` after it, and it throws after them.
   */
  stream(): Readable {
    return this.#read().stream()
  }

  #read(): RequestBody {
    return (this.#request_body ??= RequestBody.of(this.raw.body, this.raw.headers))
  }

  /**
   * The body parsed as JSON; invalid JSON gives a view that is not an object, never an exception. Only a JSON media
   * type is parsed (`application/json` or `<type>/<subtype>+json`, parameters allowed): a body of another type, or
   * without a `Content-Type`, reads as invalid JSON does, so a cross-site form or `text/plain` request sent without a
   * CORS preflight never reaches a handler as an object.
   */
  json(): Json {
    if (this.#json === undefined) {
      // The body is read whatever its type, so the reader's refusals (an encoded body, one already streamed) stay.
      const text = this.#text('json')
      this.#json = new Json(is_json_media_type(this.raw.headers['content-type']) ? text : '')
    }
    return this.#json
  }

  /** The request path, without the query string, as sent. */
  path(): string {
    if (this.#path === undefined) {
      const url = this.raw.url
      const q = url.indexOf('?')
      this.#path = q === -1 ? url : url.slice(0, q)
    }
    return this.#path
  }

  /** The raw query string as sent, without the `?` ('' when there is none). */
  query_string(): string {
    const url = this.raw.url
    return url.length === this.path().length ? '' : url.slice(this.path().length + 1)
  }

  /** The HTTP method, uppercase. */
  method(): string {
    return this.raw.method
  }

  /** The request id: a valid incoming `x-request-id`, or a new one. */
  id(): string {
    return this.raw.id
  }

  /** The client address: the socket peer, or the forwarded client when the peer is a trusted proxy. */
  ip(): string {
    return this.#ip_resolver(this.raw)
  }

  /**
   * How the request reached the App: `https` over TLS, or when a peer trusted by `trust_proxy` says so in
   * `X-Forwarded-Proto`; `http` otherwise (a client's own `X-Forwarded-Proto` counts for nothing).
   */
  protocol(): 'http' | 'https' {
    return this.raw.protocol?.toLowerCase() === 'https' ? 'https' : 'http'
  }

  /** A cookie's value, percent-decoded, without the double quotes around a quoted one; undefined when absent. */
  cookie(name: string): string | undefined {
    if (this.#cookies === undefined) {
      const h = this.raw.headers.cookie
      this.#cookies = h ? parseCookie(h, COOKIE_PARSING) : {}
    }
    // Own names only: a cookie named `toString` or `constructor` must not find Object.prototype's function.
    return Object.hasOwn(this.#cookies, name) ? this.#cookies[name] : undefined
  }

  /** Per-request state stored by middleware under a class key, e.g. `req.state(JwtClaims)`. */
  state<T>(key: Key<T>): T | undefined {
    return this.#state?.get(key)
  }

  /** The value of `part` as the route's schema validated it (coerced, defaults applied, unknown keys dropped). */
  valid<K extends keyof V>(part: K): V[K] {
    return this.#valid?.[part as keyof Valid] as V[K]
  }

  /** @internal Records a validated part; the route's validation step calls it. */
  set_valid(part: keyof Valid, value: unknown): void {
    ;(this.#valid ??= {})[part] = value
  }

  /** @internal The canonical path segments, computed once per request for prefix middleware decided per request. */
  segments(): readonly string[] {
    return (this.#segments ??= canonical_segments(this.raw.url))
  }

  /** @internal The context shared by the request's context middleware (`adapt_ctx`), made by the first one. */
  ctx(res: Response): Ctx {
    return (this.#ctx ??= { req: this as Request, res, services: this.services })
  }

  /** Stores per-request state under a class key. */
  set_state<T>(key: Key<T>, value: T): void {
    if (this.#state === undefined) this.#state = new KeyMap()
    this.#state.set(key, value)
  }

  /**
   * @internal A copy of the per-request state as it is now, for `restore_state`: what an authenticator that refused
   * inside `any_of` or `all_of` stored (an `Identity`, its claims) must not outlive its refusal.
   */
  save_state(): KeyMap | undefined {
    return this.#state?.copy()
  }

  /** @internal Puts back the state `save_state` copied; the copy stays as it was, to be put back again. */
  restore_state(saved: KeyMap | undefined): void {
    this.#state = saved?.copy()
  }
}
