import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSigner } from 'fast-jwt'
import t, { type Test } from 'tap'
import { App, adapt_ctx } from '../../../../index.js'
import { jwt, type JwtAlgorithm, type JwtOptions } from '../../../../lib/middleware/auth/jwt.js'
import { JwtClaims } from '../../../../lib/middleware/auth/state.js'
import { build, error_body, throws_coded } from './build.js'

const INVALID = error_body('invalid_token', 'Invalid token')
const UNAVAILABLE = error_body('jwks_unavailable', 'Token keys unavailable, retry later')
const now_s = () => Math.floor(Date.now() / 1000)

/** A key pair for an algorithm, generated here. */
function pair(alg: JwtAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  if (alg.startsWith('RS') || alg.startsWith('PS')) return generateKeyPairSync('rsa', { modulusLength: 2048 })
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519')
  const curve = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg as 'ES256']
  return generateKeyPairSync('ec', { namedCurve: curve })
}

const pem = (k: KeyObject) => k.export({ type: k.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }) as string
const sign = (key: KeyObject | string | Buffer, algorithm: string, payload: object, kid?: string) =>
  createSigner({
    key: key instanceof Object && 'export' in key ? pem(key) : key,
    algorithm: algorithm as 'HS256',
    ...(kid && { kid }),
  })(payload)

