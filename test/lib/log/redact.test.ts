import t from 'tap'
import { REDACTED, SECRET_HEADERS, SECRET_QUERY, redact_headers, redact_query } from '../../../lib/log/redact.js'
import { build } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'
import { parse_kv } from './capture.js'

/** The common query parameters that carry a secret: OAuth tokens and codes, passwords, API keys, URL signatures. */
const COMMON_SECRETS = [
  'api_key',
  'access_token',
  'token',
  'refresh_token',
  'id_token',
  'client_secret',
  'password',
  'secret',
  'signature',
  'sig',
  'code',
  'key',
  'apikey',
  'X-Amz-Signature',
  'X-Goog-Signature',
]

t.test('redact_headers', async (t) => {
  t.test('hides credentials and cookies in a copy, leaving other headers and the original alone', async (t) => {
    const headers = {
      authorization: 'Bearer abc',
      cookie: 'sid=1',
      'set-cookie': ['a=1', 'b=2'],
      'x-api-key': 'k-123',
      'proxy-authorization': 'Basic eA==',
      accept: 'application/json',
      'content-length': '12',
      'x-missing': undefined,
    }
    const copy = redact_headers(headers)
    t.same(copy, {
      authorization: '[redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
      'x-api-key': '[redacted]',
      'proxy-authorization': '[redacted]',
      accept: 'application/json',
      'content-length': '12',
      'x-missing': undefined,
    })
    t.equal(headers.authorization, 'Bearer abc')
    t.not(copy, headers)
    t.equal(REDACTED, '[redacted]')
    t.same(SECRET_HEADERS, ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'])
  })

  t.test('matches header names in any case and leaves a header without a value out of it', async (t) => {
    t.same(redact_headers({ Authorization: 'x', 'X-API-KEY': 'y', Cookie: undefined }), {
      Authorization: '[redacted]',
      'X-API-KEY': '[redacted]',
      Cookie: undefined,
    })
  })

  t.test('hides the headers it is told to instead', async (t) => {
    t.same(redact_headers({ authorization: 'x', 'x-token': 'y' }, ['X-Token']), {
      authorization: 'x',
      'x-token': '[redacted]',
    })
  })
})

t.test('redact_query', async (t) => {
  t.test('hides api_key in a parsed query', async (t) => {
    const query = { api_key: 's3cr3t', page: '2', tags: ['a', 'b'] }
    t.same(redact_query(query), { api_key: '[redacted]', page: '2', tags: ['a', 'b'] })
    t.equal(query.api_key, 's3cr3t')
  })

  t.test('hides api_key in a query string or a URL and keeps the rest as written', async (t) => {
    t.equal(redact_query('/items?api_key=s3cr3t&page=2'), '/items?api_key=[redacted]&page=2')
    t.equal(redact_query('api_key=a&API_KEY=b&x=%20'), 'api_key=[redacted]&API_KEY=[redacted]&x=%20')
    t.equal(redact_query('?q=1&api%5Fkey=s3cr3t'), '?q=1&api%5Fkey=[redacted]')
    t.equal(redact_query('/items'), '/items')
    t.equal(redact_query('/items?api_key&bad=%E0%A4%A'), '/items?api_key&bad=%E0%A4%A')
  })

  t.test(
    'finds a secret name however a query without escapes spells its case, and one written with + or %',
    async (t) => {
      t.equal(redact_query('/items?page=2&Access_Token=t'), '/items?page=2&Access_Token=[redacted]')
      t.equal(redact_query('/items?fields=name,email'), '/items?fields=name,email')
      t.equal(redact_query('/x?api+key=1', ['api key']), '/x?api+key=[redacted]')
      t.equal(redact_query('/x?%61pi_key=1'), '/x?%61pi_key=[redacted]')
    },
  )

  t.test('hides the common secret-bearing parameters by default, in any case, and no others', async (t) => {
    for (const name of COMMON_SECRETS) {
      t.equal(redact_query(`/x?${name}=s3cr3t&page=2`), `/x?${name}=[redacted]&page=2`, name)
      t.equal(redact_query(`/x?${name.toUpperCase()}=s3cr3t`), `/x?${name.toUpperCase()}=[redacted]`, name)
      t.same(redact_query({ [name]: 's3cr3t', page: '2' }), { [name]: '[redacted]', page: '2' }, name)
    }
    t.same(
      SECRET_QUERY.map((n) => n.toLowerCase()),
      SECRET_QUERY,
      'SECRET_QUERY is written lowercase, as an App keeps names',
    )
    t.equal(redact_query('/x?keyword=k&codec=h264&state=s'), '/x?keyword=k&codec=h264&state=s', 'names, not parts')
  })

  t.test('hides the parameters it is told to instead', async (t) => {
    t.equal(redact_query('/cb?code=c&password=p&state=s', ['state']), '/cb?code=c&password=p&state=[redacted]')
    t.equal(
      redact_query('/cb?token=t&code=c&state=s', ['token', 'code']),
      '/cb?token=[redacted]&code=[redacted]&state=s',
    )
    t.same(redact_query({ token: 't', api_key: 'k' }, ['token']), { token: '[redacted]', api_key: 'k' })
  })

  t.test('copies a parameter named __proto__ as a key, leaving the copy an ordinary object', async (t) => {
    // fast-querystring (Fastify's parser), like node:querystring, makes `?__proto__=a&__proto__=b&api_key=k` into this null-prototype object.
    const query: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>
    query['__proto__'] = ['a', 'b']
    query.api_key = 'k'
    const copy = redact_query(query)
    t.same(Object.entries(copy), [
      ['__proto__', ['a', 'b']],
      ['api_key', '[redacted]'],
    ])
    t.equal(Object.getPrototypeOf(copy), Object.prototype)
    t.equal(JSON.stringify(copy), '{"__proto__":["a","b"],"api_key":"[redacted]"}')
  })
})

t.test('SECRET_QUERY in an App access line', async (t) => {
  t.test('hides each common secret-bearing parameter in the access line by default', async (t) => {
    const out = capture_log(t)
    const app = build(t, (app) => app.get('/cb', (_req, res) => void res.send()), { access_log: 'info' })
    for (const name of COMMON_SECRETS) await app.inject(`/cb?${name}=s3cr3t&page=2`)
    const paths = out.lines().map((line) => new Map(parse_kv(line).pairs).get('path'))
    t.same(
      paths,
      COMMON_SECRETS.map((name) => `/cb?${name}=[redacted]&page=2`),
    )
    t.notOk(out.text().includes('s3cr3t'))
  })
})
