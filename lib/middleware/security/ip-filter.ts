// IP filter: allow and deny lists of addresses and CIDRs (IPv4, IPv6, IPv4-mapped normalised), deny first.
import { context_middleware, type CtxMiddleware } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { option_checker } from '../../options.js'
import { ERR_IP_FILTER_BAD_ADDRESS, ERR_SECURITY_BAD_OPTION } from './errors.js'
import { in_range, parse_ip, parse_range, type IpRange } from '../../ip-address.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'ip_filter')

export const CODE_IP_DENIED = httpCode('ip_denied')
export const CODE_IP_NOT_ALLOWED = httpCode('ip_not_allowed')

/** Options of `ip_filter`; at least one list must be non-empty. */
export interface IpFilterOptions {
  /** When non-empty, only these addresses and CIDRs may pass (default none: everyone not denied). */
  allow?: readonly string[]
  /** These addresses and CIDRs are refused, even when also allowed (default none). */
  deny?: readonly string[]
}

function ranges(list: string, entries: unknown): IpRange[] {
  if (!Array.isArray(entries)) return check.fail(list, 'a list of addresses and CIDRs', entries)
  return entries.map((e: unknown) => {
    // A zone id (`fe80::1%eth0`) names an interface of this host, and addresses are compared without it: the entry
    // would match that address on every interface, so it is refused rather than silently widened.
    const r = typeof e === 'string' && !e.includes('%') ? parse_range(e.trim()) : undefined
    if (r === undefined) throw ERR_IP_FILTER_BAD_ADDRESS(list, e)
    return r
  })
}

/**
 * Refuses clients by address, as `req.ip()` gives it (the socket peer, or the forwarded client only when the peer is a
 * proxy named in the App's `trust_proxy`). Denied: 403 `ip_denied`; not on a non-empty allow list (or no address at
 * all): 403 `ip_not_allowed`.
 * @example
 * app.use('/admin', adapt_ctx(fw.middleware.security.ip_filter({ allow: ['10.0.0.0/8', '2001:db8::/32'] })))
 */
export function ip_filter({ allow = [], deny = [] }: IpFilterOptions): CtxMiddleware {
  const allowed = ranges('allow', allow)
  const denied = ranges('deny', deny)
  if (allowed.length === 0 && denied.length === 0) {
    check.fail('allow or deny', 'a non-empty list', [])
  }
  return context_middleware(function ip_filter({ req, res }, next) {
    const ip = parse_ip(req.ip())
    if (ip === undefined) return void res.error(403, CODE_IP_NOT_ALLOWED, 'Client address not allowed')
    if (denied.some((r) => in_range(ip, r))) return void res.error(403, CODE_IP_DENIED, 'Client address denied')
    if (allowed.length > 0 && !allowed.some((r) => in_range(ip, r))) {
      return void res.error(403, CODE_IP_NOT_ALLOWED, 'Client address not allowed')
    }
    return next()
  }, check.owner)
}
