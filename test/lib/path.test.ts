import t from 'tap'
import {
  ERR_APP_BAD_PATH,
  canonical_segments,
  classify,
  intersect,
  origin_form,
  join_path,
  params_through,
  parse_route,
  prefix_segments,
  router_order,
  routed_under,
  router_path,
  under_prefix,
} from '../../lib/path.js'

t.test('parse_route', async (t) => {
  t.test('splits static segments, {name} parameters and the final wildcard', async (t) => {
    t.same(parse_route('/'), [])
    t.same(parse_route('/users/{id}/files/*'), [
      { kind: 'static', value: 'users' },
      { kind: 'param', name: 'id' },
      { kind: 'static', value: 'files' },
      { kind: 'wildcard' },
    ])
    t.same(parse_route('/a/'), [{ kind: 'static', value: 'a' }])
  })

  t.test('rejects paths that break the rules with FW_ERR_APP_BAD_PATH', async (t) => {
    const cases: Array<[string, string]> = [
      ['users', 'invalid route path "users": it must start with /'],
      ['/*/x', 'invalid route path "/*/x": the wildcard /* must be last'],
      ['/a/:id', 'invalid route path "/a/:id": bad segment ":id"'],
      ['/a/{1x}', 'invalid route path "/a/{1x}": bad segment "{1x}"'],
      ['/a/x*', 'invalid route path "/a/x*": bad segment "x*"'],
      ['/a//b', 'invalid route path "/a//b": empty segment'],
      ['/a/{id}/b/{id}', 'invalid route path "/a/{id}/b/{id}": the parameter {id} appears twice'],
      ['/./admin/x', 'invalid route path "/./admin/x": a "." segment, which a request path resolves away'],
      ['/x/../admin', 'invalid route path "/x/../admin": a ".." segment, which a request path resolves away'],
      ['/a\\b', 'invalid route path "/a\\\\b": a backslash, which prefix matching reads as a slash'],
    ]
    for (const [path, message] of cases) {
      t.throws(() => parse_route(path), { code: ERR_APP_BAD_PATH.code, message }, path)
    }
  })
})

t.test('router_path', async (t) => {
  t.test('writes parameters as :name and keeps the wildcard', async (t) => {
    t.equal(router_path(parse_route('/')), '/')
    t.equal(router_path(parse_route('/users/{id}/*')), '/users/:id/*')
  })
})

t.test('join_path', async (t) => {
  t.test('joins a group prefix and a path', async (t) => {
    t.equal(join_path('', '/x'), '/x')
    t.equal(join_path('/', '/x'), '/x')
    t.equal(join_path('/api', '/health'), '/api/health')
    t.equal(join_path('/api', '/'), '/api')
  })

  t.test('drops the trailing slash of a group prefix (group("/api/") threw on its first route)', async (t) => {
    t.equal(join_path('/api/', '/health'), '/api/health')
    t.equal(join_path('/api/', '/'), '/api')
    t.equal(join_path('/api/v1/', '/users/{id}'), '/api/v1/users/{id}')
    t.same(parse_route(join_path('/api/', '/health')), parse_route('/api/health'))
  })
})

t.test('prefix_segments', async (t) => {
  t.test('lowercases whole segments and treats / as everything', async (t) => {
    t.same(prefix_segments('/API/Admin/'), ['api', 'admin'])
    t.same(prefix_segments('/'), [])
    t.same(prefix_segments(''), [])
  })

  t.test('rejects a prefix without a leading slash', async (t) => {
    t.throws(() => prefix_segments('api'), {
      code: 'FW_ERR_APP_BAD_PATH',
      message: 'invalid route path "api": a prefix must start with /',
    })
  })
})

t.test('classify', async (t) => {
  t.test('decides static routes at startup, case-insensitively', async (t) => {
    t.equal(classify(parse_route('/api/x'), ['api']), 'always')
    t.equal(classify(parse_route('/API/x'), ['api']), 'always')
    t.equal(classify(parse_route('/api'), ['api']), 'always')
    t.equal(classify(parse_route('/apix'), ['api']), 'never')
    t.equal(classify(parse_route('/'), ['api']), 'never')
    t.equal(classify(parse_route('/x'), []), 'always')
  })

  t.test('leaves parameters and wildcards where the prefix is to the request', async (t) => {
    t.equal(classify(parse_route('/{p}/x'), ['api']), 'maybe')
    t.equal(classify(parse_route('/*'), ['api', 'x']), 'maybe')
    t.equal(classify(parse_route('/api/*'), ['api']), 'always')
    t.equal(classify(parse_route('/other/*'), ['api']), 'never')
  })
})

