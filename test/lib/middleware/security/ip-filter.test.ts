import t, { type Test } from 'tap'
import { adapt_ctx, type AppOptions } from '../../../../index.js'
import { ip_filter, type IpFilterOptions } from '../../../../lib/middleware/security/ip-filter.js'
import { build } from './build.js'

function with_filter(t: Test, options: IpFilterOptions, app_options: AppOptions = {}) {
  return build(t, [adapt_ctx(ip_filter(options))], app_options).app
}

type App = ReturnType<typeof with_filter>

async function status(app: App, ip: string, headers: Record<string, string> = {}): Promise<number | string> {
  const r = await app.inject({ url: '/data', remoteAddress: ip, headers })
  return r.statusCode === 200 ? 200 : (r.json() as { error: string }).error
}

t.test('ip_filter', async (t) => {
  t.test('denies a listed IPv4 address with 403 ip_denied', async (t) => {
    const app = with_filter(t, { deny: ['10.0.0.1'] })
    const r = await app.inject({ url: '/data', remoteAddress: '10.0.0.1' })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'ip_denied', message: 'Client address denied' })
    t.equal(await status(app, '10.0.0.2'), 200)
  })

  t.test('refuses an address outside the allow list with 403 ip_not_allowed', async (t) => {
    const { app, calls } = build(t, [adapt_ctx(ip_filter({ allow: ['127.0.0.1'] }))])
    const r = await app.inject({ url: '/data', remoteAddress: '10.0.0.1' })
    t.equal(r.statusCode, 403)
    t.same(r.json(), { ok: false, error: 'ip_not_allowed', message: 'Client address not allowed' })
    t.equal(calls.n, 0)
    t.equal(await status(app, '127.0.0.1'), 200)
    t.equal(calls.n, 1)
  })

  t.test('matches IPv4 CIDRs exactly at their edges', async (t) => {
    const app = with_filter(t, { deny: ['192.168.1.0/24'], allow: ['192.168.0.0/16', '10.0.0.0/31'] })
    t.equal(await status(app, '192.168.1.0'), 'ip_denied')
    t.equal(await status(app, '192.168.1.255'), 'ip_denied')
    t.equal(await status(app, '192.168.0.255'), 200)
    t.equal(await status(app, '192.168.2.0'), 200)
    t.equal(await status(app, '192.168.255.255'), 200)
    t.equal(await status(app, '192.169.0.0'), 'ip_not_allowed')
    t.equal(await status(app, '10.0.0.0'), 200)
    t.equal(await status(app, '10.0.0.1'), 200)
    t.equal(await status(app, '10.0.0.2'), 'ip_not_allowed')
    t.equal(await status(app, '9.255.255.255'), 'ip_not_allowed')
  })

  t.test('treats /0 as everything and a bare address as /32', async (t) => {
    const all = with_filter(t, { deny: ['0.0.0.0/0'] })
    t.equal(await status(all, '1.2.3.4'), 'ip_denied')
    t.equal(await status(all, '255.255.255.255'), 'ip_denied')
    t.equal(await status(all, '::1'), 200, 'an IPv4 range never matches an IPv6 address')
    const one = with_filter(t, { deny: ['8.8.8.8'] })
    t.equal(await status(one, '8.8.8.9'), 200)
    t.equal(await status(one, '8.8.8.7'), 200)
  })

  t.test('matches IPv6 addresses and CIDRs in any notation', async (t) => {
    const app = with_filter(t, { deny: ['2001:db8::/32', '2001:0DB9:0000:0000:0000:0000:0000:0001'], allow: ['::/0'] })
    t.equal(await status(app, '2001:db8::1'), 'ip_denied')
    t.equal(await status(app, '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'), 'ip_denied')
    t.equal(await status(app, '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff'), 200)
    t.equal(await status(app, '2001:db9::1'), 'ip_denied')
    t.equal(await status(app, '2001:db9::2'), 200)
    t.equal(await status(app, '10.0.0.1'), 'ip_not_allowed', 'an IPv6 allow list does not take IPv4 clients')
  })

  t.test('normalises IPv4-mapped IPv6 clients and entries to IPv4', async (t) => {
    const app = with_filter(t, { deny: ['10.0.0.1', '::ffff:172.16.0.0/108'] })
    t.equal(await status(app, '::ffff:10.0.0.1'), 'ip_denied')
    t.equal(await status(app, '::FFFF:10.0.0.1'), 'ip_denied')
    t.equal(await status(app, '::ffff:10.0.0.2'), 200)
    t.equal(await status(app, '172.16.5.5'), 'ip_denied', 'a mapped /108 is the IPv4 /12')
    t.equal(await status(app, '172.31.255.255'), 'ip_denied')
    t.equal(await status(app, '172.32.0.0'), 200)
    const allow = with_filter(t, { allow: ['127.0.0.0/8'] })
    t.equal(await status(allow, '::ffff:127.0.0.1'), 200)
  })

  t.test('does not read IPv4-compatible IPv6 (::1.2.3.4) as IPv4', async (t) => {
    const allow = with_filter(t, { allow: ['1.2.3.4'] }, { trust_proxy: ['127.0.0.1'] })
    t.equal(await status(allow, '127.0.0.1', { 'x-forwarded-for': '::1.2.3.4' }), 'ip_not_allowed')
    t.equal(await status(allow, '127.0.0.1', { 'x-forwarded-for': '::ffff:1.2.3.4' }), 200)
    const deny = with_filter(t, { deny: ['::1.2.3.4'] }, { trust_proxy: ['127.0.0.1'] })
    t.equal(await status(deny, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }), 200)
    t.equal(await status(deny, '127.0.0.1', { 'x-forwarded-for': '::102:304' }), 'ip_denied')
  })

  t.test('denies before it allows', async (t) => {
    const app = with_filter(t, { allow: ['10.0.0.0/8'], deny: ['10.0.0.5'] })
    t.equal(await status(app, '10.0.0.5'), 'ip_denied')
    t.equal(await status(app, '10.0.0.6'), 200)
    t.equal(await status(app, '11.0.0.1'), 'ip_not_allowed')
  })

  t.test('ignores X-Forwarded-For and X-Real-IP from a peer that is not a trusted proxy', async (t) => {
    const deny = with_filter(t, { deny: ['1.2.3.4'] })
    t.equal(await status(deny, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }), 200)
    t.equal(await status(deny, '127.0.0.1', { 'x-real-ip': '1.2.3.4' }), 200)
    const allow = with_filter(t, { allow: ['1.2.3.4'] })
    t.equal(await status(allow, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }), 'ip_not_allowed')
    t.equal(await status(allow, '127.0.0.1', { 'x-real-ip': '1.2.3.4' }), 'ip_not_allowed')
  })

  t.test('uses the forwarded client when the peer is a trusted proxy', async (t) => {
    const app = with_filter(t, { deny: ['1.2.3.4'] }, { trust_proxy: ['127.0.0.1'] })
    t.equal(await status(app, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }), 'ip_denied')
    t.equal(await status(app, '127.0.0.1', { 'x-real-ip': '1.2.3.4' }), 'ip_denied')
    t.equal(
      await status(app, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4, 5.6.7.8' }),
      200,
      'the client is the nearest untrusted hop',
    )
    t.equal(
      await status(app, '10.9.9.9', { 'x-forwarded-for': '1.2.3.4' }),
      200,
      'an untrusted peer still cannot spoof',
    )
  })

  t.test('reads a forwarded client without the port a trusted proxy wrote after it', async (t) => {
    const deny = with_filter(t, { deny: ['1.2.3.4', '2001:db8::/32'] }, { trust_proxy: ['127.0.0.1'] })
    t.equal(await status(deny, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4:50001' }), 'ip_denied')
    t.equal(await status(deny, '127.0.0.1', { 'x-forwarded-for': '[2001:db8::1]:50001' }), 'ip_denied')
    t.equal(await status(deny, '127.0.0.1', { 'x-forwarded-for': '1.2.3.5:50001' }), 200)
    const allow = with_filter(t, { allow: ['1.2.3.4'] }, { trust_proxy: ['127.0.0.1'] })
    t.equal(await status(allow, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4:50001' }), 200)
    t.equal(await status(allow, '127.0.0.1', { 'x-forwarded-for': '1.2.3.4:notaport' }), 'ip_not_allowed')
  })

  t.test('throws at creation for entries that are not addresses or CIDRs', async (t) => {
    for (const entry of [
      '10.0.0.1/33',
      '10.0.0',
      '127.1',
      '0x7f.0.0.1',
      'example.com',
      '::1/129',
      '10.0.0.0/8/8',
      '10.0.0.0/',
      '',
    ]) {
      t.throws(
        () => ip_filter({ deny: [entry] }),
        {
          code: 'FW_ERR_IP_FILTER_BAD_ADDRESS',
          message: `ip_filter: deny entry ${JSON.stringify(entry)} is not an IPv4/IPv6 address or CIDR`,
        },
        entry,
      )
    }
    t.throws(() => ip_filter({ allow: [5 as unknown as string] }), {
      code: 'FW_ERR_IP_FILTER_BAD_ADDRESS',
      message: 'ip_filter: allow entry 5 is not an IPv4/IPv6 address or CIDR',
    })
  })

  t.test('refuses an entry with an IPv6 zone id, which it could not honour', async (t) => {
    // A zone names an interface of this host: `fe80::1%eth0` allowed `fe80::1` on every interface.
    for (const entry of ['fe80::1%eth0', 'fe80::%eth0/64', 'fe80::1%1']) {
      t.throws(
        () => ip_filter({ allow: [entry] }),
        {
          code: 'FW_ERR_IP_FILTER_BAD_ADDRESS',
          message: `ip_filter: allow entry ${JSON.stringify(entry)} is not an IPv4/IPv6 address or CIDR`,
        },
        entry,
      )
    }
  })

  t.test('throws at creation without any list', async (t) => {
    t.throws(() => ip_filter({}), {
      code: 'FW_ERR_SECURITY_BAD_OPTION',
      message: 'ip_filter: allow or deny must be a non-empty list; got []',
    })
    t.throws(() => ip_filter({ deny: '10.0.0.1' as unknown as string[] }), { code: 'FW_ERR_SECURITY_BAD_OPTION' })
  })
})
