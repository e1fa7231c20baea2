// Request bodies on Fastify: one content-type parser that hands fw a RequestBody, read whole under the route's limit,
// or left as the raw stream on `stream_body` routes. Fastify calls it only for requests that carry a body.
import type { EventEmitter } from 'node:events'
import { Socket } from 'node:net'
import type { Readable } from 'node:stream'
import type * as FastifyBusboy from '@fastify/busboy'
import type { BusboyHeaders } from '@fastify/busboy'
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify'
import type { AppConfig } from '../lib/config.js'
import { lazy } from '../lib/lazy.js'
import { ERR_BODY_TOO_LARGE } from '../lib/body/errors.js'
import type { MultipartParserFactory } from '../lib/body/multipart.js'
import { declared_too_large, read_whole } from '../lib/body/read.js'
import { RequestBody, type RequestBodyOptions } from '../lib/body/request-body.js'

/** `@fastify/busboy`, loaded by the first multipart body rather than by `import 'fw'`. */
const busboy = lazy<typeof FastifyBusboy>('@fastify/busboy')

/**
 * fw's multipart parser: `@fastify/busboy` with the reader's limits, failing (`error`, answered 400 `malformed_body`)
 * on a part it would skip without a word, or keep with some of its headers dropped, rather than let the request answer
 * as if the part or the header had not been sent.
 */
export const busboy_parser: MultipartParserFactory = (headers, limits) => {
  const bb = busboy().Busboy({
    headers: headers as BusboyHeaders,
    limits: {
      fields: limits.fields,
      fieldSize: limits.field_size,
      files: limits.files,
      fileSize: limits.file_size,
      // One pair past fw's bound, so that a part passing it shows as one with more than `HEADER_PAIRS`.
      headerPairs: HEADER_PAIRS + 1,
    },
  })
  // busboy's part splitter (Dicer, its multipart type's `parser`): busboy emits no event for the parts it skips.
  ;(bb as unknown as { _parser?: { parser?: EventEmitter } })._parser?.parser?.on('part', on_part)
  return bb
}

/** The header lines (pairs) of one part fw takes; busboy drops those past its bound (2000 by default) silently. */
const HEADER_PAIRS = 2000

/**
 * Busboy skips a part, emitting nothing, when its headers have no `Content-Disposition: form-data` with a plain name,
 * and so when that header lies past its limits on a part's headers (80 KiB, `headerPairs` lines), whose rest it drops.
 * Its own `header` listener, which runs first, reads the part it keeps (a `data` listener) and only resumes the one it
 * skips. A part skipped over `fields`, `files` or `parts` was already reported by its limit event, which the reader
 * keeps. A part it keeps with more than `HEADER_PAIRS` lines lost those past its bound (a `Content-Type`): refused too.
 * One whose headers pass 80 KiB after its disposition is kept with those bytes dropped, undetected: busboy's header
 * parser clears its `maxed` flag before it emits the header.
 */
function on_part(this: EventEmitter, part: Readable): void {
  part.once('header', (header: Record<string, string[]>) => {
    if (part.listenerCount('data') === 0 || pairs(header) > HEADER_PAIRS) this.emit('error', new Error(SKIPPED_PART))
  })
}

/** The header lines busboy parsed into `header` (folded lines belong to the line they continue). */
function pairs(header: Record<string, string[]>): number {
  let n = 0
  for (const name in header) n += header[name]!.length
  return n
}

const SKIPPED_PART =
  'a part without a form-data Content-Disposition naming it, or whose headers pass 81920 bytes or 2000 lines'

/** How a route takes its bodies, built once when it is mounted: the reader's options, and whether it streams them. */
export interface BodyRoute extends RequestBodyOptions {
  readonly stream: boolean
  /** The settings of one request, on a route that decides them per request (see `CompiledRoute.body_of`). */
  readonly of_request?: (freq: FastifyRequest) => BodyRoute
}

/**
 * Fastify's `bodyLimit` for fw's `limit`. fw's parser enforces the limit; Fastify's own serves only its parsers, which
 * fw replaces, and refuses 0, the limit of a route that takes no body, at startup.
 */
export function fastify_body_limit(limit: number): number {
  return Math.max(1, limit)
}

/** The route config key of a route's `BodyRoute`. */
const FW_BODY = 'fw_body'

/** A route's body settings under the App's form limits and multipart parser. */
export function body_route(config: AppConfig, limit: number, stream: boolean): BodyRoute {
  return { limit, form_limits: config.form_limits, multipart_parser: busboy_parser, stream }
}

/** The route config entry carrying `body`, for the route's Fastify `config`. */
export function body_config(body: BodyRoute): FastifyContextConfig {
  return { [FW_BODY]: body } as FastifyContextConfig
}

/**
 * The media types the parser is registered under besides `*`: Fastify caches the parser of a registered type by its
 * header, but looks up and parses the header of an unregistered one again on every request.
 */
const COMMON_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/octet-stream',
]

/** Replaces the instance's parsers (this encapsulated context only) by fw's. */
export function use_body_parser(instance: FastifyInstance, config: AppConfig): void {
  // Requests no route matched (404, OPTIONS without a route) read under the App's limit.
  const unrouted = body_route(config, config.body_limit, false)
  const parse = (
    freq: FastifyRequest,
    payload: FastifyRequest['raw'],
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    let route = (freq.routeOptions.config as { [FW_BODY]?: BodyRoute } | undefined)?.[FW_BODY] ?? unrouted
    if (route.of_request !== undefined) route = route.of_request(freq)
    const headers = freq.headers
    // A declared length over the limit is refused before a byte is read, as Fastify's own parsers do.
    if (declared_too_large(headers['content-length'], route.limit))
      return done(ERR_BODY_TOO_LARGE(route.limit), undefined)
    if (route.stream) return done(null, new RequestBody(payload, headers, route))
    read_whole(
      payload,
      route.limit,
      (err, buf) => (err === null ? done(null, new RequestBody(buf!, headers, route)) : done(err, undefined)),
      own_chunks(freq, payload),
    )
  }
  instance.removeAllContentTypeParsers()
  instance.addContentTypeParser(COMMON_TYPES, parse)
  instance.addContentTypeParser('*', parse)
}

/**
 * Whether the chunks of `payload` are Node's own copies of the bytes an HTTP/1 connection received, made for whoever
 * reads the request (`read_whole` frees them once joined): not when a `preParsing` hook replaced the stream, nor for an
 * injected request (`inject`, light-my-request), whose chunks are the caller's buffers, nor over HTTP/2.
 */
function own_chunks(freq: FastifyRequest, payload: FastifyRequest['raw']): boolean {
  const raw = freq.raw
  return payload === raw && raw.httpVersionMajor === 1 && raw.socket instanceof Socket
}

/**
 * Whether the answer to `freq` must close its HTTP/1 connection: its body is a stream the handler left unread, whose
 * bytes would otherwise hold the next request on the connection forever (Fastify closes after a body it refused too).
 */
export function body_left_unread(freq: FastifyRequest): boolean {
  const body = freq.body
  return body instanceof RequestBody && body.unread && freq.raw.httpVersionMajor === 1
}

/** Binds a request's body to its response, so work waiting for the response's end (temporary files) runs then. */
export function bind_body(body: unknown, end: RequestBodyEnd): void {
  if (body instanceof RequestBody) body.bind_response(end)
}

type RequestBodyEnd = Parameters<RequestBody['bind_response']>[0]