t.test('canonical_segments', async (t) => {
  t.test(
    'decodes once, folds slashes and backslashes, resolves dot segments, lowercases and drops the query',
    async (t) => {
      t.same(canonical_segments('/%61pi/x'), ['api', 'x'])
      t.same(canonical_segments('//api//x/'), ['api', 'x'])
      t.same(canonical_segments('/x/../api/y'), ['api', 'y'])
      t.same(canonical_segments('/x/%2e%2e/api/./y'), ['api', 'y'])
      t.same(canonical_segments('/API%2fX'), ['api', 'x'])
      t.same(canonical_segments('/api%5cx'), ['api', 'x'])
      t.same(canonical_segments('/../../api?q=/x'), ['api'])
      t.same(canonical_segments('/%2561pi'), ['%61pi'])
    },
  )

  t.test(
    'reads the target as the router does: absolute form, a first character other than /, a fragment',
    async (t) => {
      t.same(canonical_segments('http://x/%2Fadmin/y'), ['admin', 'y'])
      t.same(canonical_segments('HTTPS://x:8443/admin?q=/..'), ['admin'])
      t.same(canonical_segments('http://x?/admin'), [])
      t.same(canonical_segments('http://x'), [])
      t.same(canonical_segments('*%2Fadmin/y'), ['admin', 'y'])
      t.same(canonical_segments('ftp://x/admin'), ['tp:', 'x', 'admin'])
      t.same(canonical_segments('/%2Fadmin/y#/../..'), ['admin', 'y'])
      t.same(canonical_segments('/admin#x?y'), ['admin'])
    },
  )

  t.test('keeps a malformed escape as sent', async (t) => {
    t.same(canonical_segments('/api/%zz'), ['api', '%zz'])
  })
})

t.test('under_prefix', async (t) => {
  t.test('matches whole segments only', async (t) => {
    t.equal(under_prefix(['api'], ['api']), true)
    t.equal(under_prefix(['api', 'x'], ['api']), true)
    t.equal(under_prefix(['apix'], ['api']), false)
    t.equal(under_prefix([], ['api']), false)
    t.equal(under_prefix(['anything'], []), true)
  })
})

t.test('routed_under', async (t) => {
  const params = (p: Record<string, string>) => ({ param: (name: string) => p[name] ?? '' })
  t.test('reads the path as the route matched it: dot segments stay segments', async (t) => {
    const route = parse_route('/{section}/{page}')
    t.ok(routed_under(route, ['admin'], params({ section: 'admin', page: '..' })), '/admin/.. has section admin')
    t.ok(routed_under(route, ['admin'], params({ section: 'ADMIN', page: 'x' })), 'case-insensitively')
    t.notOk(routed_under(route, ['admin'], params({ section: 'x', page: 'admin' })))
    t.notOk(routed_under(route, ['admin'], params({ section: 'admin?', page: 'x' })), 'a decoded ? is data')
    t.ok(routed_under(route, ['{any}', 'admin'], params({ section: '.', page: 'admin' })), 'a {name} prefix segment')
    t.notOk(routed_under(parse_route('/{section}'), ['admin', 'x'], params({ section: 'admin' })), 'too short')
  })
  t.test('splits the wildcard at slashes and backslashes', async (t) => {
    const route = parse_route('/files/*')
    t.ok(routed_under(route, ['files', 'admin'], params({ '*': 'admin/..' })))
    t.ok(routed_under(route, ['files', 'admin'], params({ '*': 'ADMIN\\x' })))
    t.ok(routed_under(route, ['files', 'admin'], params({ '*': '/admin' })), 'an empty segment first resolves away')
    t.notOk(routed_under(route, ['docs'], params({ '*': 'x' })), 'a static segment settles it')
  })
  t.test('also reads the path rebuilt from its parameters and resolved, as a handler resolving it would', async (t) => {
    const wild = parse_route('/{section}/x/*')
    t.ok(routed_under(wild, ['admin'], params({ section: 'v', '*': '../../admin/y' })))
    t.ok(routed_under(wild, ['admin'], params({ section: '.', '*': '../ADMIN' })))
    t.notOk(routed_under(wild, ['admin'], params({ section: 'v', '*': '../admin' })), '/v/admin')
    const three = parse_route('/{a}/{b}/{c}')
    t.ok(routed_under(three, ['admin'], params({ a: 'x', b: '..', c: 'admin' })))
    t.ok(routed_under(three, ['admin', 'y'], params({ a: '/', b: 'admin/y', c: 'z' })))
    t.notOk(routed_under(three, ['admin'], params({ a: 'x', b: 'y', c: 'admin' })), 'no parameter to resolve')
  })
})

