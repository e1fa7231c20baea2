// Response compression: br, gzip or deflate by the client's Accept-Encoding (q-values), with node:zlib.
import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createDeflate,
  createGzip,
  deflateSync,
  gzipSync,
} from 'node:zlib'
import type { Transform } from 'node:stream'
import type NegotiatorClass from 'negotiator'
import { with_route_options, type Middleware } from '../../compose.js'
import { lazy } from '../../lazy.js'
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'
import { encoded_body } from '../../stream/index.js'
import { option_checker } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from '../security/errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'compression')
/** `negotiator`, loaded by the first Accept-Encoding a `compression()` weighs rather than by `import 'fw'`. */
const Negotiator = lazy<typeof NegotiatorClass>('negotiator')

/** An encoding `compression` can write. */
export type Encoding = 'br' | 'gzip' | 'deflate'

/** Options of `compression`. */
export interface CompressionOptions {
  /** Bodies smaller than this many bytes are sent as they are (default 1024). */
  threshold?: number
  /** Encodings offered, in the server's order of preference on a tie of q-values (default br, gzip, deflate). */
  encodings?: Encoding[]
  /** Brotli quality 0-11 (default 4: near gzip's speed, smaller output); gzip and deflate use zlib's level 6. */
  brotli_quality?: number
}

/**
 * Types worth compressing: text, JSON (newline-delimited too), JavaScript, XML and SVG, past any leading whitespace.
 * Images, video, archives are compressed already.
 */
const COMPRESSIBLE =
  /^[\t ]*(?:text\/|application\/(?:json|javascript|ecmascript|xml|x-www-form-urlencoded|(?:x-)?ndjson|[\w.-]+\+(?:json|xml))|image\/svg\+xml)/i

const ENCODINGS: readonly Encoding[] = ['br', 'gzip', 'deflate']

/**
 * Compresses buffered answers (text, JSON, sent strings and buffers) when the client accepts br, gzip or deflate, the
 * body reaches `threshold`, its type is compressible, it has no `Content-Encoding` yet and `Cache-Control` has no
 * `no-transform`. Every answer of a compressible type gets `Vary: Accept-Encoding` (a 304 too, and a 304 of no stated
 * type). A compressed body no smaller than the original is sent as it was. A strong `ETag` becomes weak whenever the
 * client negotiated an encoding for a compressible answer, its 304 included, so the 200 and the 304 carry the same tag;
 * a partial answer (206) is never compressed and keeps its strong tag.
 * Streamed answers (`res.stream()` of a compressible type, and server-sent events) are compressed as they go, flushed
 * after every chunk or event so nothing waits in the compressor; their size is unknown, so the threshold does not
 * apply. Files are streamed by the adapter and pass through. Place it before `http_cache`, so a cached entry is served
 * compressed when asked; a route where `http_cache` runs first fails at startup with `FW_ERR_APP_CACHE_ORDER`.
 * @example
 * app.use(compression({ threshold: 1024 }))
 */
