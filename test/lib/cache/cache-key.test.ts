import t from 'tap'
import { CacheKey, key_builder } from '../../../lib/cache/cache-key.js'

const key = CacheKey.fromRequest

t.test('CacheKey.fromRequest', async (t) => {
  t.test('uppercases the method and keeps the ? even for an empty query', async (t) => {
    t.equal(key('get', '/a', '', {}), 'GET /a?')
    t.equal(key('Post', '/', '', {}), 'POST /?')
  })

  t.test('sorts query pairs by name, keeping each pair raw and the pairs of one name in their order', async (t) => {
    t.equal(key('GET', '/s', 'b=2&a=9&a=1&c', {}), 'GET /s?a=9&a=1&b=2&c')
    t.equal(key('GET', '/s', 'q=+y&q=%20x&Q=1', {}), 'GET /s?Q=1&q=+y&q=%20x')
    t.equal(key('GET', '/s', 'a=x=y&a=x', {}), 'GET /s?a=x=y&a=x')
  })

  t.test('gives one key for any order of pairs of different names', async (t) => {
    t.equal(key('GET', '/s', 'z=1&y=2&x=3', {}), key('GET', '/s', 'x=3&z=1&y=2', {}))
    t.equal(key('GET', '/s', 'b=1&a=1&a=2', {}), key('GET', '/s', 'a=1&b=1&a=2', {}))
  })

  t.test('keeps the order of a repeated name, which the handler sees (the first one for query_value)', async (t) => {
    t.not(key('GET', '/s', 'page=1&page=2', {}), key('GET', '/s', 'page=2&page=1', {}))
    t.not(key('GET', '/s', 'a&a=', {}), key('GET', '/s', 'a=&a', {}))
  })

  t.test(
    'sorts by the name as the query parser decodes it, so two spellings of one name keep their order',
    async (t) => {
      t.equal(key('GET', '/s', 'page=2&b=1&%70age=1', {}), 'GET /s?b=1&page=2&%70age=1')
      t.equal(key('GET', '/s', '%70age=1&b=1&page=2', {}), 'GET /s?b=1&%70age=1&page=2')
      t.equal(key('GET', '/s', 'a+b=1&a%20b=2&a=3', {}), 'GET /s?a=3&a+b=1&a%20b=2')
      // A name that does not decode is sorted as it is written, as the parser keeps it.
      t.equal(key('GET', '/s', '%zz=1&%25=2', {}), 'GET /s?%25=2&%zz=1')
    },
  )

  t.test('drops empty pairs', async (t) => {
    t.equal(key('GET', '/s', 'b=1&&a=2&', {}), 'GET /s?a=2&b=1')
    t.equal(key('GET', '/s', '&', {}), 'GET /s?')
  })

  t.test('keeps a leading ? of the query as data, since the caller strips the separator', async (t) => {
    t.equal(key('GET', '/s', '?a=1', {}), 'GET /s??a=1')
  })

  t.test('sorts by code unit, so unicode and case order deterministically', async (t) => {
    t.equal(key('GET', '/ü/日本', 'é=1&e=2&E=3&日=4', {}), 'GET /ü/日本?E=3&e=2&é=1&日=4')
  })

  t.test('writes spaces as %20 and a ? in the path as %3F, so the first ? always ends the path', async (t) => {
    t.equal(key('GET', '/a b', 'q=x y', {}), 'GET /a%20b?q=x%20y')
    t.equal(key('GET', '/a?b', 'c=1', {}), 'GET /a%3Fb?c=1')
    t.not(key('GET', '/a?b', '', {}), key('GET', '/a', 'b', {}))
  })

  t.test('keeps | in path and query, since the header segment starts with a space', async (t) => {
    t.equal(key('GET', '/a|b', 'x=|h:y', {}), 'GET /a|b?x=|h:y')
    t.not(key('GET', '/a', 'x= |h:h=1;', {}), key('GET', '/a', 'x=', { h: '1' }, ['h']))
  })

  t.test('adds only the included headers, with lowercased names, sorted and deduplicated', async (t) => {
    const headers = { 'Accept-Language': 'fr', accept: 'text/html', 'x-secret': 's' }
    t.equal(
      key('GET', '/a', '', headers, ['Accept-Language', 'Accept', 'accept-language']),
      'GET /a? |h:accept=text/html;accept-language=fr;',
    )
    t.equal(
      key('GET', '/a', '', headers, ['accept', 'accept-language']),
      key('GET', '/a', '', headers, ['accept-language', 'accept']),
    )
  })

  t.test('looks headers up case-insensitively, the later case variant winning', async (t) => {
    t.equal(key('GET', '/a', '', { 'X-V': '1', 'x-v': '2' }, ['x-v']), 'GET /a? |h:x-v=2;')
    t.equal(key('GET', '/a', '', { 'x-v': '2', 'X-V': '1' }, ['X-v']), 'GET /a? |h:x-v=1;')
  })

  t.test('leaves a missing header out and keeps an empty one, so the two differ', async (t) => {
    t.equal(key('GET', '/a', '', {}, ['x-v']), 'GET /a? |h:')
    t.equal(key('GET', '/a', '', { 'x-v': undefined }, ['x-v']), 'GET /a? |h:')
    t.equal(key('GET', '/a', '', { 'x-v': '' }, ['x-v']), 'GET /a? |h:x-v=;')
  })

  t.test('joins a list value with ", " and trims spaces and tabs', async (t) => {
    t.equal(key('GET', '/a', '', { 'x-v': ['a', 'b'] }, ['x-v']), 'GET /a? |h:x-v=a, b;')
    t.equal(key('GET', '/a', '', { 'x-v': ' \tv w\t ' }, ['x-v']), 'GET /a? |h:x-v=v w;')
  })

  t.test('escapes % and ; in values, so one header cannot pass for the next', async (t) => {
    const forged = key('GET', '/a', '', { a: '1;b=2' }, ['a', 'b'])
    const honest = key('GET', '/a', '', { a: '1', b: '2' }, ['a', 'b'])
    t.equal(forged, 'GET /a? |h:a=1%3Bb=2;')
    t.equal(honest, 'GET /a? |h:a=1;b=2;')
    t.equal(key('GET', '/a', '', { a: '%3B' }, ['a']), 'GET /a? |h:a=%253B;')
  })

  t.test('keeps unicode, | and ? in header values as they are', async (t) => {
    t.equal(key('GET', '/a', 'x=1', { l: 'ü|?日' }, ['L']), 'GET /a?x=1 |h:l=ü|?日;')
  })

  t.test('reads host from :authority on HTTP/2, where a request has no host header', async (t) => {
    const h2 = { ':method': 'GET', ':authority': 'example.com', ':path': '/a', accept: 'a/b' }
    t.equal(key('GET', '/a', '', h2, ['host']), 'GET /a? |h:host=example.com;')
    t.equal(key('GET', '/a', '', h2, ['Host', 'accept']), 'GET /a? |h:accept=a/b;host=example.com;')
    t.equal(
      key('GET', '/a', '', h2, ['host']),
      key('GET', '/a', '', { host: 'example.com' }, ['host']),
      'one key for one authority over HTTP/1.1 and HTTP/2',
    )
    t.equal(
      key('GET', '/a', '', { ':authority': 'h2.example', host: 'h1.example' }, ['host']),
      'GET /a? |h:host=h1.example;',
      'a host header wins over :authority',
    )
    t.equal(key('GET', '/a', '', { ':authority': 'a;b%' }, ['host']), 'GET /a? |h:host=a%3Bb%25;', 'escaped as any')
    t.equal(key('GET', '/a', '', h2, [':authority']), 'GET /a? |h::authority=example.com;')
    t.equal(key('GET', '/a', '', h2, ['x-host']), 'GET /a? |h:', 'only host reads :authority')
  })
})

t.test('key_builder', async (t) => {
  t.test('builds the keys fromRequest gives, with the header list normalised once', async (t) => {
    const list = ['Accept-Language', 'x-tenant', 'ACCEPT-LANGUAGE']
    const key_of = key_builder(list)
    const requests: Array<[string, string, string, Record<string, string>]> = [
      ['get', '/users', 'b=2&a=1', { 'accept-language': 'fr', 'X-Tenant': 't;1' }],
      ['GET', '/a b?', '', {}],
    ]
    for (const [m, p, q, h] of requests) t.equal(key_of(m, p, q, h), CacheKey.fromRequest(m, p, q, h, list))
    t.equal(
      key_of('get', '/users', 'b=2&a=1', { 'accept-language': 'fr' }),
      'GET /users?a=1&b=2 |h:accept-language=fr;',
    )
  })
})
