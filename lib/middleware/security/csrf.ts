// CSRF: a signed double-submit cookie, bound to the session, checked against a header or form field on unsafe methods,
// plus Sec-Fetch-Site and Origin checks.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { context_middleware, with_route_options, type CtxMiddleware } from '../../compose.js'
import { httpCode } from '../../errors.js'
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'
import { Identity, SessionRef } from '../../identity.js'
import { CsrfSigner, csrf_secrets } from './csrf-token.js'
import { check_cookie, tossed_past } from '../../cookie.js'
import { is_exact_origin, same_host } from '../../origin.js'
import { option_checker } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'csrf')

export const CODE_CSRF_FAILED = httpCode('csrf_failed')

/** Request state: the CSRF token of this request, so a page can embed it (`req.state(CsrfToken)?.value`). */
export class CsrfToken {
  constructor(readonly value: string) {}
}

/** Options of `csrf`. */
export interface CsrfOptions {
  /**
   * Cookie holding the token (default `__Host-csrf` when `secure` with path `/`, else `csrf_token`); `__Host-` needs
   * both.
   */
  cookie_name?: string
  /**
   * Signs tokens (HMAC-SHA256), at least 32 characters; a list rotates (the first signs, all verify). Default: a random
   * secret per process, so tokens do not survive a restart nor pass between instances: give one when running several.
   */
  secret?: string | readonly string[]
  /** Header a script sends the token in (default `x-csrf-token`). */
  header_name?: string
  /** Field of an `application/x-www-form-urlencoded` body a form sends the token in (default `_csrf`). */
  field_name?: string
  /** Cookie path (default `/`). */
  cookie_path?: string
  /** Adds `Secure` to the cookie; use true over HTTPS (default false). */
  secure?: boolean
  /** SameSite attribute of the cookie (default `Lax`). */
  same_site?: 'Strict' | 'Lax' | 'None'
  /**
   * Origins besides the request's own host allowed to send unsafe requests, written as browsers send `Origin`
   * (`https://admin.example.com`: lowercase, no path or trailing slash, no default port); default none.
   */
  trusted_origins?: readonly string[]
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])
const FORM = 'application/x-www-form-urlencoded'

