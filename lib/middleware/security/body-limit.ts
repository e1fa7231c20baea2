// Body limit: the largest request body a route accepts, enforced by the adapter before the body is read.
import { context_middleware, with_route_options, type CtxMiddleware } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { option_checker } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'body_limit')

export const CODE_PAYLOAD_TOO_LARGE = httpCode('payload_too_large')

/** Options of `body_limit`. */
export interface BodyLimitOptions {
  /** Largest request body in bytes (default 1 MiB). */
  max_bytes?: number
}

/**
 * Limits request bodies on the routes it covers. The App gives each route the smallest limit among its middleware, and
 * the adapter answers 413 `payload_too_large` as soon as a declared `Content-Length` or the bytes received so far
 * (chunked bodies) exceed it, without reading the rest. The middleware itself also refuses a `Content-Length` over the
 * limit, for requests whose body the adapter does not parse.
 * @example
 * app.use('/upload', adapt_ctx(fw.middleware.security.body_limit({ max_bytes: 10 * 1024 * 1024 })))
 */
export function body_limit({ max_bytes = 1024 * 1024 }: BodyLimitOptions = {}): CtxMiddleware {
  const max = check.int('max_bytes', max_bytes, 0)
  const mw: CtxMiddleware = function body_limit({ req, res }, next) {
    const length = req.raw.headers['content-length']
    if (length !== undefined && Number(length) > max) {
      return void res.error(413, CODE_PAYLOAD_TOO_LARGE, 'Request body is too large')
    }
    return next()
  }
  return context_middleware(
    with_route_options(mw, { body_limit: max, doc: { responses: { 413: [CODE_PAYLOAD_TOO_LARGE] } } }),
    check.owner,
  )
}
