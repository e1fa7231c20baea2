// Security response headers: nosniff, frame denial, no referrer, a restrictive Permissions-Policy, COOP; HSTS and CSP opt-in.
import type { CtxMiddleware } from '../../compose.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'
import { check_bool, check_header_value, check_int } from './options.js'

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
}

/** The default Permissions-Policy: powerful features off for every origin. */
export const PERMISSIONS_POLICY =
  'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), browsing-topics=()'

function hsts_value(hsts: true | HstsOptions): string {
  const { max_age = 15_552_000, include_subdomains = true, preload = false } = hsts === true ? {} : hsts
  check_int('security_headers', 'hsts.max_age', max_age, 0)
  check_bool('security_headers', 'hsts.include_subdomains', include_subdomains)
  if (check_bool('security_headers', 'hsts.preload', preload) && (max_age < 31_536_000 || !include_subdomains)) {
    throw ERR_SECURITY_BAD_OPTION('security_headers', 'hsts.preload', 'used with max_age >= 31536000 and include_subdomains', hsts)
  }
  return `max-age=${max_age}${include_subdomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`
}

/** The header list a `security_headers` middleware sets, worked out once from its options. */
export function security_header_list({ hsts = false, csp, permissions_policy = PERMISSIONS_POLICY }: SecurityHeadersOptions = {}): Array<[string, string]> {
  const list: Array<[string, string]> = [
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'no-referrer'],
    ['Permissions-Policy', check_header_value('security_headers', 'permissions_policy', permissions_policy)],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
  ]
  if (hsts !== false) list.push(['Strict-Transport-Security', hsts_value(hsts)])
  if (csp !== undefined) list.push(['Content-Security-Policy', check_header_value('security_headers', 'csp', csp)])
  return list
}

/**
 * Security headers on every response, set before the rest of the chain runs so error answers carry them too.
 * @example
 * app.use(adapt_ctx(fw.middleware.security.security_headers({ hsts: true, csp: "default-src 'self'" })))
 */
export function security_headers(options: SecurityHeadersOptions = {}): CtxMiddleware {
  const list = security_header_list(options)
  return function security_headers({ res }, next) {
    for (const [name, value] of list) res.header(name, value)
    return next()
  }
}