t.test('intersect', async (t) => {
  const both = (a: string, b: string) => {
    const segs = intersect(parse_route(a), parse_route(b))
    return segs === undefined ? undefined : router_path(segs)
  }
  t.test('gives the paths two patterns share as one pattern, the more specific segment of each', async (t) => {
    t.equal(both('/a/{x}/c', '/a/b/{y}'), '/a/b/c')
    t.equal(both('/{x}/{y}', '/{z}/b'), '/:p0/b')
    t.equal(both('/users/{id}', '/users/me'), '/users/me')
    t.equal(both('/{p}/b/c/*', '/a/{q}/c/d'), '/a/b/c/d')
    t.equal(both('/files/*', '/{x}/a/{y}'), '/files/a/:p2')
    t.equal(both('/a/*', '/{x}/b/*'), '/a/b/*')
    t.equal(both('/*', '/*'), '/*')
  })
  t.test('names its parameters by position, so that names the two patterns share never clash', async (t) => {
    t.equal(both('/{x}/*', '/{y}/{x}'), '/:p0/:p1')
  })
  t.test('gives none when the patterns share no path', async (t) => {
    t.equal(both('/a/{x}', '/b/{y}'), undefined)
    t.equal(both('/a/{x}', '/a/{x}/c'), undefined)
    t.equal(both('/a/*', '/a'), undefined, 'a wildcard takes one segment at least')
    t.equal(both('/A/{x}', '/a/b'), undefined, 'static segments compare case-sensitively, as the router')
  })
})

t.test('router_order', async (t) => {
  const order = (a: string, b: string) => Math.sign(router_order(parse_route(a), parse_route(b)))
  t.equal(order('/a/b/{y}', '/a/{x}/c'), -1, 'a static segment first, at the first segment whose kinds differ')
  t.equal(order('/a/{x}/c', '/a/b/{y}'), 1)
  t.equal(order('/{x}/b/c', '/a/{y}/{z}'), 1, 'an earlier segment decides before a later one')
  t.equal(order('/a/{x}/*', '/a/*'), -1, 'a {name} before a wildcard')
  t.equal(order('/a/{x}', '/a/{y}'), 0, 'one shape')
})

t.test('params_through', async (t) => {
  const through = (general: string, specific: string, params: Record<string, string>) =>
    ({ ...params_through(parse_route(general), parse_route(specific))(params) }) as Record<string, string>
  t.same(through('/a/{x}/c', '/a/b/c', {}), { x: 'b' }, 'a static segment under a {name}')
  t.same(through('/a/{x}/{y}', '/a/{p1}/c', { p1: 'q' }), { x: 'q', y: 'c' }, 'a parameter renamed')
  t.same(through('/w/{x}/*', '/w/b/{y}', { y: 'z' }), { x: 'b', '*': 'z' }, 'the rest of the path as the wildcard')
  t.same(through('/w/*', '/w/b/{p2}/*', { p2: 'c', '*': 'd/e' }), { '*': 'b/c/d/e' })
  t.same(through('/{x}/b', '/a/b', { x: 'other' }), { x: 'a' }, 'only the names of the general pattern, from its own')
  t.same(Object.getPrototypeOf(params_through(parse_route('/{__proto__}'), parse_route('/a'))({})), null)
  t.equal(params_through(parse_route('/{__proto__}'), parse_route('/a'))({})['__proto__'], 'a', 'any name is kept')
})

t.test('origin_form', async (t) => {
  t.equal(origin_form('http://user:pass@example.com/users/1?page=2'), '/users/1?page=2')
  t.equal(origin_form('HTTPS://example.com:8443'), '/')
  t.equal(origin_form('http://example.com?q=1'), '/?q=1')
  t.equal(origin_form('http://example.com#f'), '/#f')
  const plain = '/users/1?page=2'
  t.equal(origin_form(plain), plain, 'an origin-form target as it is')
  t.equal(origin_form('*'), '*', 'and an asterisk-form one')
  t.equal(origin_form('example.com:443'), 'example.com:443', 'and an authority-form one')
})
