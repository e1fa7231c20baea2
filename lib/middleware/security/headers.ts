// Security response headers: helmet's default set, each changeable, HSTS only over HTTPS, and a per-request CSP nonce.
import { randomBytes } from 'node:crypto'
import { SECURITY_HEADERS_KIND, context_middleware, with_route_options, type CtxMiddleware } from '../../compose.js'
import { CheckedHeaders, HTTP_TOKEN } from '../../response.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'
import { option_checker } from '../../options.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'security_headers')

/** Strict-Transport-Security settings. */
export interface HstsOptions {
  /** Seconds browsers remember to use HTTPS only (default 15552000, 180 days). */
  max_age?: number
  /** Applies to every subdomain too (default true). */
  include_subdomains?: boolean
  /** Asks for the browsers' preload list; needs max_age >= 31536000 and include_subdomains (default false). */
  preload?: boolean
}

/** Options of `security_headers`. */
export interface SecurityHeadersOptions {
  /**
   * `Strict-Transport-Security` on requests that came over HTTPS (`req.protocol()`: TLS to the App, or a proxy trusted
   * by `trust_proxy` saying so): true for the defaults, settings, or false for never (default true).
   */
  hsts?: boolean | HstsOptions
  /** The `Content-Security-Policy` value, or false for none (default `DEFAULT_CSP`, helmet's). */
  csp?: string | false
  /**
   * The `Permissions-Policy` value (default: camera, microphone, geolocation, payment, usb, sensors and topics all
   * off).
   */
  permissions_policy?: string
  /**
   * Changes a header's value, or drops it with false, by name (for example `{ 'Cross-Origin-Resource-Policy':
   * 'same-site' }`).
   */
  overrides?: Readonly<Record<string, string | false>>
  /**
   * Adds a fresh `'nonce-<random>'` to the `script-src` and `style-src` of `csp` (and to its `script-src-elem` and
   * `style-src-elem`, when it has them) on every request, stored as `req.state(CspNonce)` for pages to put in
   * `<script nonce="...">` (default false).
   */
  csp_nonce?: boolean
}

/**
 * Request state: this request's CSP nonce (with `csp_nonce: true`).
 * @example
 * res.send(`<script nonce="${req.state(CspNonce)!.value}">start()</script>`)
 */
export class CspNonce {
  constructor(readonly value: string) {}
}

/**
 * The default Content-Security-Policy: the one helmet (and so `@fastify/helmet`) sends by default, but for its
 * `frame-ancestors`, `'none'` where helmet's is `'self'`: browsers that read CSP obey it over `X-Frame-Options`, and
 * this set's `X-Frame-Options` is `DENY` (helmet's is `SAMEORIGIN`).
 */
export const DEFAULT_CSP =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'none';" +
  "img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';" +
  'upgrade-insecure-requests'

/** The default Permissions-Policy: powerful features off for every origin. */
export const PERMISSIONS_POLICY =
  'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), browsing-topics=()'

function hsts_value(hsts: true | HstsOptions): string {
  const { max_age = 15_552_000, include_subdomains = true, preload = false } = hsts === true ? {} : hsts
  check.int('hsts.max_age', max_age, 0)
  check.bool('hsts.include_subdomains', include_subdomains)
  if (check.bool('hsts.preload', preload) && (max_age < 31_536_000 || !include_subdomains)) {
    check.fail('hsts.preload', 'used with max_age >= 31536000 and include_subdomains', hsts)
  }
  return `max-age=${max_age}${include_subdomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`
}

/** Applies `overrides` to the list: a new value, or the header dropped. */
function apply_overrides(list: Array<[string, string]>, overrides: unknown): Array<[string, string]> {
  if (typeof overrides !== 'object' || overrides === null) return check.fail('overrides', 'an object', overrides)
  const by_name = new Map(list.map(([n, v]) => [n.toLowerCase(), [n, v] as [string, string]]))
  for (const [name, value] of Object.entries(overrides)) {
    if (!HTTP_TOKEN.test(name)) check.fail('overrides', 'keyed by header names', name)
    if (value === false) by_name.delete(name.toLowerCase())
    else by_name.set(name.toLowerCase(), [name, check.header_value(`overrides.${name}`, value)])
  }
  return [...by_name.values()]
}

/**
 * The header list a `security_headers` middleware sets, worked out once from its options (HSTS only for HTTPS
 * requests).
 */
