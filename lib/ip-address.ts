// Client addresses as fw compares them (trust_proxy, IP filters, rate-limit keys): v4-mapped IPv6 as IPv4 (only it, not
// v4-compatible `::1.2.3.4`), IPv6 by /64.
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * `ipaddr.parse` of text `net.isIP` accepted. ipaddr.js reads IPv4-compatible IPv6 (`::1.2.3.4`, the IPv6 address
 * `::102:304`, RFC 4291 2.5.5.1) as IPv4-mapped (`::ffff:1.2.3.4`), so an entry for 1.2.3.4 would match it: written
 * `0::1.2.3.4`, the same address, it is read as the IPv6 address it is.
 */
function parse_valid(text: string): ipaddr.IPv4 | ipaddr.IPv6 {
  return ipaddr.parse(text.startsWith('::') && text.includes('.') ? '0' + text : text)
}

/** A parsed address, IPv4-mapped IPv6 (`::ffff:10.0.0.1`) turned into IPv4; undefined when `text` is no IP address. */
export function parse_ip(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  // net.isIP is strict where ipaddr.js also takes legacy forms such as `127.1` or `0x7f.0.0.1`.
  if (isIP(text) === 0) return undefined
  const ip = parse_valid(text)
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip
}

/** A range `[network, prefix bits]`, IPv4-mapped IPv6 ranges of /96 and longer turned into IPv4 ranges. */
export type IpRange = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** Parses an address (a single-host range) or a CIDR; undefined when `text` is neither. */
export function parse_range(text: string): IpRange | undefined {
  const slash = text.indexOf('/')
  const addr = slash === -1 ? text : text.slice(0, slash)
  const bits_text = slash === -1 ? undefined : text.slice(slash + 1)
  if (isIP(addr) === 0 || (bits_text !== undefined && !/^\d{1,3}$/.test(bits_text))) return undefined
  const ip = parse_valid(addr)
  const bits = bits_text === undefined ? (ip.kind() === 'ipv4' ? 32 : 128) : Number(bits_text)
  if (bits > (ip.kind() === 'ipv4' ? 32 : 128)) return undefined
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(ip as ipaddr.IPv6).toIPv4Address(), bits - 96]
  }
  return [ip, bits]
}

/** Whether an address lies in a range of the same family. */
export function in_range(ip: ipaddr.IPv4 | ipaddr.IPv6, [net, bits]: IpRange): boolean {
  return ip.kind() === net.kind() && ip.match(net, bits)
}

/**
 * The counting key of an address: IPv4 as is, IPv6 as its /64 network (one subscriber usually holds a whole /64, so
 * counting single IPv6 addresses would let a client rotate through billions of keys). Text that is no address is kept
 * as is.
 */
export function ip_key(text: string): string {
  if (!text.includes(':')) return text
  const ip = parse_ip(text)
  if (ip === undefined) return text
  if (ip.kind() === 'ipv4') return ip.toString()
  const parts = (ip as ipaddr.IPv6).parts
  return `${parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`
}

/**
 * The address of `ip` without a port after it: some proxies (Azure Application Gateway) write the client into
 * `X-Forwarded-For` as `1.2.3.4:port` or `[2001:db8::1]:port`, and a client picks a new source port per connection.
 * Anything else is returned as it is.
 * @example
 * without_port('203.0.113.7:50001') // '203.0.113.7'
 */
export function without_port(ip: string): string {
  // A bare IPv4 address, the usual answer, has no colon: no pattern to try.
  if (!ip.includes(':')) return ip
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(ip) ?? /^\[([0-9A-Fa-f:.]+)\]:\d{1,5}$/.exec(ip)
  return m === null ? ip : m[1]!
}