/** Constant-time equality of two tokens (lengths are public: every token has 87 characters). */
function same_token(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The token the client submitted: the header, else the form field of a urlencoded body. */
function submitted(req: Request, header: string, field: string): string {
  const h = req.header(header)
  if (h !== '' || !req.header('content-type').toLowerCase().startsWith(FORM)) return h
  // A stream_body route's body is the handler's to read: the token must come in the header there.
  try {
    const v = req.form()[field]
    return (typeof v === 'string' ? v : v?.[0]) ?? ''
  } catch {
    return ''
  }
}

/**
 * Why a request fails the fetch-metadata and origin checks, if it does. A browser's `Sec-Fetch-Site` decides when
 * present (only `cross-site` fails): under `Referrer-Policy: no-referrer` browsers send `Origin: null` even on
 * same-origin form posts. Without it, an `Origin` must name the request's own host.
 */
function cross_site(req: Request, trusted: ReadonlySet<string>): string | undefined {
  const origin = req.raw.headers.origin
  if (origin !== undefined && trusted.has(origin)) return undefined
  const site = req.raw.headers['sec-fetch-site']
  // A sibling subdomain is `same-site`: it can plant cookies for this host, so only this origin (or the user) may post.
  if (site !== undefined)
    return site === 'cross-site' || site === 'same-site' ? 'Cross-site request refused' : undefined
  // An unparsable Origin is treated like a foreign one.
  if (origin === undefined || same_host(origin, req.header('host'))) return undefined
  return 'Origin does not match host'
}

/**
 * CSRF protection for cookie-authenticated browsers. Safe methods (GET HEAD OPTIONS TRACE) get a token cookie when they
 * have no valid one (`<random>.<HMAC>`, signed with `secret` and bound to the session id: `session` must run first;
 * readable by scripts, SameSite); every other method must carry a cookie this server signed for this session and send
 * the same token in `x-csrf-token` or the `_csrf` form field, and must not come from another site or a sibling
 * subdomain (`Sec-Fetch-Site` `cross-site` or `same-site`; without it, an `Origin` other than the Host). Failures
 * answer 403 `csrf_failed`. The token is in `req.state(CsrfToken)` for pages to embed.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.csrf({ secure: true })))
 */
export function csrf({
  secure = false,
  cookie_path = '/',
  cookie_name = secure && cookie_path === '/' ? '__Host-csrf' : 'csrf_token',
  header_name = 'x-csrf-token',
  field_name = '_csrf',
  same_site = 'Lax',
  trusted_origins = [],
  secret = randomBytes(32).toString('base64url'),
}: CsrfOptions = {}): CtxMiddleware {
  const signer = new CsrfSigner(csrf_secrets(secret))
  // Scripts read the token to send it back, so the cookie is never HttpOnly.
  const cookie = check_cookie(check, { cookie_name, cookie_path, secure, http_only: false, same_site })
  check.token('header_name', header_name)
  check.token('field_name', field_name)
  check.must(Array.isArray(trusted_origins), 'trusted_origins', 'a list of origins', trusted_origins)
  // The test cors uses for its exact origins: an entry written otherwise (no scheme, a path or trailing slash, `*`,
  // upper case, a default port) would never equal an Origin header, and would silently trust nothing.
  // `null` is an exact origin to cors, but here it would trust every opaque origin: a sandboxed iframe or a data: page
  // on any site sends it.
  for (const o of trusted_origins as unknown[]) {
    if (o === 'null') check.fail('trusted_origins', "real origins: 'null' is the origin of any sandboxed page", o)
    if (!is_exact_origin(o)) {
      check.fail(
        'trusted_origins',
        'a list of exact origins (scheme://host[:port], lowercase, no path nor default port)',
        o,
      )
    }
  }
  const attributes = { path: cookie.path, secure: cookie.secure, same_site: cookie.same_site }
  const trusted = new Set(trusted_origins)
  const issue = (res: Response, binding: string): string => {
    const token = signer.mint(binding)
    res.cookie(cookie.name, token, attributes)
    return token
  }

  // Registered before `session` on a route, the app refuses to start (FW_ERR_APP_SESSION_ORDER): the token would be
  // checked against no session, so an attacker's own token and cookie would pass inside the victim's session.
  const mw: CtxMiddleware = function csrf({ req, res }, next) {
    // Bound to the session (the session middleware runs first, see above) and to the caller: a token of another
    // session (or none), or of another user, is not this one's.
    const binding = binding_of(req)
    const cookie = signed_cookie(req, cookie_name, signer, binding)
    if (SAFE.has(req.method())) {
      req.set_state(CsrfToken, new CsrfToken(cookie ?? issue(res, binding)))
      return next()
    }
    const why = cross_site(req, trusted) ?? token_problem(cookie, submitted(req, header_name, field_name))
    if (why !== undefined) return void res.error(403, CODE_CSRF_FAILED, why)
    req.set_state(CsrfToken, new CsrfToken(cookie!))
    return next()
  }
  return context_middleware(with_route_options(mw, { binds_session: 'csrf' }), check.owner)
}

/**
 * The request's value of the token cookie this server signed for `binding`, if any. Most requests carry one value and
 * `req.cookie` gives it; when it fails, the other values of that name are tried: a cookie tossed from a sibling
 * subdomain (sent first, with its longer path) would otherwise refuse every form of the user's until it expires.
 */
function signed_cookie(req: Request, name: string, signer: CsrfSigner, binding: string): string | undefined {
  const first = req.cookie(name)
  if (first === undefined || signer.valid(first, binding)) return first
  return tossed_past(req.raw.headers.cookie, name, first, (v) => (signer.valid(v, binding) ? v : undefined))
}

/**
 * What a token is bound to: the session id (from `SessionRef`, '' without a session), and the caller's `Identity` when
 * an authenticator ran first, so a token minted for one signed-in user does not pass for another.
 */
function binding_of(req: Request): string {
  const session = req.state(SessionRef)?.id ?? ''
  const who = req.state(Identity)
  return who === undefined ? session : `${session}\n${who.kind}:${who.id}`
}

/**
 * Why the double-submitted token fails, if it does; `cookie` is undefined unless this server signed it for this
 * session.
 */
function token_problem(cookie: string | undefined, sent: string): string | undefined {
  if (cookie === undefined || sent === '') return 'CSRF token missing'
  return same_token(cookie, sent) ? undefined : 'CSRF token mismatch'
}
