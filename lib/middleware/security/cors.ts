// CORS: an exact allow-list of origins, preflight answers, and `Vary: Origin` on every response.
import type { CtxMiddleware } from '../../compose.js'
import { httpCode } from '../../errors.js'
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'
import { ERR_CORS_BAD_ORIGIN, ERR_CORS_WILDCARD_CREDENTIALS, ERR_SECURITY_BAD_OPTION } from './errors.js'
import { check_bool, check_int, check_tokens } from './options.js'

export const CODE_CORS_FORBIDDEN = httpCode('cors_forbidden')

/** Options of `cors`. */
export interface CorsOptions {
  /** Allowed origins as exact strings (`https://app.example.com`); `["*"]` allows any origin without credentials; `"null"` only when listed. */
  origins: readonly string[]
  /** Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth); never with `*` (default false). */
  allow_credentials?: boolean
  /** Methods a preflight may ask for (default GET POST PUT PATCH DELETE OPTIONS). */
  methods?: readonly string[]
  /** Request headers a preflight may ask for (default Content-Type Authorization); compared case-insensitively. */
  headers?: readonly string[]
  /** Response headers the browser lets scripts read (`Access-Control-Expose-Headers`; default none). */
  expose_headers?: readonly string[]
  /** How long, in seconds, a browser may cache a preflight answer (default 600). */
  max_age?: number
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const HEADERS = ['Content-Type', 'Authorization']

/** Checks the allow-list; true when it is the wildcard. */
function check_origins(origins: unknown, credentials: boolean): boolean {
  if (!Array.isArray(origins) || origins.length === 0) {
    throw ERR_SECURITY_BAD_OPTION('cors', 'origins', 'a non-empty list of origins', origins)
  }
  for (const o of origins as unknown[]) {
    if (o === '*' ? origins.length !== 1 : !is_exact_origin(o)) throw ERR_CORS_BAD_ORIGIN(o)
  }
  const any = origins[0] === '*'
  if (any && credentials) throw ERR_CORS_WILDCARD_CREDENTIALS()
  return any
}

/** `scheme://host[:port]` exactly as a browser serialises it (so a match is a plain string comparison), or `null`. */
function is_exact_origin(o: unknown): boolean {
  if (o === 'null') return true
  // URL accepts `*` in a host; a browser never sends one, so such an entry is a pattern that would never match.
  if (typeof o !== 'string' || o.includes('*')) return false
  try {
    const url = new URL(o)
    return url.origin !== 'null' && url.origin === o
  } catch {
    return false
  }
}

/** Adds `Origin` to `Vary` without dropping what is there. */
function vary_origin(res: Response): void {
  const v = res.get_header('vary')
  if (v === undefined) res.header('Vary', 'Origin')
  else if (!/(^|,)\s*(origin|\*)\s*(,|$)/i.test(v)) res.header('Vary', `${v}, Origin`)
}

/** Why a preflight from an allowed origin is refused, if it is: a method or a request header that is not allowed. */
function preflight_refusal(req: Request, methods: ReadonlySet<string>, headers: ReadonlySet<string>): string | undefined {
  if (!methods.has(req.header('access-control-request-method'))) return 'CORS method not allowed'
  for (const h of req.header('access-control-request-headers').split(',')) {
    const name = h.trim().toLowerCase()
    if (name !== '' && !headers.has(name)) return 'CORS header not allowed'
  }
  return undefined
}

/**
 * CORS middleware. Allowed origins get `Access-Control-Allow-Origin` (set before the rest of the chain, so error answers
 * carry it too); a refused origin's simple request passes without CORS headers (the browser blocks it); a preflight
 * (OPTIONS with `Access-Control-Request-Method`) is answered here: 204 when allowed, 403 `cors_forbidden` when not.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.cors({ origins: ['https://app.example.com'], allow_credentials: true })))
 */
export function cors({
  origins, allow_credentials = false, methods = METHODS, headers = HEADERS, expose_headers = [], max_age = 600,
}: CorsOptions): CtxMiddleware {
  const credentials = check_bool('cors', 'allow_credentials', allow_credentials)
  const any = check_origins(origins, credentials)
  const allowed = new Set(origins)
  const method_set = new Set(check_tokens('cors', 'methods', methods).map((m) => m.toUpperCase()))
  const header_set = new Set(check_tokens('cors', 'headers', headers).map((h) => h.toLowerCase()))
  const expose = check_tokens('cors', 'expose_headers', expose_headers).join(', ')
  const preflight_headers: Array<[string, string]> = [
    ['Access-Control-Allow-Methods', [...method_set].join(', ')],
    ['Access-Control-Allow-Headers', headers.join(', ')],
    ['Access-Control-Max-Age', String(check_int('cors', 'max_age', max_age, 0))],
  ]
  const allow = (res: Response, origin: string): void => {
    res.header('Access-Control-Allow-Origin', any ? '*' : origin)
    if (credentials) res.header('Access-Control-Allow-Credentials', 'true')
  }

  return function cors({ req, res }, next) {
    vary_origin(res)
    const origin = req.raw.headers.origin
    if (origin === undefined) return next()
    const ok = any || allowed.has(origin)
    if (req.method() === 'OPTIONS' && req.raw.headers['access-control-request-method'] !== undefined) {
      const why = ok ? preflight_refusal(req, method_set, header_set) : 'CORS origin not allowed'
      if (why !== undefined) return void res.error(403, CODE_CORS_FORBIDDEN, why)
      allow(res, origin)
      for (const [name, value] of preflight_headers) res.header(name, value)
      return void res.status(204).send()
    }
    if (ok) {
      allow(res, origin)
      if (expose !== '') res.header('Access-Control-Expose-Headers', expose)
    }
    return next()
  }
}