export function compression({
  threshold = 1024,
  encodings = [...ENCODINGS],
  brotli_quality = 4,
}: CompressionOptions = {}): Middleware {
  check.int('threshold', threshold, 0)
  check.int('brotli_quality', brotli_quality, 0, 11)
  for (const e of encodings) check.one_of('encodings', e, ENCODINGS)
  const offered = [...encodings, 'identity']
  const choose = negotiator(offered)
  // The same zlib options as @fastify/compress's defaults: a size hint makes brotli slower on 20 KiB, not smaller.
  const br_options = { params: { [constants.BROTLI_PARAM_QUALITY]: brotli_quality } }
  const encode: Record<Encoding, (b: Buffer) => Buffer> = {
    br: (b) => brotliCompressSync(b, br_options),
    gzip: (b) => gzipSync(b),
    deflate: (b) => deflateSync(b),
  }
  // A streamed answer is flushed after every write: an event or chunk reaches the client when it is produced.
  const encoder: Record<Encoding, () => Transform> = {
    br: () => createBrotliCompress({ ...br_options, flush: constants.BROTLI_OPERATION_FLUSH }),
    gzip: () => createGzip({ flush: constants.Z_SYNC_FLUSH }),
    deflate: () => createDeflate({ flush: constants.Z_SYNC_FLUSH }),
  }
  const compressible_type = type_test()
  /** What the middleware does once the rest of the chain has answered. */
  const after = (req: Request, res: Response): void => {
    const type = res.get_header('content-type')
    const compressible = compressible_type(type)
    // A 304 gets Vary unless its type says the 200 it stands for was never compressed: that 200 had no Vary, and a 304
    // must not list one its 200 did not (RFC 9110 15.4.5; caches copy a 304's headers onto the stored answer).
    if (!compressible && (res.status_code !== 304 || type !== undefined)) return
    res.header('Vary', 'Accept-Encoding')
    if (!compressible || !transformable(res)) return
    const chosen = choose(req.header('accept-encoding', 'identity'))
    if (chosen === undefined) return
    // The tag follows the negotiation, not the body: a 304 has no body to tell whether its 200 was compressed, and both
    // must carry the same tag (a body under the threshold gets a weak tag too, which is never wrong). A partial answer
    // keeps its strong tag: it is a part of the identity representation, never compressed, and If-Range compares
    // strongly.
    const etag = res.get_header('etag')
    if (etag !== undefined && etag.startsWith('"') && !partial(res)) res.header('ETag', `W/${etag}`)
    if (!compressible_body(res)) return
    const streamed = res.streamed
    const body =
      streamed !== undefined
        ? undefined
        : typeof res.payload === 'string'
          ? Buffer.from(res.payload)
          : (res.payload as Buffer)
    if (body !== undefined && body.length < threshold) return
    if (body === undefined) {
      res.replace_stream(encoded_body(streamed!, encoder[chosen]))
      res.remove_header('content-length')
      return void res.header('Content-Encoding', chosen)
    }
    const packed = encode[chosen](body)
    if (packed.length >= body.length) return
    res.header('Content-Encoding', chosen)
    res.replace_payload(packed)
  }
  // Not an async function: one `then` is the only promise it adds to a request (an async function and its await made
  // three, each paying the async hooks that carry the log context).
  const mw: Middleware = function compression(req, res, next) {
    return next().then(() => after(req, res))
  }
  return with_route_options(mw, { encodes: 'compression' })
}

/**
 * Whether a Content-Type is worth compressing; the answer for the last type seen is kept, as an app answers with a
 * handful of types.
 */
function type_test(): (type: string | undefined) => boolean {
  let last: string | undefined
  let last_answer = false
  return (type = '') => {
    if (type !== last) {
      last = type
      last_answer = COMPRESSIBLE.test(type)
    }
    return last_answer
  }
}

/** The encoding to use for an Accept-Encoding value, or undefined for none (identity, garbage, nothing acceptable). */
function negotiator(offered: readonly string[]): (accept: string) => Encoding | undefined {
  // Clients send a handful of distinct Accept-Encoding values: each is negotiated once (the map is bounded all the
  // same).
  const chosen_for = new Map<string, Encoding | undefined>()
  return (accept) => {
    if (chosen_for.has(accept)) return chosen_for.get(accept)
    // Negotiator reads q-values, `*` and `identity;q=0`; garbage yields no match, and the body goes as it is. `x-gzip`
    // is gzip (RFC 9110 8.4.1.3), answered as `gzip`.
    const header = accept.replace(X_GZIP, '$1gzip')
    const first = (new (Negotiator())({ headers: { 'accept-encoding': header } }) as Preferring).encodings(offered, {
      preferred: offered,
    })[0]
    const chosen = first === undefined || first === 'identity' ? undefined : (first as Encoding)
    if (chosen_for.size >= 256) chosen_for.clear()
    chosen_for.set(accept, chosen)
    return chosen
  }
}

/** The coding `x-gzip` in an Accept-Encoding list (case-insensitive, as codings are). */
const X_GZIP = /(^|[\s,])x-gzip(?=\s*(?:[;,]|$))/gi

/** Negotiator 1.x takes the server's preference order for ties; its typings predate that argument. */
type Preferring = { encodings(available: readonly string[], options: { preferred: readonly string[] }): string[] }

/** An answer compression may change: not already encoded, and no `no-transform` in `Cache-Control`. */
function transformable(res: Response): boolean {
  if (res.get_header('content-encoding') !== undefined) return false
  return !/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(res.get_header('cache-control') ?? '')
}

/** A part of a representation: a 206, or any answer with `Content-Range`. */
function partial(res: Response): boolean {
  return res.status_code === 206 || res.get_header('content-range') !== undefined
}

/**
 * A buffered or streamed body that may be compressed: not a file, not the empty body of a 204 or 304, and not a part
 * of a representation, whose range would then describe other bytes.
 */
function compressible_body(res: Response): boolean {
  if (res.kind === 'none' || res.kind === 'file' || (res.payload === undefined && res.streamed === undefined))
    return false
  const status = res.status_code
  return status !== 204 && status !== 304 && !partial(res)
}
