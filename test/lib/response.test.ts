import { join } from 'node:path'
import t from 'tap'
import type { CookieAttributes } from '../../lib/cookie.js'
import { json } from '../../lib/json.js'
import {
  CheckedHeaders,
  ERR_RESPONSE_BAD_HEADER,
  ERR_RESPONSE_BAD_STATUS,
  Response,
  is_unsafe_path,
} from '../../lib/response.js'
import { build, listening } from '../helpers/build.js'
import { raw } from '../helpers/http.js'

const INTERNAL = { ok: false, error: 'internal_error', message: 'Internal Server Error' }

t.test('Response.json', async (t) => {
  t.test('keeps the order of alternating key/value arguments and nests json.o and json.array', async (t) => {
    const res = new Response().json('z', 1, 'a', json.o('id', 7, 'tags', json.array('x', 'y')), 'm', null)
    t.equal(res.body_text(), '{"z":1,"a":{"id":7,"tags":["x","y"]},"m":null}')
    t.equal(res.get_header('content-type'), 'application/json; charset=utf-8')
    t.equal(res.kind, 'json')
    t.equal(res.is_sent(), true)
  })

  t.test('sends a single value as it is, and no arguments as an empty object', async (t) => {
    t.equal(new Response().json('a').body_text(), '"a"')
    t.equal(new Response().json({ ok: true, n: [1] }).body_text(), '{"ok":true,"n":[1]}')
    t.equal(new Response().json(json.array(1, 'b')).body_text(), '[1,"b"]')
    t.equal(new Response().json(undefined).body_text(), 'null')
    t.equal(new Response().json().body_text(), '{}')
  })

  t.test(
    'keeps a JSON content type set before it (application/json or a +json suffix) and replaces any other',
    async (t) => {
      const type_after = (type: string) =>
        new Response().header('Content-Type', type).json('ok', true).get_header('content-type')
      const kept = [
        'application/problem+json',
        'application/vnd.api+json',
        'application/merge-patch+json',
        'application/json',
        'Application/JSON; charset=utf-8',
        'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
        'application/problem+json ;charset=utf-8',
      ]
      for (const type of kept) t.equal(type_after(type), type, type)
      const replaced = ['text/html', 'text/plain; charset=utf-8', 'application/jsonx', 'application/json-seq']
      for (const type of [
        ...replaced,
        'application/+json',
        'application/x+jsonp',
        'json',
        'application/json, text/html',
      ])
        t.equal(type_after(type), 'application/json; charset=utf-8', type)
      t.equal(new Response().json(1).get_header('content-type'), 'application/json; charset=utf-8')
    },
  )

  t.test("error() answers fw's application/json even under a JSON type set before it", async (t) => {
    const res = new Response().header('content-type', 'application/vnd.api+json').error(404, 'not_found', 'Not found')
    t.equal(res.get_header('content-type'), 'application/json; charset=utf-8')
  })

  t.test('makes an odd count or a non-string key a type error and a coded error at run time', async (t) => {
    // @ts-expect-error the value of the last key is missing
    t.throws(() => new Response().json('k', 1, 'odd'), { code: 'FW_ERR_JSON_ODD_PAIRS' })
    // @ts-expect-error keys are strings
    t.throws(() => new Response().json(1, 2), { code: 'FW_ERR_JSON_BAD_KEY' })
  })
})

t.test('Response.error', async (t) => {
  t.test('sends {ok:false,error,message} with three arguments', async (t) => {
    const res = new Response().error(404, 'user_not_found', 'User not found')
    t.equal(res.status_code, 404)
    t.equal(res.body_text(), '{"ok":false,"error":"user_not_found","message":"User not found"}')
  })

  t.test('sends {ok:false,error} with two arguments, and details with four', async (t) => {
    t.equal(new Response().error(403, 'admin role required').body_text(), '{"ok":false,"error":"admin role required"}')
    const res = new Response().error(400, 'validation_failed', 'bad', [{ field: 'name' }])
    t.equal(res.body_text(), '{"ok":false,"error":"validation_failed","message":"bad","details":[{"field":"name"}]}')
  })
})

