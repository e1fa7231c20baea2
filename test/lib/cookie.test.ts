import t, { type Test } from 'tap'
import { check_cookie, cookie_values, MAX_TOSSED, tossed_past, type CookieOptionValues } from '../../lib/cookie.js'
import { define_bad_option, option_checker } from '../../lib/options.js'

const check = option_checker(define_bad_option('COOKIETEST'), 'owner')
const GOOD: CookieOptionValues = {
  cookie_name: 'sid',
  cookie_path: '/',
  secure: false,
  http_only: true,
  same_site: 'Lax',
}
const bad = (t: Test, over: Partial<CookieOptionValues>, message: string): void => {
  t.throws(() => check_cookie(check, { ...GOOD, ...over }), { code: 'FW_ERR_COOKIETEST_BAD_OPTION', message })
}

t.test('check_cookie', async (t) => {
  t.test('returns the checked settings', async (t) => {
    t.same(check_cookie(check, GOOD), {
      name: 'sid',
      path: '/',
      secure: false,
      http_only: true,
      same_site: 'Lax',
    })
    t.same(check_cookie(check, { ...GOOD, cookie_name: '__Host-x', secure: true, same_site: 'None' }).name, '__Host-x')
  })

  t.test('refuses each bad option with the owner named', async (t) => {
    bad(t, { cookie_name: 'a b' }, 'owner: cookie_name must be an HTTP token; got "a b"')
    bad(t, { cookie_path: 'app' }, 'owner: cookie_path must be a path starting with / without ; or spaces; got "app"')
    bad(
      t,
      { cookie_path: '/a; Domain=evil' },
      'owner: cookie_path must be a path starting with / without ; or spaces; got "/a; Domain=evil"',
    )
    bad(t, { cookie_path: 7 }, 'owner: cookie_path must be a path starting with / without ; or spaces; got 7')
    bad(t, { secure: 'yes' }, 'owner: secure must be a boolean; got "yes"')
    bad(t, { http_only: 1 }, 'owner: http_only must be a boolean; got 1')
    bad(t, { same_site: 'lax' }, 'owner: same_site must be one of Strict, Lax, None; got "lax"')
  })

  t.test('applies the rules browsers enforce on prefixes and SameSite=None', async (t) => {
    bad(t, { same_site: 'None' }, 'owner: secure must be true when same_site is None; got false')
    bad(t, { cookie_name: '__Secure-sid' }, 'owner: secure must be true for a cookie named __Secure-sid; got false')
    bad(t, { cookie_name: '__Host-sid' }, 'owner: secure must be true for a cookie named __Host-sid; got false')
    bad(
      t,
      { cookie_name: '__Host-sid', secure: true, cookie_path: '/app' },
      'owner: cookie_path must be / for a __Host- cookie; got "/app"',
    )
  })

  t.test('matches the prefixes case-insensitively, as RFC 6265bis and res.cookie do', async (t) => {
    bad(t, { cookie_name: '__secure-sid' }, 'owner: secure must be true for a cookie named __secure-sid; got false')
    bad(t, { cookie_name: '__HOST-sid' }, 'owner: secure must be true for a cookie named __HOST-sid; got false')
    bad(
      t,
      { cookie_name: '__host-sid', secure: true, cookie_path: '/app' },
      'owner: cookie_path must be / for a __Host- cookie; got "/app"',
    )
  })
})

t.test('cookie_values', async (t) => {
  t.test('gives every value of the name in the order sent, decoded as req.cookie decodes', async (t) => {
    t.same(cookie_values('a=1; b=2;a="3" ; ab=4; a=%41%zz; a=%41', 'a'), ['1', '3', '%41%zz', 'A'])
    t.same(cookie_values('b=2; novalue; =x', 'a'), [])
    t.same(cookie_values(undefined, 'a'), [])
  })
})

t.test('tossed_past', async (t) => {
  /** tossed_past over `values` of `sid` after the refused `first`, with the values it verified, in order. */
  const run = (first: string, values: string[], accept?: string) => {
    const verified: string[] = []
    const found = tossed_past(values.map((v) => `sid=${v}`).join('; '), 'sid', first, (v) => {
      verified.push(v)
      return v === accept ? `ok:${v}` : undefined
    })
    return { found, verified }
  }
  t.test('finds the first value past the refused one that verifies', async (t) => {
    t.same(run('a', ['a', 'b', 'c', 'd'], 'c'), { found: 'ok:c', verified: ['b', 'c'] })
    t.same(run('a', ['a', 'b']), { found: undefined, verified: ['b'] })
  })
  t.test('verifies each distinct value once, however often the header repeats it', async (t) => {
    const values = Array.from({ length: 230 }, (_, i) => ['a', 'b', 'c'][i % 3]!)
    t.same(run('a', values), { found: undefined, verified: ['b', 'c'] })
  })
  t.test(`verifies at most ${MAX_TOSSED} distinct values, the refused first one counted`, async (t) => {
    t.equal(MAX_TOSSED, 8)
    const values = Array.from({ length: 200 }, (_, i) => `v${i}`)
    const { verified } = run('v0', values)
    t.same(verified, ['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7'])
    t.same(run('v0', [...values.slice(0, 8), 'own'], 'own').found, undefined, 'the 9th distinct value is not tried')
    t.same(run('v0', [...values.slice(0, 7), 'v3', 'own'], 'own').found, 'ok:own', 'the 8th, past a repeat')
  })
})
