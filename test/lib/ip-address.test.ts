import t from 'tap'
import { in_range, ip_key, parse_ip, parse_range } from '../../lib/ip-address.js'

t.test('parse_ip', async (t) => {
  t.test('turns IPv4-mapped IPv6 into IPv4 and refuses legacy or broken forms', async (t) => {
    t.equal(parse_ip('::ffff:10.1.2.3')?.toString(), '10.1.2.3')
    t.equal(parse_ip('2001:DB8::1')?.toString(), '2001:db8::1')
    t.equal(parse_ip('127.1'), undefined)
    t.equal(parse_ip('0x7f.0.0.1'), undefined)
    t.equal(parse_ip(''), undefined)
  })

  t.test('reads IPv4-compatible IPv6 (::1.2.3.4, RFC 4291 2.5.5.1) as the IPv6 address it is', async (t) => {
    t.equal(parse_ip('::1.2.3.4')?.toString(), '::102:304')
    t.equal(parse_ip('::0.0.0.1')?.toString(), '::1')
    t.equal(parse_ip('::ffff:1.2.3.4')?.toString(), '1.2.3.4', 'only IPv4-mapped is IPv4')
    t.equal(parse_ip('::FFFF:1.2.3.4')?.toString(), '1.2.3.4')
    t.equal(in_range(parse_ip('::1.2.3.4')!, parse_range('1.2.3.4')!), false)
    t.equal(in_range(parse_ip('::1.2.3.4')!, parse_range('::102:304')!), true)
  })
})

t.test('parse_range', async (t) => {
  t.test('reads addresses as single-host ranges and CIDRs with their prefix', async (t) => {
    t.same(parse_range('10.0.0.1')?.map(String), ['10.0.0.1', '32'])
    t.same(parse_range('2001:db8::/32')?.map(String), ['2001:db8::', '32'])
    t.same(parse_range('::1')?.map(String), ['::1', '128'])
  })

  t.test('turns IPv4-mapped ranges of /96 and longer into IPv4 ranges', async (t) => {
    t.same(parse_range('::ffff:10.0.0.0/104')?.map(String), ['10.0.0.0', '8'])
    t.same(parse_range('::ffff:0:0/96')?.map(String), ['0.0.0.0', '0'])
    t.same(parse_range('::1.2.3.4')?.map(String), ['::102:304', '128'], 'IPv4-compatible is not IPv4-mapped')
    t.same(parse_range('::1.2.3.0/120')?.map(String), ['::102:300', '120'])
  })

  t.test('refuses prefixes out of range and malformed text', async (t) => {
    for (const s of ['10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/1a', 'x/8', '10.0.0.0/8/8'])
      t.equal(parse_range(s), undefined, s)
  })
})

t.test('in_range', async (t) => {
  t.test('never matches across address families', async (t) => {
    t.equal(in_range(parse_ip('10.0.0.1')!, parse_range('::/0')!), false)
    t.equal(in_range(parse_ip('::1')!, parse_range('0.0.0.0/0')!), false)
    t.equal(in_range(parse_ip('::ffff:10.0.0.1')!, parse_range('10.0.0.0/8')!), true)
  })
})

t.test('ip_key', async (t) => {
  t.test('keeps IPv4, maps IPv4-mapped IPv6 to IPv4 and groups IPv6 by /64', async (t) => {
    t.equal(ip_key('192.0.2.7'), '192.0.2.7')
    t.equal(ip_key('::ffff:192.0.2.7'), '192.0.2.7')
    t.equal(ip_key('2001:db8:a:b:1:2:3:4'), '2001:db8:a:b::/64')
    t.equal(ip_key('2001:0db8:000a:000b::9'), '2001:db8:a:b::/64')
    t.equal(ip_key('::1'), '0:0:0:0::/64')
    t.equal(ip_key('::1.2.3.4'), '0:0:0:0::/64', 'IPv4-compatible IPv6 is IPv6, not 1.2.3.4')
    t.equal(ip_key('not:an:address'), 'not:an:address')
  })
})