function app_with(t: Test, options: JwtOptions) {
  return build(t, [jwt(options)], (req) => ({ sub: req.state(JwtClaims)?.subject ?? null }))
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** A local JWKS server on 127.0.0.1 whose keys and behaviour the test changes; counts its fetches. */
async function jwks_server(t: Test) {
  const state = { keys: [] as object[], hits: 0, mode: 'ok' as 'ok' | 'hang' | 'error' | 'junk' }
  const server: Server = createServer((_req, res) => {
    state.hits++
    if (state.mode === 'hang') return
    if (state.mode === 'error') return void res.writeHead(500).end('{}')
    if (state.mode === 'junk') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}')
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ keys: state.keys }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`
  return { state, url }
}

const jwk = (k: KeyObject, kid: string, alg: string) => ({ ...k.export({ format: 'jwk' }), kid, alg, use: 'sig' })

t.test('jwt keys', async (t) => {
  t.test('verifies every asymmetric algorithm with a PEM or a JWK public key', async (t) => {
    const algs: JwtAlgorithm[] = [
      'RS256',
      'RS384',
      'RS512',
      'PS256',
      'PS384',
      'PS512',
      'ES256',
      'ES384',
      'ES512',
      'EdDSA',
    ]
    for (const alg of algs) {
      const { privateKey, publicKey } = pair(alg)
      const token = sign(privateKey, alg, { sub: alg })
      for (const public_key of [pem(publicKey), publicKey.export({ format: 'jwk' })]) {
        const { app } = app_with(t, { public_key, algorithms: [alg] })
        const r = await app.inject({ url: '/p', headers: bearer(token) })
        t.same(
          [r.statusCode, r.json().sub],
          [200, alg],
          `${alg} with ${typeof public_key === 'string' ? 'PEM' : 'JWK'}`,
        )
      }
    }
  })

  t.test('verifies HMAC with a text, Buffer or oct JWK secret', async (t) => {
    const bytes = Buffer.from('0123456789abcdef0123456789abcdef-bytes')
    const token = sign(bytes, 'HS256', { sub: 'ada' })
    for (const secret of [bytes, { kty: 'oct', k: bytes.toString('base64url') }, bytes.toString()]) {
      const { app } = app_with(t, { secret })
      t.equal((await app.inject({ url: '/p', headers: bearer(token) })).statusCode, 200)
    }
  })

  t.test('refuses an HMAC secret shorter than its hash (RFC 7518 section 3.2) and takes a Uint8Array', async (t) => {
    const bad = (options: JwtOptions, message: RegExp) =>
      throws_coded(t, () => jwt(options), 'FW_ERR_AUTH_BAD_OPTION', message)
    bad({ secret: 'a' }, /^jwt: secret must be at least 32 bytes for HS256; got a string of 1 characters$/)
    bad({ secret: 'x'.repeat(31) }, /^jwt: secret must be at least 32 bytes for HS256; got a string of 31 characters$/)
    bad(
      { secret: Buffer.alloc(47, 1), algorithms: ['HS384'] },
      /^jwt: secret must be at least 48 bytes for HS384; got a Buffer of 47 bytes$/,
    )
    bad(
      { secret: new Uint8Array(63).fill(1), algorithms: ['HS256', 'HS512'] },
      /^jwt: secret must be at least 64 bytes for HS512; got a Uint8Array of 63 bytes$/,
    )
    bad(
      { secret: { kty: 'oct', k: Buffer.alloc(16, 1).toString('base64url') } },
      /^jwt: secret must be at least 32 bytes for HS256; got an object$/,
    )
    bad({ secret: 'é'.repeat(15) }, /^jwt: secret must be at least 32 bytes for HS256; got a string of 15 characters$/)
    const bytes = new Uint8Array(64).fill(7)
    for (const [alg, size] of [
      ['HS256', 32],
      ['HS384', 48],
      ['HS512', 64],
    ] as const) {
      const secret = bytes.subarray(0, size)
      const token = sign(Buffer.from(secret), alg, { sub: alg })
      const { app } = app_with(t, { secret, algorithms: [alg] })
      const r = await app.inject({ url: '/p', headers: bearer(token) })
      t.same([r.statusCode, r.json().sub], [200, alg], `${alg} with a Uint8Array of ${size} bytes`)
    }
  })

  t.test('refuses alg none and HS256 signed with the RSA public key (algorithm confusion)', async (t) => {
    const { privateKey, publicKey } = pair('RS256')
    const { app, calls } = app_with(t, { public_key: pem(publicKey) })
    t.equal((await app.inject({ url: '/p', headers: bearer(sign(privateKey, 'RS256', { sub: 'a' })) })).statusCode, 200)
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url')
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'evil' })}.`
    const confused = sign(Buffer.from(pem(publicKey)), 'HS256', { sub: 'evil' })
    for (const token of [none, confused]) {
      const r = await app.inject({ url: '/p', headers: bearer(token) })
      t.equal(r.statusCode, 401)
      t.same(r.json(), INVALID)
    }
    t.equal(calls.n, 1)
  })

  t.test('checks issuer, audience and required claims', async (t) => {
    const { privateKey, publicKey } = pair('ES256')
    const { app } = app_with(t, {
      public_key: pem(publicKey),
      issuer: 'https://id.example.com/',
      audience: 'shop',
      required_claims: ['exp'],
    })
    const ok = { iss: 'https://id.example.com/', aud: 'shop', exp: now_s() + 60, sub: 'ada' }
    t.equal((await app.inject({ url: '/p', headers: bearer(sign(privateKey, 'ES256', ok)) })).statusCode, 200)
    const bad = [
      { ...ok, iss: 'https://evil.example.com/' },
      { ...ok, aud: 'other' },
      { iss: ok.iss, aud: ok.aud },
    ]
    for (const payload of bad) {
      const r = await app.inject({ url: '/p', headers: bearer(sign(privateKey, 'ES256', payload)) })
      t.same([r.statusCode, r.json()], [401, INVALID], JSON.stringify(payload))
    }
  })

  t.test('reads the token from a cookie, a query parameter or extract', async (t) => {
    const secret = 'source-secret-0123456789-0123456789'
    const token = sign(secret, 'HS256', { sub: 'ada' })
    const { app } = app_with(t, { secret, cookie: 'access', query_param: 'access_token' })
    t.equal((await app.inject({ url: '/p', headers: { cookie: `access=${token}` } })).statusCode, 200)
    t.equal((await app.inject({ url: `/p?access_token=${token}` })).statusCode, 200)
    t.equal((await app.inject({ url: '/p' })).statusCode, 401)
    const custom = app_with(t, { secret, extract: ({ req }) => req.header('x-token') })
    t.equal((await custom.app.inject({ url: '/p', headers: { 'x-token': token } })).statusCode, 200)
    t.equal(
      (await custom.app.inject({ url: '/p', headers: bearer(token) })).statusCode,
      401,
      'extract replaces the header',
    )
  })

  t.test('picks the JWKS key by kid, caches the set and follows a rotation', async (t) => {
    const { state, url } = await jwks_server(t)
    const a = pair('RS256')
    const b = pair('RS256')
    state.keys = [jwk(a.publicKey, 'a', 'RS256'), jwk(b.publicKey, 'b', 'RS256')]
    const { app } = app_with(t, { jwks: url, jwks_cooldown_ms: 0 })
    for (const [key, kid] of [
      [a, 'a'],
      [b, 'b'],
      [a, 'a'],
    ] as const) {
      const r = await app.inject({ url: '/p', headers: bearer(sign(key.privateKey, 'RS256', { sub: kid }, kid)) })
      t.same([r.statusCode, r.json().sub], [200, kid])
    }
    t.equal(state.hits, 1, 'one fetch serves every known kid')
    const c = pair('RS256')
    state.keys = [jwk(b.publicKey, 'b', 'RS256'), jwk(c.publicKey, 'c', 'RS256')]
    const rotated = await app.inject({ url: '/p', headers: bearer(sign(c.privateKey, 'RS256', { sub: 'c' }, 'c')) })
    t.equal(rotated.statusCode, 200, 'an unknown kid fetches the set again')
    t.equal(state.hits, 2)
  })

  t.test('verifies a token without kid by whichever JWKS key of its alg signed it (a rotation)', async (t) => {
    const { state, url } = await jwks_server(t)
    const [a, b, outside] = [pair('RS256'), pair('RS256'), pair('RS256')]
    const e = pair('ES256')
    state.keys = [jwk(a.publicKey, 'a', 'RS256'), jwk(b.publicKey, 'b', 'RS256'), jwk(e.publicKey, 'e', 'ES256')]
    const { app, calls } = app_with(t, { jwks: url, algorithms: ['RS256', 'ES256'] })
    const answer = async (token: string) => {
      const r = await app.inject({ url: '/p', headers: bearer(token) })
      return [r.statusCode, r.json(), r.headers['www-authenticate']]
    }
    const ok = (sub: string) => [200, { ok: true, sub }, undefined]
    const refused = [401, INVALID, 'Bearer error="invalid_token"']
    t.same(await answer(sign(b.privateKey, 'RS256', { sub: 'by-b' })), ok('by-b'), 'the second key')
    t.same(await answer(sign(a.privateKey, 'RS256', { sub: 'by-a' })), ok('by-a'), 'the first key')
    t.same(await answer(sign(b.privateKey, 'RS256', { sub: 'by-b' })), ok('by-b'), 'the second key, again')
    t.same(await answer(sign(e.privateKey, 'ES256', { sub: 'by-e' })), ok('by-e'), 'the one key of another alg')
    t.same(await answer(sign(outside.privateKey, 'RS256', { sub: 'evil' })), refused, 'a key outside the set')
    const good = sign(b.privateKey, 'RS256', { sub: 'evil' })
    const at = good.lastIndexOf('.') + 10
    const tampered = good.slice(0, at) + (good[at] === 'A' ? 'B' : 'A') + good.slice(at + 1)
    t.same(await answer(tampered), refused, 'a tampered signature')
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url')
    t.same(await answer(`${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'evil' })}.`), refused, 'alg none')
    const expired = sign(b.privateKey, 'RS256', { sub: 'by-b', exp: now_s() - 60 })
    const r = await app.inject({ url: '/p', headers: bearer(expired) })
    t.same([r.statusCode, r.json()], [401, error_body('token_expired', 'Token expired')], 'claims checked by its key')
    t.same(await answer(sign(b.privateKey, 'RS256', { sub: 'evil' }, 'a')), refused, 'a kid picks its key alone')
    t.equal(calls.n, 4)
    t.equal(state.hits, 1, 'no token without kid refetched the set')
  })

  t.test('tries at most 4 keys for a token without kid; with more candidates it is refused', async (t) => {
    const { state, url } = await jwks_server(t)
    const keys = Array.from({ length: 5 }, () => pair('ES256'))
    // Keys without kid nor alg match by their type and curve.
    const bare = (k: KeyObject) => k.export({ format: 'jwk' })
    state.keys = keys.slice(0, 4).map((k) => bare(k.publicKey))
    const four = app_with(t, { jwks: url, algorithms: ['ES256'], jwks_cooldown_ms: 0 })
    for (const [i, k] of keys.slice(0, 4).entries()) {
      const r = await four.app.inject({ url: '/p', headers: bearer(sign(k.privateKey, 'ES256', { sub: `k${i}` })) })
      t.same([r.statusCode, r.json()], [200, { ok: true, sub: `k${i}` }], `key ${i + 1} of 4`)
    }
    state.keys = keys.map((k) => bare(k.publicKey))
    const five = app_with(t, { jwks: url, algorithms: ['ES256'], jwks_cooldown_ms: 0 })
    for (const [i, k] of [keys[0]!, keys[4]!].entries()) {
      const r = await five.app.inject({ url: '/p', headers: bearer(sign(k.privateKey, 'ES256', { sub: `k${i}` })) })
      t.same([r.statusCode, r.json()], [401, INVALID], `five candidates: refused (${i === 0 ? 'first' : 'last'} key)`)
    }
    t.equal(five.calls.n, 0)
  })

  t.test('answers 401 to an unknown kid and refetches at most once per cooldown', async (t) => {
    const { state, url } = await jwks_server(t)
    const a = pair('ES256')
    state.keys = [jwk(a.publicKey, 'a', 'ES256')]
    const { app } = app_with(t, { jwks: url, algorithms: ['ES256'] })
    t.equal((await app.inject({ url: '/p', headers: bearer(sign(a.privateKey, 'ES256', {}, 'a')) })).statusCode, 200)
    for (let i = 0; i < 5; i++) {
      const r = await app.inject({ url: '/p', headers: bearer(sign(a.privateKey, 'ES256', { i }, `ghost-${i}`)) })
      t.same([r.statusCode, r.json()], [401, INVALID])
    }
    t.equal(state.hits, 1, 'unknown kids within the cooldown cause no fetch')
  })

  t.test('refetches at most once per cooldown for unknown kids while the JWKS endpoint fails', async (t) => {
    const { state, url } = await jwks_server(t)
    const a = pair('ES256')
    state.keys = [jwk(a.publicKey, 'a', 'ES256')]
    // The five requests must fall within one cooldown: signed before it starts, and 500 ms of it for a loaded machine.
    const { app, calls } = app_with(t, { jwks: url, algorithms: ['ES256'], jwks_cooldown_ms: 500 })
    const known = bearer(sign(a.privateKey, 'ES256', { sub: 'ada' }, 'a'))
    const ghosts = Array.from({ length: 5 }, (_, i) => bearer(sign(a.privateKey, 'ES256', { i }, `ghost-${i}`)))
    t.equal((await app.inject({ url: '/p', headers: known })).statusCode, 200)
    state.mode = 'error'
    await new Promise((resolve) => setTimeout(resolve, 550))
    const answers = []
    for (const headers of ghosts) {
      const r = await app.inject({ url: '/p', headers })
      answers.push([r.statusCode, r.json()])
    }
    t.same(answers[0], [503, UNAVAILABLE], 'the one refetch the cooldown allows fails')
    t.same(answers.slice(1), Array(4).fill([401, INVALID]), 'then unknown kids are unknown until the cooldown ends')
    t.equal(state.hits, 2, 'a failed refetch starts a cooldown too')
    t.equal((await app.inject({ url: '/p', headers: known })).statusCode, 200, 'the cached set still serves')
    t.equal(calls.n, 2)
  })

  t.test(
    'fetches a JWKS down from the start at most once per cooldown, concurrent requests sharing one fetch',
    async (t) => {
      const { state, url } = await jwks_server(t)
      const a = pair('RS256')
      state.keys = [jwk(a.publicKey, 'a', 'RS256')]
      state.mode = 'hang'
      const { app, calls } = app_with(t, { jwks: url, jwks_timeout_ms: 100, jwks_cooldown_ms: 400 })
      const token = (i: number) => bearer(sign(a.privateKey, 'RS256', { sub: 'ada', i }, 'a'))
      const answer = async (i: number) => {
        const r = await app.inject({ url: '/p', headers: token(i) })
        return [r.statusCode, r.json()]
      }
      const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
      const at_once = await Promise.all([0, 1, 2, 3, 4].map(answer))
      t.same(at_once, Array(5).fill([503, UNAVAILABLE]), 'five requests during the first fetch wait for it')
      t.equal(state.hits, 1, 'and share it')
      state.mode = 'error'
      const cooling = []
      for (let i = 0; i < 5; i++) cooling.push(await answer(i))
      t.same(cooling, Array(5).fill([503, UNAVAILABLE]), 'refused at once during the cooldown')
      t.equal(state.hits, 1, 'without a fetch')
      await wait(450)
      t.same(await answer(0), [503, UNAVAILABLE], 'after the cooldown the next request fetches again, and fails')
      t.equal(state.hits, 2)
      t.same(await answer(1), [503, UNAVAILABLE], 'which starts another cooldown')
      t.equal(state.hits, 2)
      state.mode = 'ok'
      t.same(await answer(2), [503, UNAVAILABLE], 'a recovered endpoint is not asked before the cooldown ends')
      t.equal(state.hits, 2)
      await wait(450)
      t.same(await answer(3), [200, { ok: true, sub: 'ada' }], 'then it is')
      t.same(await answer(4), [200, { ok: true, sub: 'ada' }], 'and its set is cached')
      t.equal(state.hits, 3)
      t.equal(calls.n, 2)
    },
  )

  t.test('fetches an expired JWKS at most once per cooldown while its endpoint fails', async (t) => {
    const { state, url } = await jwks_server(t)
    const a = pair('RS256')
    state.keys = [jwk(a.publicKey, 'a', 'RS256')]
    const { app } = app_with(t, { jwks: url, jwks_max_age_ms: 100, jwks_cooldown_ms: 400 })
    const token = (i: number) => bearer(sign(a.privateKey, 'RS256', { sub: 'ada', i }, 'a'))
    t.equal((await app.inject({ url: '/p', headers: token(0) })).statusCode, 200)
    state.mode = 'error'
    await new Promise((resolve) => setTimeout(resolve, 150))
    const answers = []
    for (let i = 1; i < 6; i++) {
      const r = await app.inject({ url: '/p', headers: token(i) })
      answers.push([r.statusCode, r.json()])
    }
    t.same(answers, Array(5).fill([503, UNAVAILABLE]), 'an expired set is not used')
    t.equal(state.hits, 2, 'one failed refetch, then none until the cooldown ends')
  })

  t.test('does not keep a refusal for clock_tolerance once the JWKS endpoint is back', async (t) => {
    const { state, url } = await jwks_server(t)
    const a = pair('RS256')
    state.keys = [jwk(a.publicKey, 'a', 'RS256')]
    state.mode = 'error'
    const { app } = app_with(t, { jwks: url, clock_tolerance: 30, jwks_cooldown_ms: 100 })
    const token = bearer(sign(a.privateKey, 'RS256', { sub: 'ada' }, 'a'))
    const down = await app.inject({ url: '/p', headers: token })
    t.same([down.statusCode, down.json()], [503, UNAVAILABLE])
    state.mode = 'ok'
    await new Promise((resolve) => setTimeout(resolve, 150))
    const up = await app.inject({ url: '/p', headers: token })
    t.same([up.statusCode, up.json()], [200, { ok: true, sub: 'ada' }])
  })

  t.test('answers 401 to a forged alg (none, HS256, unknown, missing) before any JWKS fetch', async (t) => {
    const { state, url } = await jwks_server(t)
    const a = pair('RS256')
    state.keys = [jwk(a.publicKey, 'a', 'RS256')]
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url')
    const forged = (header: object) => `${b64(header)}.${b64({ sub: 'evil' })}.${b64({ sig: 1 })}`
    const tokens = {
      none: `${b64({ alg: 'none', typ: 'JWT', kid: 'a' })}.${b64({ sub: 'evil' })}.`,
      HS256: sign(Buffer.from(pem(a.publicKey)), 'HS256', { sub: 'evil' }, 'a'),
      unknown: forged({ alg: 'XX999', typ: 'JWT', kid: 'a' }),
      missing: forged({ typ: 'JWT', kid: 'a' }),
      'ES256 (not pinned)': forged({ alg: 'ES256', typ: 'JWT', kid: 'a' }),
    }
    const { app, calls } = app_with(t, { jwks: url, jwks_cooldown_ms: 0 })
    for (const [name, token] of Object.entries(tokens)) {
      const r = await app.inject({ url: '/p', headers: bearer(token) })
      t.same(
        [r.statusCode, r.json(), r.headers['www-authenticate']],
        [401, INVALID, 'Bearer error="invalid_token"'],
        name,
      )
    }
    t.equal(state.hits, 0, 'no forged token made the key set be fetched')
    t.equal(calls.n, 0)
    const ok = await app.inject({ url: '/p', headers: bearer(sign(a.privateKey, 'RS256', { sub: 'ada' }, 'a')) })
    t.same([ok.statusCode, ok.json().sub, state.hits], [200, 'ada', 1], 'the endpoint is healthy')
  })

  t.test(
    'answers 503 jwks_unavailable (or 401 by option) when the JWKS is down, slow or not a key set, within the timeout',
    async (t) => {
      const { state, url } = await jwks_server(t)
      const a = pair('RS256')
      const token = sign(a.privateKey, 'RS256', {}, 'a')
      state.mode = 'hang'
      const slow = app_with(t, { jwks: url, jwks_timeout_ms: 150 })
      const started = Date.now()
      const r = await slow.app.inject({ url: '/p', headers: bearer(token) })
      t.same([r.statusCode, r.json()], [503, UNAVAILABLE])
      t.ok(Date.now() - started < 2000, 'bounded by jwks_timeout_ms')
      state.mode = 'error'
      const as_401 = app_with(t, { jwks: url, jwks_unavailable: 401 })
      const r401 = await as_401.app.inject({ url: '/p', headers: bearer(token) })
      t.same([r401.statusCode, r401.json()], [401, INVALID])
      state.mode = 'junk'
      const junk = app_with(t, { jwks: url })
      t.same((await junk.app.inject({ url: '/p', headers: bearer(token) })).json(), UNAVAILABLE, 'not a key set')
      const down = app_with(t, { jwks: 'http://127.0.0.1:1/jwks.json' })
      t.same((await down.app.inject({ url: '/p', headers: bearer(token) })).json(), UNAVAILABLE)
    },
  )

  t.test(
    'sends Retry-After with 503 jwks_unavailable: the rest of the cooldown in whole seconds, at least 1',
    async (t) => {
      const { state, url } = await jwks_server(t)
      const a = pair('RS256')
      state.keys = [jwk(a.publicKey, 'a', 'RS256')]
      const token = (kid: string) => bearer(sign(a.privateKey, 'RS256', { sub: 'ada' }, kid))
      const answer = async (app: App, kid = 'a') => {
        const r = await app.inject({ url: '/p', headers: token(kid) })
        return [r.statusCode, r.json(), r.headers['retry-after']]
      }
      state.mode = 'error'
      const { app } = app_with(t, { jwks: url, jwks_cooldown_ms: 10_000 })
      t.same(await answer(app), [503, UNAVAILABLE, '10'], 'a failed fetch: the whole cooldown')
      await new Promise((resolve) => setTimeout(resolve, 1100))
      const [status, body, retry] = await answer(app)
      t.same([status, body], [503, UNAVAILABLE], 'during the cooldown')
      t.match(retry, /^[89]$/, 'what is left of it, rounded up')
      t.equal(state.hits, 1)
      const zero = app_with(t, { jwks: url, jwks_cooldown_ms: 0 })
      t.same(await answer(zero.app), [503, UNAVAILABLE, '1'], 'no cooldown: at least 1')
      const down = app_with(t, { jwks: 'http://127.0.0.1:1/jwks.json', jwks_cooldown_ms: 3000 })
      t.same(await answer(down.app), [503, UNAVAILABLE, '3'], 'an unreachable endpoint')
      const as_401 = app_with(t, { jwks: url, jwks_unavailable: 401 })
      t.same(await answer(as_401.app), [401, INVALID, undefined], 'no Retry-After on the 401 answer')
      state.mode = 'ok'
      // An unknown kid refetches once the cooldown a successful fetch started is over.
      const held = app_with(t, { jwks: url, jwks_cooldown_ms: 1500 })
      t.same(await answer(held.app), [200, { ok: true, sub: 'ada' }, undefined])
      state.mode = 'error'
      await new Promise((resolve) => setTimeout(resolve, 1550))
      t.same(await answer(held.app, 'b'), [503, UNAVAILABLE, '2'], 'an unknown kid whose refetch fails')
    },
  )

  t.test('refuses at creation a JWKS URL with user:password, which no fetch can send', async (t) => {
    const { url } = await jwks_server(t)
    const with_userinfo = url.replace('http://', 'http://reader:s3cr3t@')
    // Before, it was taken at creation and every token then answered 503 jwks_unavailable: fetch() refuses such a URL.
    throws_coded(
      t,
      () => jwt({ jwks: with_userinfo }),
      'FW_ERR_AUTH_BAD_OPTION',
      /^jwt: jwks must be a URL without user:password \(a fetch cannot send them\); got "http:\/\/\*\*\*@127\.0\.0\.1:\d+\/\.well-known\/jwks\.json"$/,
    )
    throws_coded(
      t,
      () => jwt({ jwks: url.replace('http://', 'http://reader@') }),
      'FW_ERR_AUTH_BAD_OPTION',
      /user:password/,
    )
  })

  t.test('tells OpenAPI of the 503 jwks_unavailable a JWKS can answer, and of none without one', async (t) => {
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    const on = (path: string, options: JwtOptions) => {
      app.use(path, adapt_ctx(jwt(options)))
      app.get(path, (_req, res) => void res.send())
    }
    on('/remote', { jwks: 'https://id.example.com/jwks.json' })
    on('/remote401', { jwks: 'https://id.example.com/jwks.json', jwks_unavailable: 401 })
    on('/local', { secret: 's'.repeat(32) })
    app.openapi({ info: { title: 't', version: '1' } })
    const doc = (await app.inject({ url: '/openapi.json' })).json()
    const statuses = (path: string) => Object.keys(doc.paths[path].get.responses).sort()
    t.same(statuses('/remote'), ['2XX', '401', '503'])
    t.same(statuses('/remote401'), ['2XX', '401'])
    t.same(statuses('/local'), ['2XX', '401'])
  })

  t.test('refuses keys and algorithms that do not fit at creation', async (t) => {
    const bad = (options: unknown, message: RegExp) =>
      throws_coded(t, () => jwt(options as JwtOptions), 'FW_ERR_AUTH_BAD_OPTION', message)
    const { publicKey, privateKey } = pair('ES256')
    bad({ public_key: pem(publicKey), algorithms: ['RS256'] }, /^jwt: algorithms must be one of ES256; got "RS256"$/)
    bad({ public_key: pem(publicKey), algorithms: ['HS256'] }, /^jwt: algorithms must be one of ES256; got "HS256"$/)
    bad(
      { public_key: pem(privateKey) },
      /^jwt: public_key must be a public key as PEM or JWK; got a string of \d+ characters$/,
    )
    bad({ public_key: 'not a key' }, /^jwt: public_key must be a public key as PEM or JWK/)
    bad(
      { jwks: 'ftp://id.example.com/keys' },
      /^jwt: jwks must be an http\(s\) URL; got "ftp:\/\/id.example.com\/keys"$/,
    )
    bad(
      { jwks: 'https://id.example.com/k', algorithms: ['HS256'] },
      /^jwt: algorithms must be one of RS256, .*EdDSA; got "HS256"$/,
    )
    bad(
      { jwks: 'https://id.example.com/k', jwks_timeout_ms: 0 },
      /^jwt: jwks_timeout_ms must be an integer >= 1; got 0$/,
    )
    bad(
      { jwks: 'https://id.example.com/k', jwks_unavailable: 500 },
      /^jwt: jwks_unavailable must be 401 or 503; got 500$/,
    )
    bad({ secret: 's'.repeat(32), required_claims: [] }, /^jwt: required_claims must be a non-empty list/)
    bad(
      { secret: { kty: 'RSA', n: 'x' } },
      /^jwt: secret must be a non-empty string, Buffer, Uint8Array or oct JWK; got an object$/,
    )
  })
})
