import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import { Identity } from '../../../../lib/identity.js'
import { api_key, type ApiKeyOptions } from '../../../../lib/middleware/auth/api-key.js'
import { ApiKey } from '../../../../lib/middleware/auth/state.js'
import { build, error_body, throws_coded } from './build.js'

const KEY = 'k-0123456789abcdef'

function with_key(t: Test, options: ApiKeyOptions = { allowed_keys: [KEY] }) {
  return build(t, [api_key(options)], (req) => ({ key: req.state(ApiKey)?.value ?? null }))
}

const MISSING = error_body('missing_api_key', 'API key required')
const INVALID = error_body('invalid_api_key', 'Invalid API key')

t.test('api_key', async (t) => {
  t.test('accepts an allowed key in x-api-key and stores ApiKey', async (t) => {
    const { app, calls } = with_key(t)
    const r = await app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, key: KEY })
    t.equal(calls.n, 1)
  })

  t.test('answers 401 missing_api_key without a key', async (t) => {
    const { app, calls } = with_key(t)
    const r = await app.inject({ url: '/p' })
    t.equal(r.statusCode, 401)
    t.same(r.json(), MISSING)
    t.equal(calls.n, 0)
  })

  t.test('answers 401 missing_api_key with a challenge naming where it reads the key (RFC 9110 15.5.2)', async (t) => {
    const challenge = async (options: ApiKeyOptions, headers: Record<string, string> = {}) => {
      const r = await with_key(t, { allowed_keys: [KEY], ...options }).app.inject({ url: '/p', headers })
      return [r.statusCode, r.json().error, r.headers['www-authenticate']]
    }
    t.same(await challenge({}), [401, 'missing_api_key', 'ApiKey header="x-api-key"'])
    t.same(await challenge({}, { 'x-api-key': '' }), [401, 'missing_api_key', 'ApiKey header="x-api-key"'])
    t.same(await challenge({ header: 'X-Partner-Key' }), [401, 'missing_api_key', 'ApiKey header="X-Partner-Key"'])
    t.same(await challenge({ query_param: 'api_key' }), [
      401,
      'missing_api_key',
      'ApiKey header="x-api-key", query="api_key"',
    ])
    t.same(
      await challenge({ query_param: 'k"\\ é' }),
      [401, 'missing_api_key', 'ApiKey header="x-api-key", query="k\\"\\\\ é"'],
      'a quoted-string: quote and backslash escaped',
    )
    t.same(
      await challenge({ query_param: 'ключ\n' }),
      [401, 'missing_api_key', 'ApiKey header="x-api-key", query="%D0%BA%D0%BB%D1%8E%D1%87%0A"'],
      'a name no header can carry is given as a URL carries it',
    )
    const { app } = with_key(t, { allowed_keys: [KEY], query_param: 'ключ\n' })
    const followed = await app.inject({ url: `/p?%D0%BA%D0%BB%D1%8E%D1%87%0A=${KEY}` })
    t.same([followed.statusCode, followed.json()], [200, { ok: true, key: KEY }], 'and read back so')
    t.same(await challenge({ extract: () => undefined }), [401, 'missing_api_key', 'ApiKey'], 'no place to name')
    t.same(await challenge({}, { 'x-api-key': 'wrong' }), [403, 'invalid_api_key', undefined], 'a 403 needs none')
    const open = await with_key(t, { allowed_keys: [KEY], required: false }).app.inject({ url: '/p' })
    t.same([open.statusCode, open.headers['www-authenticate']], [200, undefined])
    const ok = await with_key(t).app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.same([ok.statusCode, ok.headers['www-authenticate']], [200, undefined])
  })

  t.test('counts an empty key as missing', async (t) => {
    const { app, calls } = with_key(t)
    const r = await app.inject({ url: '/p', headers: { 'x-api-key': '' } })
    t.equal(r.statusCode, 401)
    t.same(r.json(), MISSING)
    t.equal(calls.n, 0)
  })

  t.test('answers 403 invalid_api_key for a wrong key', async (t) => {
    const { app, calls } = with_key(t)
    for (const wrong of ['nope', KEY + 'x', KEY.slice(0, -1), KEY.toUpperCase()]) {
      const r = await app.inject({ url: '/p', headers: { 'x-api-key': wrong } })
      t.equal(r.statusCode, 403, wrong)
      t.same(r.json(), INVALID)
    }
    t.equal(calls.n, 0)
  })

  t.test('finds the header whatever the case of its name, in the request or the option', async (t) => {
    const { app } = with_key(t, { header: 'X-Api-Key', allowed_keys: [KEY] })
    const r = await app.inject({ url: '/p', headers: { 'X-API-KEY': KEY } })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, key: KEY })
  })

  t.test('ignores the query when query_param is off (the default)', async (t) => {
    const { app, calls } = with_key(t)
    const r = await app.inject({ url: `/p?api_key=${KEY}` })
    t.equal(r.statusCode, 401)
    t.same(r.json(), MISSING)
    t.equal(calls.n, 0)
  })

  t.test('reads the query parameter when configured, the header first', async (t) => {
    const { app } = with_key(t, { allowed_keys: [KEY], query_param: 'api_key' })
    const from_query = await app.inject({ url: `/p?api_key=${KEY}` })
    t.equal(from_query.statusCode, 200)
    t.same(from_query.json(), { ok: true, key: KEY })
    const header_wins = await app.inject({ url: `/p?api_key=${KEY}`, headers: { 'x-api-key': 'wrong' } })
    t.equal(header_wins.statusCode, 403)
    t.same(header_wins.json(), INVALID)
  })

  t.test('accepts any of several keys', async (t) => {
    const { app } = with_key(t, { allowed_keys: new Set(['a-key', KEY, 'z-key']) })
    for (const k of ['a-key', KEY, 'z-key']) {
      const r = await app.inject({ url: '/p', headers: { 'x-api-key': k } })
      t.same(r.json(), { ok: true, key: k })
    }
  })

  t.test("names each caller by its own key's digest, or by its label", async (t) => {
    const id_of = (key: string): string => 'key:' + createHash('sha256').update(key).digest('base64url').slice(0, 22)
    const keys = ['a-key', KEY, 'z-key']
    const identity = (options: ApiKeyOptions) =>
      build(t, [api_key(options)], (req) => ({ id: req.state(Identity)?.id, kind: req.state(Identity)?.kind }))
    const listed = identity({ allowed_keys: keys })
    const validated = identity({ allowed_keys: keys, validate: () => true })
    const unlisted = identity({ validate: () => true })
    for (const k of keys) {
      for (const { app } of [listed, validated, unlisted]) {
        const r = await app.inject({ url: '/p', headers: { 'x-api-key': k } })
        t.same(r.json(), { ok: true, id: id_of(k), kind: 'api_key' }, k)
      }
    }
    const labelled = identity({ allowed_keys: keys, label: (k) => (k === KEY ? 'billing' : undefined) })
    const named = await labelled.app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.same(named.json(), { ok: true, id: 'billing', kind: 'api_key' })
    const unnamed = await labelled.app.inject({ url: '/p', headers: { 'x-api-key': 'z-key' } })
    t.same(unnamed.json(), { ok: true, id: id_of('z-key'), kind: 'api_key' }, 'a key without a label keeps its digest')
  })

  t.test('lets a request without a key through when not required, but still refuses a wrong one', async (t) => {
    const { app, calls } = with_key(t, { allowed_keys: [KEY], required: false })
    const none = await app.inject({ url: '/p' })
    t.equal(none.statusCode, 200)
    t.same(none.json(), { ok: true, key: null })
    const wrong = await app.inject({ url: '/p', headers: { 'x-api-key': 'wrong' } })
    t.equal(wrong.statusCode, 403)
    t.equal(calls.n, 1)
  })

  t.test('with allowed_keys and validate, accepts a key only when listed and validated', async (t) => {
    const seen: string[] = []
    const { app, calls } = with_key(t, {
      allowed_keys: ['k-revoked', 'k-good'],
      validate: async (k) => {
        seen.push(k)
        return k !== 'k-revoked'
      },
    })
    const good = await app.inject({ url: '/p', headers: { 'x-api-key': 'k-good' } })
    t.equal(good.statusCode, 200)
    t.same(good.json(), { ok: true, key: 'k-good' })
    for (const refused of ['k-revoked', 'k-other']) {
      const r = await app.inject({ url: '/p', headers: { 'x-api-key': refused } })
      t.equal(r.statusCode, 403, refused)
      t.same(r.json(), INVALID)
    }
    t.equal(calls.n, 1)
    // An unlisted key is refused before validate is asked (no database lookup for keys that cannot pass).
    t.same(seen, ['k-good', 'k-revoked'])
  })

  t.test('with validate alone, asks it for every key, sync or async', async (t) => {
    const { app } = with_key(t, { validate: (k) => k.startsWith('db-') })
    t.same((await app.inject({ url: '/p', headers: { 'x-api-key': 'db-7' } })).json(), { ok: true, key: 'db-7' })
    t.equal((await app.inject({ url: '/p', headers: { 'x-api-key': 'other' } })).statusCode, 403)
    const async_ok = with_key(t, { validate: async (k) => k === 'db-8' })
    t.equal((await async_ok.app.inject({ url: '/p', headers: { 'x-api-key': 'db-8' } })).statusCode, 200)
  })

  t.test('accepts only a validate result of exactly true', async (t) => {
    const { app } = with_key(t, { validate: (() => 'yes') as unknown as () => boolean })
    const r = await app.inject({ url: '/p', headers: { 'x-api-key': 'any' } })
    t.equal(r.statusCode, 403)
  })

  t.test('uses extract instead of the header and query', async (t) => {
    const { app } = with_key(t, {
      allowed_keys: [KEY],
      extract: ({ req }) => req.header('authorization').replace(/^ApiKey /, ''),
    })
    t.equal((await app.inject({ url: '/p', headers: { 'x-api-key': KEY } })).statusCode, 401)
    const r = await app.inject({ url: '/p', headers: { authorization: `ApiKey ${KEY}` } })
    t.same(r.json(), { ok: true, key: KEY })
  })

  t.test('treats undefined from extract as no key', async (t) => {
    const { app } = with_key(t, { allowed_keys: [KEY], extract: () => undefined })
    const r = await app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.equal(r.statusCode, 401)
    t.same(r.json(), MISSING)
  })

  t.test('refuses at creation an allowed key with surrounding whitespace, which no header can carry', async (t) => {
    // A key read from a file keeps its trailing newline, one from `a, b`.split(',') its space; HTTP strips a header
    // value's surrounding whitespace, so such a key was never matched and every caller got 403.
    for (const key of [KEY + '\n', ' ' + KEY, KEY + ' ', '\t' + KEY]) {
      throws_coded(
        t,
        () => api_key({ allowed_keys: [KEY, key] }),
        'FW_ERR_AUTH_BAD_OPTION',
        /^api_key: allowed_keys must be keys without surrounding whitespace \(a header value never carries it\); got a list of 2 items$/,
      )
    }
    t.doesNotThrow(() => api_key({ allowed_keys: ['a key with inner spaces'] }), 'inner whitespace is part of a key')
    t.doesNotThrow(() => api_key({ allowed_keys: [' k '], extract: () => ' k ' }), 'extract reads keys its own way')
  })

  t.test('refuses bad options at creation', async (t) => {
    const bad = (options: unknown, code: string, message: RegExp) =>
      throws_coded(t, () => api_key(options as ApiKeyOptions), code, message)
    bad({}, 'FW_ERR_AUTH_NO_API_KEYS', /allowed_keys is empty and no validate function/)
    bad({ allowed_keys: [] }, 'FW_ERR_AUTH_NO_API_KEYS', /every key would be refused/)
    bad(
      { allowed_keys: [''] },
      'FW_ERR_AUTH_BAD_OPTION',
      /^api_key: allowed_keys must be a list of non-empty strings; got a list of 1 item$/,
    )
    bad({ allowed_keys: 'k' }, 'FW_ERR_AUTH_BAD_OPTION', /allowed_keys must be a list/)
    bad(
      { allowed_keys: [KEY], header: 'x api key' },
      'FW_ERR_AUTH_BAD_OPTION',
      /^api_key: header must be an HTTP token/,
    )
    bad(
      { allowed_keys: [KEY], required: 'yes' },
      'FW_ERR_AUTH_BAD_OPTION',
      /^api_key: required must be a boolean; got "yes"$/,
    )
    bad(
      { allowed_keys: [KEY], query_param: 3 },
      'FW_ERR_AUTH_BAD_OPTION',
      /^api_key: query_param must be a string; got 3$/,
    )
    bad(
      { allowed_keys: [KEY], validate: true },
      'FW_ERR_AUTH_BAD_OPTION',
      /^api_key: validate must be a function; got a boolean$/,
    )
    bad({ allowed_keys: [KEY], extract: 'x-key' }, 'FW_ERR_AUTH_BAD_OPTION', /^api_key: extract must be a function/)
    bad(
      { allowed_keys: [KEY], extract: () => KEY, query_param: 'key' },
      'FW_ERR_AUTH_BAD_OPTION',
      /^api_key: query_param must be left out with extract \(which replaces it\); got "key"$/,
    )
  })
})