export function security_header_list({
  hsts = true,
  csp = DEFAULT_CSP,
  permissions_policy = PERMISSIONS_POLICY,
  overrides = {},
}: SecurityHeadersOptions = {}): Array<[string, string]> {
  const list: Array<[string, string]> = [
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'no-referrer'],
    ['Permissions-Policy', check.header_value('permissions_policy', permissions_policy)],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    // The rest of @fastify/helmet's default set.
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
  ]
  // Only `true`, `false` or settings: `0` or `'no'` would otherwise turn HSTS on, pinning the host to HTTPS for months.
  if (hsts !== true && hsts !== false && (typeof hsts !== 'object' || hsts === null || Array.isArray(hsts))) {
    check.fail('hsts', 'a boolean or an object of settings', hsts)
  }
  if (hsts !== false) list.push(['Strict-Transport-Security', hsts_value(hsts)])
  if (csp !== false) list.push(['Content-Security-Policy', check.header_value('csp', csp)])
  return apply_overrides(list, overrides)
}

/** Where a nonce goes in a built policy: a NUL, which a checked header value never holds. */
const NONCE_MARK = '\0'

/**
 * The CSP cut where `'nonce-<n>'` goes, so a request only joins the pieces with its nonce. The nonce goes into
 * script-src and style-src; one missing is made from default-src, and left out when there is none either: the policy
 * did not restrict those resources, and a directive of the nonce alone would block every script or stylesheet
 * (same-origin files included) that does not carry it. It goes into script-src-elem and style-src-elem (CSP3) where
 * the policy has them: a browser checks those first for `<script>` and `<style>`/`<link>` elements, so a nonce only
 * in script-src would still block the page's nonced scripts; absent, they fall back to the nonced script-src and
 * style-src. The -attr directives take none: a nonce does not apply to attributes.
 */
function nonce_template(csp: string): string[] {
  const parts = csp
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')
  const index_of = (name: string): number =>
    parts.findIndex((p) => p.toLowerCase() === name || (p.toLowerCase().startsWith(name) && /\s/.test(p[name.length]!)))
  const d = index_of('default-src')
  const fallback = d === -1 ? undefined : parts[d]!.slice(12)
  for (const name of ['script-src', 'style-src', 'script-src-elem', 'style-src-elem']) {
    const i = index_of(name)
    if (i !== -1) parts[i] += ` ${NONCE_MARK}`
    else if (fallback !== undefined && !name.endsWith('-elem'))
      parts.push(`${name} ${fallback} ${NONCE_MARK}`.replace(/\s+/g, ' '))
  }
  return parts.join(csp.includes('; ') ? '; ' : ';').split(NONCE_MARK)
}

/** Takes the header `name` (lowercase) out of `list`, if there. */
function take(list: Array<[string, string]>, name: string): [string, string] | undefined {
  const i = list.findIndex(([n]) => n.toLowerCase() === name)
  return i === -1 ? undefined : list.splice(i, 1)[0]
}

/**
 * Security headers on every response, set before the rest of the chain runs so error answers carry them too. HSTS goes
 * only on requests that came over HTTPS: over plain HTTP browsers ignore it, and a proxy must be trusted to say
 * otherwise.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.security_headers({ csp: "default-src 'self'", csp_nonce: true })))
 */
export function security_headers(options: SecurityHeadersOptions = {}): CtxMiddleware {
  const list = security_header_list(options)
  const hsts = take(list, 'strict-transport-security')
  const nonce = check.bool('csp_nonce', options.csp_nonce ?? false)
  const csp = nonce ? take(list, 'content-security-policy') : undefined
  if (nonce && csp === undefined) check.fail('csp_nonce', 'used with a csp', true)
  const csp_pieces = csp === undefined ? undefined : nonce_template(csp[1])
  // Checked once here, so each response only copies them; HSTS as well, for the HTTPS requests that get it.
  const fixed = new CheckedHeaders(list)
  const https_only = hsts === undefined ? undefined : new CheckedHeaders([hsts])
  const mw: CtxMiddleware = function security_headers({ req, res }, next) {
    res.checked_headers(fixed)
    if (https_only !== undefined && req.protocol() === 'https') res.checked_headers(https_only)
    if (csp !== undefined) {
      const value = randomBytes(16).toString('base64')
      req.set_state(CspNonce, new CspNonce(value))
      res.header(csp[0], csp_pieces!.join(`'nonce-${value}'`))
    }
    return next()
  }
  return context_middleware(with_route_options(mw, { kind: SECURITY_HEADERS_KIND }), check.owner)
}
