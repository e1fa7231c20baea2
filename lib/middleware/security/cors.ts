// CORS: an allow-list of origins (exact, one-label wildcard, RegExp or function), preflight answers, and a correct
// `Vary`.
import type * as Tldts from 'tldts'
import { CORS_KIND, context_middleware, with_route_options, type Ctx, type CtxMiddleware } from '../../compose.js'
import { httpCode } from '../../errors.js'
import type { Request } from '../../request.js'
import { HTTP_TOKEN, type Response } from '../../response.js'
import { lazy } from '../../lazy.js'
import { option_checker } from '../../options.js'
import { is_exact_origin } from '../../origin.js'
import { ERR_CORS_BAD_ORIGIN, ERR_CORS_WILDCARD_CREDENTIALS, ERR_SECURITY_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'cors')
/**
 * The Public Suffix List, loaded by the first wildcard origin: its tables took about 4 MB of every App's heap at
 * start-up, used or not: 18.3 MB of heap in use after `import 'fw'` on Node 24, 14.5 MB without them.
 */
const tldts = lazy<typeof Tldts>('tldts')

export const CODE_CORS_FORBIDDEN = httpCode('cors_forbidden')

/** Options of `cors`. */
export interface CorsOptions {
  /**
   * Allowed origins: exact strings (`https://app.example.com`), one-label wildcards (`https://*.example.com` matches
   * `https://a.example.com`, never `https://a.b.example.com` nor `https://example.com.evil.net`), anchored RegExps
   * (`/^https:\/\/(a|b)\.example\.com$/`), or a function deciding per origin. `["*"]` allows any origin without
   * credentials; `"null"` only when listed (or the function allows it), and never with credentials (any sandboxed page
   * sends it; a function is then not asked about it). Origins are matched as browsers send them (lowercase scheme and
   * host).
   */
  origins: ReadonlyArray<string | RegExp> | ((origin: string, ctx: Ctx) => boolean)
  /** Answer a preflight's `Access-Control-Request-Headers` with the same list instead of `headers` (default false). */
  reflect_headers?: boolean
  /** Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth); never with `*` (default false). */
  allow_credentials?: boolean
  /**
   * Methods a preflight may ask for (default GET POST PUT PATCH DELETE OPTIONS). A preflight for GET, HEAD or POST
   * passes the method check whatever this says, as browsers let those through (Fetch's CORS-safelisted methods).
   */
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

/** A DNS label: what one `*` of a wildcard origin stands for. */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'

/**
 * `https://*.example.com` as an anchored RegExp matching one label, or undefined when `o` is not such a pattern. A
 * wildcard whose fixed part is a public suffix (`*.com`, `*.co.uk`, `*.github.io`) is refused: anyone can register a
 * name under it. The Public Suffix List decides, private section included; a name it does not know (`*.internal`)
 * counts as a suffix under its default rule.
 */
function wildcard(o: string): RegExp | undefined {
  const m = /^(https?):\/\/\*\.(.+)$/.exec(o)
  if (m === null || !is_exact_origin(`${m[1]}://${m[2]}`)) return undefined
  const host = new URL(`${m[1]}://${m[2]}`).hostname
  const suffix = tldts().getPublicSuffix(host, { allowPrivateDomains: true })
  if (suffix === null || suffix === host) {
    check.fail('origins', 'wildcards over a registrable domain, not a public suffix', o)
  }
  return new RegExp(`^${m[1]}://${LABEL}\\.${m[2]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
}

/** The matcher of an allow-list; `any` when it is the wildcard. */
function matcher(origins: unknown, credentials: boolean): ((origin: string, ctx: Ctx) => boolean) | 'any' {
  if (typeof origins === 'function') {
    const allows = origins as (origin: string, ctx: Ctx) => boolean
    // A function cannot be checked here as a list is (below): `null` is refused before it is asked, with credentials.
    return credentials ? (origin, ctx) => origin !== 'null' && allows(origin, ctx) : allows
  }
  if (!Array.isArray(origins) || origins.length === 0) {
    return check.fail('origins', 'a non-empty list of origins, or a function', origins)
  }
  if (origins[0] === '*' && origins.length === 1) {
    if (credentials) throw ERR_CORS_WILDCARD_CREDENTIALS()
    return 'any'
  }
  const exact = new Set<string>()
  const patterns: RegExp[] = []
  for (const o of origins as unknown[]) {
    const pattern = typeof o === 'string' ? wildcard(o) : undefined
    // An unanchored RegExp would let `https://app.example.com.evil.net` through. The whole source is anchored again, so
    // a top-level alternation (`^https://a\.com|https://b\.com$`) cannot leave one side open, and without the stateful
    // `g`/`y` flags, so `test` does not resume from a previous match's `lastIndex`.
    let p: RegExp | undefined
    if (o instanceof RegExp && o.source.startsWith('^') && o.source.endsWith('$'))
      patterns.push((p = new RegExp(`^(?:${o.source})$`, o.flags.replace(/[gy]/g, ''))))
    else if (typeof o === 'string' && is_exact_origin(o)) exact.add(o)
    else if (pattern !== undefined) patterns.push(pattern)
    else throw ERR_CORS_BAD_ORIGIN(o instanceof RegExp ? String(o) : o)
    // `null` is the origin of every sandboxed iframe and data: page on any site: with credentials it would hand every
    // site the users' cookies, as `*` would.
    if (credentials && (o === 'null' || p?.test('null') === true)) {
      check.fail(
        'origins',
        "real origins with allow_credentials: 'null' is the origin of any sandboxed page",
        String(o),
      )
    }
  }
  return (origin) => exact.has(origin) || patterns.some((p) => p.test(origin))
}

/**
 * The CORS-safelisted methods (Fetch standard), as browsers send them (normalised to upper case): the CORS-preflight
 * check lets them through whatever `Access-Control-Allow-Methods` says. Such a preflight only happens for another
 * reason (a custom header), and the same request without it needs no preflight, so refusing the method protects nothing.
 */
const SAFELISTED_METHODS = new Set(['GET', 'HEAD', 'POST'])

/**
 * Why a preflight from an allowed origin is refused, if it is: a method that is neither allowed nor CORS-safelisted, or
 * a request header that is not allowed.
 */
function preflight_refusal(
  req: Request,
  methods: ReadonlySet<string>,
  headers: ReadonlySet<string> | undefined,
): string | undefined {
  const method = req.header('access-control-request-method')
  if (!methods.has(method) && !SAFELISTED_METHODS.has(method)) return 'CORS method not allowed'
  for (const h of req.header('access-control-request-headers').split(',')) {
    const name = h.trim().toLowerCase()
    // Reflecting still refuses what is not a header name, so nothing odd is echoed into the answer.
    if (name !== '' && (headers === undefined ? !HTTP_TOKEN.test(name) : !headers.has(name)))
      return 'CORS header not allowed'
  }
  return undefined
}

/**
 * CORS middleware. Allowed origins get `Access-Control-Allow-Origin` (set before the rest of the chain, so error
 * answers carry it too); a refused origin's simple request passes without CORS headers (the browser blocks it); a
 * preflight (OPTIONS with `Access-Control-Request-Method`) is answered here: 204 when allowed, 403 `cors_forbidden`
 * when not.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.cors({ origins: ['https://app.example.com'], allow_credentials: true })))
 */
export function cors({
  origins,
  allow_credentials = false,
  methods = METHODS,
  headers = HEADERS,
  expose_headers = [],
  max_age = 600,
  reflect_headers = false,
}: CorsOptions): CtxMiddleware {
  const credentials = check.bool('allow_credentials', allow_credentials)
  const match = matcher(origins, credentials)
  const any = match === 'any'
  const reflect = check.bool('reflect_headers', reflect_headers)
  // `*` is an HTTP token, but here it would only match a header or method literally named `*`: every preflight asking
  // for a real one got 403 while the answer advertised `Access-Control-Allow-Headers: *`.
  for (const [option, list] of [
    ['methods', methods],
    ['headers', headers],
  ] as const) {
    if (Array.isArray(list) && list.includes('*')) {
      check.fail(option, 'names, not the wildcard (use reflect_headers for any header)', '*')
    }
  }
  const method_set = new Set(check.tokens('methods', methods).map((m) => m.toUpperCase()))
  const header_set = new Set(check.tokens('headers', headers).map((h) => h.toLowerCase()))
  const expose = check.tokens('expose_headers', expose_headers).join(', ')
  const preflight_headers: Array<[string, string]> = [
    ['Access-Control-Allow-Methods', [...method_set].join(', ')],
    ['Access-Control-Max-Age', String(check.int('max_age', max_age, 0))],
  ]
  const allowed_headers = headers.join(', ')
  const allow = (res: Response, origin: string): void => {
    res.header('Access-Control-Allow-Origin', any ? '*' : origin)
    if (credentials) res.header('Access-Control-Allow-Credentials', 'true')
  }

  const mw: CtxMiddleware = function cors(ctx, next) {
    const { req, res } = ctx
    res.header('Vary', 'Origin')
    const origin = req.raw.headers.origin
    if (origin === undefined) return next()
    const ok = any || match(origin, ctx)
    if (req.method() === 'OPTIONS' && req.raw.headers['access-control-request-method'] !== undefined) {
      if (reflect) res.header('Vary', 'Access-Control-Request-Headers')
      const why = ok ? preflight_refusal(req, method_set, reflect ? undefined : header_set) : 'CORS origin not allowed'
      if (why !== undefined) return void res.error(403, CODE_CORS_FORBIDDEN, why)
      allow(res, origin)
      for (const [name, value] of preflight_headers) res.header(name, value)
      const asked = req.header('access-control-request-headers')
      if (!reflect || asked !== '') res.header('Access-Control-Allow-Headers', reflect ? asked : allowed_headers)
      return void res.status(204).send()
    }
    if (ok) {
      allow(res, origin)
      if (expose !== '') res.header('Access-Control-Expose-Headers', expose)
    }
    return next()
  }
  // The kind tells an adapter that the routes this runs on have fw's CORS (a host's CORS plugin then leaves them alone).
  return context_middleware(with_route_options(mw, { kind: CORS_KIND }), check.owner)
}
