// Security response headers: helmet's default set (bar CSP and HSTS, opt-in), each changeable, and a per-request CSP nonce.
import { randomBytes } from 'node:crypto'
import type { CtxMiddleware } from '../../compose.js'
import { HTTP_TOKEN } from '../../response.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'
import { check } from './options.js'

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
  /** Send `Strict-Transport-Security` (only over HTTPS): true for the defaults, or settings (default false). */
  hsts?: boolean | HstsOptions
  /** A `Content-Security-Policy` value, for example `default-src 'self'` (default none). */
  csp?: string
  /** The `Permissions-Policy` value (default: camera, microphone, geolocation, payment, usb, sensors and topics all off). */
  permissions_policy?: string
  /** Changes a header's value, or drops it with false, by name (for example `{ 'Cross-Origin-Resource-Policy': 'same-site' }`). */
  overrides?: Readonly<Record<string, string | false>>
  /**
   * Adds a fresh `'nonce-<random>'` to the `script-src` and `style-src` of `csp` on every request, stored as
   * `req.state(CspNonce)` for pages to put in `<script nonce="...">` (default false).
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

/** The default Permissions-Policy: powerful features off for every origin. */
export const PERMISSIONS_POLICY =
  'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), browsing-topics=()'

function hsts_value(hsts: true | HstsOptions): string {
  const { max_age = 15_552_000, include_subdomains = true, preload = false } = hsts === true ? {} : hsts
  check.int('security_headers', 'hsts.max_age', max_age, 0)
  check.bool('security_headers', 'hsts.include_subdomains', include_subdomains)
  if (check.bool('security_headers', 'hsts.preload', preload) && (max_age < 31_536_000 || !include_subdomains)) {
    throw ERR_SECURITY_BAD_OPTION('security_headers', 'hsts.preload', 'used with max_age >= 31536000 and include_subdomains', hsts)
  }
  return `max-age=${max_age}${include_subdomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`
}

/** Applies `overrides` to the list: a new value, or the header dropped. */
function apply_overrides(list: Array<[string, string]>, overrides: unknown): Array<[string, string]> {
  if (typeof overrides !== 'object' || overrides === null) throw ERR_SECURITY_BAD_OPTION('security_headers', 'overrides', 'an object', overrides)
  const by_name = new Map(list.map(([n, v]) => [n.toLowerCase(), [n, v] as [string, string]]))
  for (const [name, value] of Object.entries(overrides)) {
    if (!HTTP_TOKEN.test(name)) throw ERR_SECURITY_BAD_OPTION('security_headers', 'overrides', 'keyed by header names', name)
    if (value === false) by_name.delete(name.toLowerCase())
    else by_name.set(name.toLowerCase(), [name, check.header_value('security_headers', `overrides.${name}`, value)])
  }
  return [...by_name.values()]
}

/** The header list a `security_headers` middleware sets, worked out once from its options. */
export function security_header_list({
  hsts = false, csp, permissions_policy = PERMISSIONS_POLICY, overrides = {},
}: SecurityHeadersOptions = {}): Array<[string, string]> {
  const list: Array<[string, string]> = [
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'no-referrer'],
    ['Permissions-Policy', check.header_value('security_headers', 'permissions_policy', permissions_policy)],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    // The rest of @fastify/helmet's default set.
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
  ]
  if (hsts !== false) list.push(['Strict-Transport-Security', hsts_value(hsts)])
  if (csp !== undefined) list.push(['Content-Security-Policy', check.header_value('security_headers', 'csp', csp)])
  return apply_overrides(list, overrides)
}

/** The CSP with `'nonce-<n>'` added to script-src and style-src (each created from default-src when missing). */
function with_nonce(csp: string, nonce: string): string {
  const parts = csp.split(';').map((p) => p.trim()).filter((p) => p !== '')
  const fallback = parts.find((p) => p.toLowerCase().startsWith('default-src '))?.slice(12) ?? ''
  for (const name of ['script-src', 'style-src']) {
    const i = parts.findIndex((p) => p.toLowerCase() === name || p.toLowerCase().startsWith(name + ' '))
    if (i === -1) parts.push(`${name} ${fallback} 'nonce-${nonce}'`.replace(/\s+/g, ' '))
    else parts[i] += ` 'nonce-${nonce}'`
  }
  return parts.join('; ')
}

/**
 * Security headers on every response, set before the rest of the chain runs so error answers carry them too.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.security_headers({ hsts: true, csp: "default-src 'self'" })))
 */
export function security_headers(options: SecurityHeadersOptions = {}): CtxMiddleware {
  const list = security_header_list(options)
  const csp = list.find(([n]) => n.toLowerCase() === 'content-security-policy')?.[1]
  if (check.bool('security_headers', 'csp_nonce', options.csp_nonce ?? false)) {
    if (csp === undefined) throw ERR_SECURITY_BAD_OPTION('security_headers', 'csp_nonce', 'used with a csp', true)
    return function security_headers({ req, res }, next) {
      for (const [name, value] of list) res.header(name, value)
      const nonce = randomBytes(16).toString('base64')
      req.set_state(CspNonce, new CspNonce(nonce))
      res.header('Content-Security-Policy', with_nonce(csp, nonce))
      return next()
    }
  }
  return function security_headers({ res }, next) {
    for (const [name, value] of list) res.header(name, value)
    return next()
  }
}