t.test('Response.status', async (t) => {
  t.test('chains and rejects codes outside 200-599', async (t) => {
    const res = new Response()
    t.equal(res.status(201), res)
    t.equal(res.status(201).json('ok', true).status_code, 201)
    for (const bad of [99, 600, 200.5, Number.NaN]) {
      t.throws(() => res.status(bad), {
        code: ERR_RESPONSE_BAD_STATUS.code,
        message: `status must be an integer from 200 to 599; got ${bad}`,
      })
    }
    t.equal(res.status_code, 201)
  })

  t.test('rejects 1xx: an informational status is no final answer, which the App would never send', async (t) => {
    const res = new Response().status(201)
    for (const informational of [100, 101, 103, 199]) {
      t.throws(() => res.status(informational), {
        code: ERR_RESPONSE_BAD_STATUS.code,
        message: `status must be an integer from 200 to 599; got ${informational}`,
      })
      t.throws(() => new Response().error(informational, 'x', 'y'), { code: ERR_RESPONSE_BAD_STATUS.code })
    }
    t.equal(res.status(200).status_code, 200)
    t.equal(res.status_code, 200)
  })

  t.test('a handler setting a 1xx status gets a 500, not an answer without a final status', async (t) => {
    const { port } = await listening(t, (app) => app.get('/early', (_req, res) => void res.status(103).text('x')), {
      logger: { level: 'off' },
    })
    const r = await raw(port, 'GET /early HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    t.same([r.status, JSON.parse(r.body)], [500, INTERNAL])
  })

  t.test('status_code, kind and payload cannot be written around status() and the body calls', async (t) => {
    const res = new Response().status(201).text('hi')
    const loose = res as unknown as Record<string, unknown>
    t.throws(() => (loose.status_code = 999), TypeError)
    t.throws(() => (loose.kind = 'file'), TypeError)
    t.throws(() => (loose.payload = '/etc/passwd'), TypeError)
    t.same([res.status_code, res.kind, res.payload], [201, 'text', 'hi'])
  })
})

t.test('Response.replace_payload', async (t) => {
  t.test('replaces a buffered body and keeps its kind and headers', async (t) => {
    const res = new Response().json('ok', true).replace_payload(Buffer.from('zz'))
    t.same(
      [res.kind, res.payload, res.get_header('content-type')],
      ['json', Buffer.from('zz'), 'application/json; charset=utf-8'],
    )
  })

  t.test('leaves a response without a buffered body as it is', async (t) => {
    t.same([new Response().replace_payload('x').kind, new Response().replace_payload('x').payload], ['none', undefined])
    t.equal(new Response().file('a.txt').replace_payload('x').payload, 'a.txt')
  })
})

t.test('Response.header', async (t) => {
  t.test('sets, reads, replaces and removes headers by lowercase name', async (t) => {
    const res = new Response().header('X-Thing', 'a').header('x-thing', 'b').header('X-Count', 3)
    t.equal(res.get_header('X-THING'), 'b')
    t.same(res.headers(), { 'x-thing': 'b', 'x-count': '3' })
    res.remove_header('X-Thing')
    t.equal(res.get_header('x-thing'), undefined)
  })

  t.test('finds no header in Object.prototype (get_header threw a TypeError)', async (t) => {
    const res = new Response()
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty']
    t.same(
      names.map((n) => res.get_header(n)),
      [undefined, undefined, undefined, undefined],
    )
    res.header('constructor', 'b')
    t.equal(res.get_header('Constructor'), 'b')
    t.equal(res.reset().get_header('constructor'), undefined)
    const app = build(t, (app) =>
      app.get('/proto', (_req, res) => void res.json('v', res.get_header('constructor') ?? null)),
    )
    const r = await app.inject({ url: '/proto' })
    t.same([r.statusCode, r.json()], [200, { v: null }])
  })

  t.test('accumulates Set-Cookie', async (t) => {
    const res = new Response().header('Set-Cookie', 'a=1').header('set-cookie', 'b=2')
    t.same(res.headers()['set-cookie'], ['a=1', 'b=2'])
    t.equal(res.get_header('Set-Cookie'), 'a=1, b=2')
  })

  t.test('merges Vary: case-insensitive, each name once, in order, and * wins', async (t) => {
    const vary = (...values: string[]) =>
      values.reduce((res, v) => res.header('Vary', v), new Response()).get_header('vary')
    t.equal(vary('Origin'), 'Origin')
    // A first value is merged as any other: trimmed, split, deduplicated, and * wins.
    t.equal(vary(' Origin '), 'Origin')
    t.equal(vary('Origin,Accept , origin'), 'Origin, Accept')
    t.equal(vary(' , '), '')
    t.equal(vary(''), '')
    t.equal(vary('*'), '*')
    t.equal(vary('Origin, *'), '*')
    t.equal(vary('Origin', 'Accept-Language'), 'Origin, Accept-Language')
    t.equal(vary('Origin', 'origin, ACCEPT-ENCODING', 'accept-encoding'), 'Origin, ACCEPT-ENCODING')
    t.equal(vary('Origin', ' , Accept ,, '), 'Origin, Accept')
    t.equal(vary('Origin', '*'), '*')
    t.equal(vary('*', 'Origin'), '*')
    t.equal(vary('Origin', 'Accept, *'), '*')
    const replaced = new Response().header('Vary', 'Origin').remove_header('vary').header('Vary', 'Accept')
    t.equal(replaced.get_header('vary'), 'Accept')
  })

  t.test('rejects CR, LF and NUL in values and non-token names', async (t) => {
    const res = new Response()
    for (const [name, value] of [
      ['x-a', 'a\r\nSet-Cookie: evil=1'],
      ['x-a', 'a\nb'],
      ['x-a', 'a\rb'],
      ['x-a', 'a\0b'],
      ['bad name', 'v'],
      ['x:y', 'v'],
      ['', 'v'],
    ]) {
      t.throws(() => res.header(name!, value!), {
        code: ERR_RESPONSE_BAD_HEADER.code,
        message: `response header ${JSON.stringify(name)} has an invalid name or a value with CR, LF or NUL`,
      })
    }
    t.same(res.headers(), {})
  })

  t.test(
    'rejects a value byte Node cannot write (a control byte, a character above U+00FF) where it is set',
    async (t) => {
      for (const value of ['attachment; filename="日本.txt"', 'a\x01b', 'a\x7fb']) {
        t.throws(() => new Response().header('x-a', value), { code: ERR_RESPONSE_BAD_HEADER.code })
      }
      t.equal(new Response().header('x-a', 'caf\u00e9\tok').get_header('x-a'), 'caf\u00e9\tok')
      // Set from input by a handler, it answers fw's 500, not the host's error naming ERR_INVALID_CHAR.
      const app = build(t, (app) =>
        app.get(
          '/dl',
          (_req, res) => void res.header('content-disposition', 'attachment; filename="日本.txt"').text('x'),
        ),
      )
      const r = await app.inject({ url: '/dl' })
      t.equal(r.statusCode, 500)
      t.same(r.json(), INTERNAL)
    },
  )

  t.test('a CheckedHeaders list sets what header() would, pair by pair, and is checked when made', async (t) => {
    const pairs: Array<[string, string | number]> = [
      ['X-Frame-Options', 'DENY'],
      ['Vary', 'Accept-Encoding'],
      ['Set-Cookie', 'a=1'],
      ['Content-Length', 12],
      ['set-cookie', 'b=2'],
    ]
    const list = new CheckedHeaders(pairs)
    const by_header = pairs.reduce((res, [n, v]) => res.header(n, v), new Response().header('Vary', 'Origin'))
    const by_list = new Response().header('Vary', 'Origin').checked_headers(list)
    t.same(by_list.headers(), by_header.headers())
    t.same(Object.keys(by_list.headers()), ['vary', 'x-frame-options', 'set-cookie', 'content-length'])
    t.same(by_list.headers()['set-cookie'], ['a=1', 'b=2'])
    t.equal(by_list.get_header('vary'), 'Origin, Accept-Encoding')
    // Set on every response: a second response starts from its own headers, and the list is not changed.
    t.same(new Response().checked_headers(list).headers()['set-cookie'], ['a=1', 'b=2'])
    t.ok(Object.isFrozen(list.names) && Object.isFrozen(list.values))
    for (const bad of [
      ['x-a', 'a\r\nSet-Cookie: evil=1'],
      ['bad name', 'v'],
    ] as const)
      t.throws(() => new CheckedHeaders([bad]), {
        code: ERR_RESPONSE_BAD_HEADER.code,
        message: `response header ${JSON.stringify(bad[0])} has an invalid name or a value with CR, LF or NUL`,
      })
  })
})

t.test('Response.cookie', async (t) => {
  t.test('adds one Set-Cookie line per call with the attributes given', async (t) => {
    const res = new Response()
      .cookie('sid', 'a.b', { path: '/', max_age: 60, http_only: true, secure: true, same_site: 'Strict' })
      .cookie('theme', 'dark')
    t.same(res.headers()['set-cookie'], [
      'sid=a.b; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Strict',
      'theme=dark',
    ])
  })

  t.test('writes every attribute and percent-encodes a value outside the cookie grammar', async (t) => {
    const expires = new Date(Date.UTC(2030, 0, 2))
    const res = new Response().cookie('n', 'a b;c', {
      domain: 'example.com',
      expires,
      same_site: 'None',
      secure: true,
      partitioned: true,
    })
    t.equal(
      res.get_header('set-cookie'),
      'n=a%20b%3Bc; Domain=example.com; Expires=Wed, 02 Jan 2030 00:00:00 GMT; Secure; Partitioned; SameSite=None',
    )
  })

  t.test('throws FW_ERR_RESPONSE_BAD_COOKIE for a name or attribute that would break the line', async (t) => {
    t.throws(() => new Response().cookie('a b', 'x'), {
      code: 'FW_ERR_RESPONSE_BAD_COOKIE',
      message: 'res.cookie("a b") cannot be written: cookie name is invalid: a b',
    })
    t.throws(() => new Response().cookie('a', 'x', { path: '/a;b' }), {
      code: 'FW_ERR_RESPONSE_BAD_COOKIE',
      message: 'res.cookie("a") cannot be written: cookie path is invalid: /a;b',
    })
    t.throws(() => new Response().cookie('a', 'x', { max_age: 1.5 }), { code: 'FW_ERR_RESPONSE_BAD_COOKIE' })
    t.throws(() => new Response().cookie('a', 'x', { domain: 'a\r\nb' }), { code: 'FW_ERR_RESPONSE_BAD_COOKIE' })
  })

  t.test(
    'throws FW_ERR_RESPONSE_BAD_COOKIE for a cookie browsers reject (RFC 6265bis prefixes, SameSite=None)',
    async (t) => {
      const refused: Array<[string, CookieAttributes, string]> = [
        ['__Secure-id', {}, 'a __Secure- cookie needs secure: true'],
        ['__secure-id', { path: '/' }, 'a __Secure- cookie needs secure: true'],
        ['__Host-sid', { path: '/' }, 'a __Host- cookie needs secure: true, path "/" and no domain'],
        ['__Host-sid', { secure: true }, 'a __Host- cookie needs secure: true, path "/" and no domain'],
        ['__HOST-sid', { secure: true, path: '/x' }, 'a __Host- cookie needs secure: true, path "/" and no domain'],
        [
          '__Host-sid',
          { secure: true, path: '/', domain: 'example.com' },
          'a __Host- cookie needs secure: true, path "/" and no domain',
        ],
        ['a', { same_site: 'None' }, 'same_site None needs secure: true'],
      ]
      for (const [name, attributes, reason] of refused) {
        t.throws(() => new Response().cookie(name, 'v', attributes), {
          code: 'FW_ERR_RESPONSE_BAD_COOKIE',
          message: `res.cookie(${JSON.stringify(name)}) cannot be written: ${reason}`,
        })
      }
      const res = new Response()
        .cookie('__Secure-id', 'v', { secure: true })
        .cookie('__Host-sid', 'v', { secure: true, path: '/' })
        .cookie('a', 'v', { same_site: 'None', secure: true })
        .cookie('__Hosted', 'v')
      t.same(res.headers()['set-cookie'], [
        '__Secure-id=v; Secure',
        '__Host-sid=v; Path=/; Secure',
        'a=v; Secure; SameSite=None',
        '__Hosted=v',
      ])
    },
  )

  t.test(
    'throws FW_ERR_RESPONSE_BAD_COOKIE for a same_site other than Strict, Lax or None, never drops it',
    async (t) => {
      // From JavaScript or configuration: a SameSite silently left out gives the browser's default instead.
      for (const same_site of ['lax', 'none', 'bogus', 'constructor']) {
        t.throws(() => new Response().cookie('a', 'x', { same_site } as never), {
          code: 'FW_ERR_RESPONSE_BAD_COOKIE',
          message: `res.cookie("a") cannot be written: cookie sameSite is invalid: ${same_site}`,
        })
      }
    },
  )
})

t.test('Response.send', async (t) => {
  t.test('picks text/plain for strings and octet-stream for buffers unless a content type is set', async (t) => {
    t.equal(new Response().send('hi').get_header('content-type'), 'text/plain; charset=utf-8')
    const buf = new Response().send(Buffer.from('hi'))
    t.equal(buf.get_header('content-type'), 'application/octet-stream')
    t.equal(buf.body_text(), 'hi')
    t.equal(new Response().header('Content-Type', 'text/csv').send('a,b').get_header('content-type'), 'text/csv')
    const empty = new Response().send()
    t.equal(empty.kind, 'send')
    t.equal(empty.get_header('content-type'), undefined)
    t.equal(
      new Response().header('Content-Type', 'text/csv').text('x').get_header('content-type'),
      'text/plain; charset=utf-8',
    )
  })

  t.test('reset clears status, headers and body', async (t) => {
    const res = new Response().status(201).header('x-a', '1').text('x').reset()
    t.same(
      [res.status_code, res.kind, res.payload, res.headers(), res.is_sent(), res.body_text()],
      [200, 'none', undefined, {}, false, ''],
    )
  })
})

t.test('Response.file', async (t) => {
  t.test('refuses paths with a .. segment or a NUL byte with 400 bad_path, dropping the Cache-Control', async (t) => {
    for (const p of ['../etc/passwd', 'a/../../b', 'a\\..\\b', 'a\0b', '']) {
      const res = new Response().header('Cache-Control', 'public, max-age=60').file(p)
      t.equal(res.status_code, 400, JSON.stringify(p))
      t.equal(res.get_header('cache-control'), undefined)
      t.equal(res.body_text(), '{"ok":false,"error":"bad_path","message":"Invalid file path"}')
      t.equal(is_unsafe_path(p), true)
    }
    t.equal(is_unsafe_path('a/..b/c..'), false)
  })
})

t.test('Response over HTTP', async (t) => {
  const dir = t.testdir({ 'note.txt': 'file body', 'page.html': '<p>hi</p>' })
  const app = build(t, (app) => {
    app.get(
      '/cookies',
      (_req, res) => void res.header('Set-Cookie', 'a=1; Path=/').header('Set-Cookie', 'b=2; HttpOnly').text('ok'),
    )
    app.get('/inject', (_req, res) => {
      res.header('x-injected', 'a\r\nSet-Cookie: evil=1')
      res.text('never')
    })
    app.get(
      '/problem',
      (_req, res) =>
        void res
          .status(409)
          .header('content-type', 'application/problem+json')
          .json('type', 'about:blank', 'title', 'Conflict'),
    )
    app.get('/problem-then-throw', (_req, res) => {
      res.header('content-type', 'application/vnd.api+json').json('data', null)
      throw new Error('after the body')
    })
    app.get('/text', (_req, res) => void res.status(202).text('plain'))
    app.get('/buf', (_req, res) => void res.send(Buffer.from([0, 1, 2])))
    app.get('/nothing', (_req, res) => void res.status(204))
    app.get(
      '/file/{name}',
      (req, res) => void res.header('Cache-Control', 'public, max-age=60').file(join(dir, req.param('name'))),
    )
    app.get('/plain-file', (_req, res) => void res.file(join(dir, 'note.txt')))
    app.get('/created-file', (_req, res) => void res.status(201).file(join(dir, 'note.txt')))
    app.get('/page', (_req, res) => void res.file(join(dir, 'page.html')))
    app.get('/missing-page', (_req, res) => void res.status(404).file(join(dir, 'page.html')))
  })
  const get = (url: string) => app.inject({ method: 'GET', url })

  t.test(
    'sends a +json content type the handler set before json(); a failure after it answers application/json',
    async (t) => {
      const r = await get('/problem')
      t.same(
        [r.statusCode, r.headers['content-type'], r.json()],
        // Fastify adds the charset to a string body's JSON type that has none.
        [409, 'application/problem+json; charset=utf-8', { type: 'about:blank', title: 'Conflict' }],
      )
      const failed = await get('/problem-then-throw')
      t.same(
        [failed.statusCode, failed.headers['content-type'], failed.json()],
        [500, 'application/json; charset=utf-8', INTERNAL],
      )
    },
  )

  t.test('sends each Set-Cookie as its own header', async (t) => {
    const r = await get('/cookies')
    t.same(r.headers['set-cookie'], ['a=1; Path=/', 'b=2; HttpOnly'])
    t.equal(r.body, 'ok')
  })

  t.test(
    'answers 500 internal_error when a handler sets a header with CR/LF, without the injected header',
    async (t) => {
      const r = await get('/inject')
      t.equal(r.statusCode, 500)
      t.same(r.json(), INTERNAL)
      t.equal(r.headers['x-injected'], undefined)
      t.equal(r.headers['set-cookie'], undefined)
    },
  )

  t.test('sends text, buffers and empty bodies with their content types', async (t) => {
    const text = await get('/text')
    t.same([text.statusCode, text.headers['content-type'], text.body], [202, 'text/plain; charset=utf-8', 'plain'])
    const buf = await get('/buf')
    t.same([buf.headers['content-type'], [...buf.rawPayload]], ['application/octet-stream', [0, 1, 2]])
    const none = await get('/nothing')
    t.same([none.statusCode, none.body], [204, ''])
  })

  t.test('streams a file with its content type and the handler Cache-Control', async (t) => {
    const r = await get('/file/note.txt')
    t.same(
      [r.statusCode, r.body, r.headers['content-type'], r.headers['cache-control']],
      [200, 'file body', 'text/plain; charset=utf-8', 'public, max-age=60'],
    )
    const html = await get('/file/page.html')
    t.equal(html.headers['content-type'], 'text/html; charset=utf-8')
  })

  t.test(
    'a file without a Cache-Control from the handler gets public, max-age=0, its ETag and Last-Modified',
    async (t) => {
      const r = await get('/plain-file')
      t.same([r.statusCode, r.body, r.headers['cache-control']], [200, 'file body', 'public, max-age=0'])
      t.match(r.headers.etag, /^W\/"/)
      t.ok(Number.isFinite(Date.parse(String(r.headers['last-modified']))), String(r.headers['last-modified']))
      t.equal(r.headers['accept-ranges'], 'bytes')
    },
  )

  t.test('a conditional GET with the ETag answers 304 with no body', async (t) => {
    const etag = (await get('/plain-file')).headers.etag as string
    const r = await app.inject({ url: '/plain-file', headers: { 'if-none-match': etag } })
    t.same([r.statusCode, r.body], [304, ''])
    const other = await app.inject({ url: '/plain-file', headers: { 'if-none-match': 'W/"other"' } })
    t.same([other.statusCode, other.body], [200, 'file body'])
    const failed = await app.inject({ url: '/plain-file', headers: { 'if-match': '"other"' } })
    t.same(
      [failed.statusCode, failed.json()],
      [412, { ok: false, error: 'precondition_failed', message: 'Precondition failed' }],
    )
  })

  t.test(
    'a Range answers 206 with the slice; one past the end answers 416 with the length in Content-Range',
    async (t) => {
      const r = await app.inject({ url: '/plain-file', headers: { range: 'bytes=5-8' } })
      t.same([r.statusCode, r.body, r.headers['content-range']], [206, 'body', 'bytes 5-8/9'])
      const past = await app.inject({ url: '/plain-file', headers: { range: 'bytes=50-60' } })
      t.same(
        [past.statusCode, past.headers['content-range'], past.json()],
        [416, 'bytes */9', { ok: false, error: 'range_not_satisfiable', message: 'Range not satisfiable' }],
      )
    },
  )

  t.test('HEAD on a file sends its length and no body', async (t) => {
    const r = await app.inject({ method: 'HEAD', url: '/plain-file' })
    t.same([r.statusCode, r.body, r.headers['content-length']], [200, '', '9'])
  })

  t.test("a status the handler set is kept for the file's answer", async (t) => {
    const r = await get('/created-file')
    t.same([r.statusCode, r.body], [201, 'file body'])
  })

  t.test(
    'a file under a status the handler set is sent whole: conditional and Range headers do not apply',
    async (t) => {
      const etag = String((await get('/page')).headers.etag)
      const later = new Date(Date.now() + 86_400_000).toUTCString()
      const cases: Array<Record<string, string>> = [
        {},
        { 'if-none-match': etag },
        { 'if-none-match': '*' },
        { 'if-modified-since': later },
        { 'if-match': '"other"' },
        { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
        { range: 'bytes=0-3' },
        { range: 'bytes=50-60' },
        { range: 'bytes=0-3', 'if-range': etag },
      ]
      for (const headers of cases) {
        const r = await app.inject({ url: '/missing-page', headers })
        t.same(
          [r.statusCode, r.body, r.headers['content-length'], r.headers['content-type']],
          [404, '<p>hi</p>', '9', 'text/html; charset=utf-8'],
          JSON.stringify(headers),
        )
        t.same(
          [r.headers['content-range'], r.headers['accept-ranges'], r.headers.etag, r.headers['last-modified']],
          [undefined, undefined, undefined, undefined],
          'no validators or ranges that this answer would not honour',
        )
      }
    },
  )

  t.test('answers 404 not_found for a missing file, without the Cache-Control', async (t) => {
    const r = await get('/file/missing.txt')
    t.equal(r.statusCode, 404)
    t.same(r.json(), { ok: false, error: 'not_found', message: 'File not found' })
    t.equal(r.headers['cache-control'], undefined)
  })

  t.test('a 412 or 416 error answer does not keep the Cache-Control meant for the file', async (t) => {
    const failed = await app.inject({ url: '/file/note.txt', headers: { 'if-match': '"other"' } })
    t.same(
      [failed.statusCode, failed.headers['cache-control'], failed.json()],
      [412, undefined, { ok: false, error: 'precondition_failed', message: 'Precondition failed' }],
    )
    const past = await app.inject({ url: '/file/note.txt', headers: { range: 'bytes=50-60' } })
    t.same(
      [past.statusCode, past.headers['cache-control'], past.headers['content-range'], past.json()],
      [416, undefined, 'bytes */9', { ok: false, error: 'range_not_satisfiable', message: 'Range not satisfiable' }],
    )
    // A 304 stands for the file itself: it keeps the Cache-Control (RFC 9110 15.4.5).
    const etag = String((await get('/file/note.txt')).headers.etag)
    const same = await app.inject({ url: '/file/note.txt', headers: { 'if-none-match': etag } })
    t.same([same.statusCode, same.headers['cache-control']], [304, 'public, max-age=60'])
  })

  t.test('answers 404 for a folder', async (t) => {
    const r = await app.inject({ url: '/file/%2E' })
    t.equal(r.statusCode, 404)
  })
})

t.test('Response.stream and Response.sse', async (t) => {
  const { Response } = await import('../../lib/response.js')

  t.test('refuse a source or producer of the wrong kind, and a bad heartbeat', async (t) => {
    t.throws(() => new Response().stream('text' as never), { code: 'FW_ERR_STREAM_BAD_SOURCE' })
    t.throws(() => new Response().stream(null as never), { code: 'FW_ERR_STREAM_BAD_SOURCE' })
    t.throws(() => new Response().sse('x' as never), { code: 'FW_ERR_RESPONSE_BAD_STREAM' })
    t.throws(() => new Response().sse(() => undefined, { heartbeat_ms: -1 }), { code: 'FW_ERR_RESPONSE_BAD_STREAM' })
  })

  t.test('an error answer after res.stream() lets the source go', async (t) => {
    const { Readable } = await import('node:stream')
    const source = Readable.from(['x'])
    const res = new Response().stream(source)
    t.same([res.kind, res.is_sent(), res.body_text()], ['stream', true, ''])
    res.error(500, 'internal_error', 'Internal Server Error')
    t.same([res.kind, res.streamed, source.destroyed], ['json', undefined, true])
  })
})
