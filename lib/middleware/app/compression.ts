// Response compression: br, gzip or deflate by the client's Accept-Encoding (q-values), with node:zlib.
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib'
import Negotiator from 'negotiator'
import type { Middleware } from '../../compose.js'
import type { Response } from '../../response.js'
import { check } from '../security/options.js'
import { add_vary } from './vary.js'

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

/** Types worth compressing: text, JSON, JavaScript, XML and SVG. Images, video, archives are compressed already. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|ecmascript|xml|x-www-form-urlencoded|[\w.-]+\+(?:json|xml))|image\/svg\+xml)/i

const ENCODINGS: readonly Encoding[] = ['br', 'gzip', 'deflate']

/**
 * Compresses buffered answers (text, JSON, sent strings and buffers) when the client accepts br, gzip or deflate, the body
 * reaches `threshold`, its type is compressible, it has no `Content-Encoding` yet and `Cache-Control` has no `no-transform`.
 * Every answer of a compressible type gets `Vary: Accept-Encoding` (a 304 too). A compressed body no smaller than the
 * original is sent as it was. A strong `ETag` becomes weak on a compressed answer (the bytes differ). Files are streamed
 * by the adapter and pass through. Place it before `http_cache`, so a cached entry is served compressed when asked.
 * @example
 * app.use(compression({ threshold: 1024 }))
 */
export function compression({ threshold = 1024, encodings = [...ENCODINGS], brotli_quality = 4 }: CompressionOptions = {}): Middleware {
  check.int('compression', 'threshold', threshold, 0)
  check.int('compression', 'brotli_quality', brotli_quality, 0, 11)
  for (const e of encodings) check.one_of('compression', 'encodings', e, ENCODINGS)
  const offered = [...encodings, 'identity']
  const encode: Record<Encoding, (b: Buffer) => Buffer> = {
    br: (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: brotli_quality, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
    gzip: (b) => gzipSync(b),
    deflate: (b) => deflateSync(b),
  }
  return async function compression(req, res, next) {
    await next()
    if (!COMPRESSIBLE.test(res.get_header('content-type') ?? '') && res.status_code !== 304) return
    add_vary(res, 'Accept-Encoding')
    if (!compressible_body(res)) return
    const body = typeof res.payload === 'string' ? Buffer.from(res.payload) : (res.payload as Buffer)
    if (body.length < threshold) return
    // Negotiator reads q-values, `*` and `identity;q=0`; garbage yields no match, and the body goes as it is.
    const chosen = (new Negotiator({ headers: { 'accept-encoding': req.header('accept-encoding', 'identity') } }) as Preferring).encodings(offered, { preferred: offered })[0]
    if (chosen === undefined || chosen === 'identity') return
    const packed = encode[chosen as Encoding](body)
    if (packed.length >= body.length) return
    res.header('Content-Encoding', chosen)
    const etag = res.get_header('etag')
    if (etag !== undefined && etag.startsWith('"')) res.header('ETag', `W/${etag}`)
    res.payload = packed
  }
}

/** Negotiator 1.x takes the server's preference order for ties; its typings predate that argument. */
type Preferring = { encodings(available: readonly string[], options: { preferred: readonly string[] }): string[] }

/** A buffered body that may be compressed: not a file, not already encoded, and no `no-transform`. */
function compressible_body(res: Response): boolean {
  if (res.kind === 'none' || res.kind === 'file' || res.payload === undefined) return false
  if (res.status_code === 204 || res.status_code === 304 || res.get_header('content-encoding') !== undefined) return false
  return !/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(res.get_header('cache-control') ?? '')
}
