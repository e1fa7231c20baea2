import { createHmac, generateKeyPairSync } from 'node:crypto'
import { createSigner } from 'fast-jwt'
import t, { type Test } from 'tap'
import type { App } from '../../../../index.js'
import { jwt, type JwtOptions } from '../../../../lib/middleware/auth/jwt.js'
import { JwtClaims } from '../../../../lib/middleware/auth/state.js'
import { build, error_body, throws_coded } from './build.js'

const SECRET = 'jwt-test-secret-0123456789-0123456789-0123456789-0123456789-abcd'
const now_s = Math.floor(Date.now() / 1000)
const RSA = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PUBLIC_PEM = RSA.publicKey.export({ type: 'spki', format: 'pem' }) as string

const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')
const hmac = (alg: string, secret: string, input: string): string =>
  createHmac(`sha${alg.slice(2)}`, secret)
    .update(input)
    .digest('base64url')

/** A token signed by hand, so the header can say anything. */
function forge(header: object, payload: object | string, secret = SECRET, alg = 'HS256'): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${hmac(alg, secret, input)}`
}

function sign(payload: object, options: { secret?: string; algorithm?: 'HS256' | 'HS384' | 'HS512' } = {}): string {
  return createSigner({ key: options.secret ?? SECRET, algorithm: options.algorithm ?? 'HS256' })(payload)
}

function with_jwt(t: Test, options: Partial<JwtOptions> = {}) {
  return build(t, [jwt({ secret: SECRET, ...options })], (req) => {
    const c = req.state(JwtClaims)!
    return { sub: c.subject, roles: c.roles, name: c.payload.name ?? null }
  })
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const MISSING = error_body('missing_token', 'Missing bearer token')
const INVALID = error_body('invalid_token', 'Invalid token')
const EXPIRED = error_body('token_expired', 'Token expired')

/** Sends each named set of headers and expects 401 with `body` and the `WWW-Authenticate` challenge. */
async function expect_401(
  t: Test,
  app: App,
  cases: Array<[string, Record<string, string>]>,
  body: object,
  challenge: string,
) {
  for (const [name, headers] of cases) {
    const r = await app.inject({ url: '/p', headers })
    t.equal(r.statusCode, 401, name)
    t.same(r.json(), body, name)
    t.equal(r.headers['www-authenticate'], challenge, name)
  }
}

t.test('jwt', async (t) => {
  t.test('stores JwtClaims for a valid HS256 token', async (t) => {
    const { app, calls } = with_jwt(t)
    const r = await app.inject({
      url: '/p',
      headers: bearer(sign({ sub: 'ada', roles: ['admin', 'dev'], name: 'Ada' })),
    })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, sub: 'ada', roles: ['admin', 'dev'], name: 'Ada' })
    t.equal(calls.n, 1)
  })

  t.test('reads a single-string roles claim as one role, a missing one as none, and skips non-strings', async (t) => {
    const { app } = with_jwt(t)
    const roles = async (payload: object) =>
      (await app.inject({ url: '/p', headers: bearer(sign(payload)) })).json().roles
    t.same(await roles({ sub: 'a', roles: 'admin' }), ['admin'])
    t.same(await roles({ sub: 'a' }), [])
    t.same(await roles({ sub: 'a', roles: ['x', 7, null, '', 'y'] }), ['x', 'y'])
    t.same(await roles({ sub: 'a', roles: { admin: true } }), [])
  })

  t.test('reads roles from roles_key', async (t) => {
    const { app } = with_jwt(t, { roles_key: 'groups' })
    const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'a', roles: ['x'], groups: ['ops'] })) })
    t.same(r.json().roles, ['ops'])
  })

  t.test('gives an empty subject to a token without sub', async (t) => {
    const { app } = with_jwt(t)
    const r = await app.inject({ url: '/p', headers: bearer(sign({ name: 'n' })) })
    t.same(r.json(), { ok: true, sub: '', roles: [], name: 'n' })
  })

  t.test('answers 401 missing_token with WWW-Authenticate: Bearer when there is no token', async (t) => {
    const { app, calls } = with_jwt(t)
    const token = sign({ sub: 'ada' })
    const cases: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['lower-case bearer', { authorization: `bearer ${token}` }],
      ['upper-case BEARER', { authorization: `BEARER ${token}` }],
      ['Bearer and nothing', { authorization: 'Bearer ' }],
      ['Bearer without a space', { authorization: `Bearer${token}` }],
      ['another scheme', { authorization: `Basic ${b64('a:b')}` }],
      ['a bare token', { authorization: token }],
    ]
    await expect_401(t, app, cases, MISSING, 'Bearer')
    t.equal(calls.n, 0)
  })

  t.test('answers 401 invalid_token for malformed and forged tokens', async (t) => {
    const { app, calls } = with_jwt(t)
    const good = sign({ sub: 'ada', roles: ['user'] })
    const [h, p, s] = good.split('.') as [string, string, string]
    const rs256 = createSigner({
      key: RSA.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      algorithm: 'RS256',
    })({ sub: 'ada' })
    const tokens: Array<[string, string]> = [
      ['missing dots', good.replaceAll('.', '')],
      ['two parts', `${h}.${p}`],
      ['bad base64', `${h}.!!!$$$.${s}`],
      ['bad JSON payload', forge({ alg: 'HS256', typ: 'JWT' }, '{"sub":')],
      ['payload not an object', forge({ alg: 'HS256', typ: 'JWT' }, '"ada"')],
      ['tampered payload', `${h}.${b64({ sub: 'ada', roles: ['admin'] })}.${s}`],
      ['wrong secret', sign({ sub: 'ada' }, { secret: 'another-secret-0123456789-0123456789' })],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'ada' })}.`],
      ['alg none with a signature', forge({ alg: 'none', typ: 'JWT' }, { sub: 'ada' })],
      ['alg HS384', sign({ sub: 'ada' }, { algorithm: 'HS384' })],
      ['alg HS512', sign({ sub: 'ada' }, { algorithm: 'HS512' })],
      ['HS256 signature under an HS384 header', forge({ alg: 'HS384', typ: 'JWT' }, { sub: 'ada' })],
      ['RS256 signed with the secret as key', forge({ alg: 'RS256', typ: 'JWT' }, { sub: 'ada' })],
      [
        'RS256 signed with the public key as HMAC secret',
        forge({ alg: 'RS256', typ: 'JWT' }, { sub: 'ada' }, PUBLIC_PEM),
      ],
      ['a real RS256 token', rs256],
      ['a non-string sub', sign({ sub: 42 })],
      ['two Authorization values joined', `${good}, Bearer ${good}`],
    ]
    await expect_401(
      t,
      app,
      tokens.map(([name, token]) => [name, bearer(token)]),
      INVALID,
      'Bearer error="invalid_token"',
    )
    t.equal(calls.n, 0)
  })

  t.test('answers 401 token_expired for an expired token', async (t) => {
    const { app, calls } = with_jwt(t)
    const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'ada', exp: now_s - 3600 })) })
    t.equal(r.statusCode, 401)
    t.same(r.json(), EXPIRED)
    t.equal(r.headers['www-authenticate'], 'Bearer error="invalid_token"')
    t.equal(calls.n, 0)
  })

  t.test('accepts an unexpired token', async (t) => {
    const { app } = with_jwt(t)
    const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'ada', exp: now_s + 3600 })) })
    t.equal(r.statusCode, 200)
  })

  t.test('accepts an expired token when verify_exp is false', async (t) => {
    const { app } = with_jwt(t, { verify_exp: false })
    const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'ada', exp: now_s - 3600 })) })
    t.equal(r.statusCode, 200)
    t.equal(r.json().sub, 'ada')
  })

  t.test('refuses a token whose nbf is in the future, even with verify_exp false', async (t) => {
    for (const verify_exp of [true, false]) {
      const { app, calls } = with_jwt(t, { verify_exp })
      const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'ada', nbf: now_s + 3600 })) })
      t.equal(r.statusCode, 401)
      t.same(r.json(), INVALID)
      t.equal(calls.n, 0)
    }
  })

  t.test('allows clock_tolerance seconds of skew on exp and nbf', async (t) => {
    const { app } = with_jwt(t, { clock_tolerance: 120 })
    const status = async (payload: object) =>
      (await app.inject({ url: '/p', headers: bearer(sign(payload)) })).statusCode
    t.equal(await status({ sub: 'a', exp: now_s - 60 }), 200)
    t.equal(await status({ sub: 'a', nbf: now_s + 60 }), 200)
    t.equal(await status({ sub: 'a', exp: now_s - 600 }), 401)
    t.equal(await status({ sub: 'a', nbf: now_s + 600 }), 401)
  })

  t.test('accepts a token once its nbf comes within clock_tolerance, though refused before', async (t) => {
    const { app } = with_jwt(t, { clock_tolerance: 5 })
    const nbf = Math.floor(Date.now() / 1000) + 7
    const token = bearer(sign({ sub: 'ada', nbf }))
    const early = await app.inject({ url: '/p', headers: token })
    t.same([early.statusCode, early.json()], [401, INVALID])
    await new Promise((resolve) => setTimeout(resolve, nbf * 1000 - 5000 - Date.now() + 50))
    const r = await app.inject({ url: '/p', headers: token })
    t.same([r.statusCode, r.json()], [200, { ok: true, sub: 'ada', roles: [], name: null }])
  })

  t.test(
    'refuses an iat that is not a number, or in the future past clock_tolerance, even with verify_exp false',
    async (t) => {
      const year = 365 * 86400
      // Signed here, not by fast-jwt's signer, which turns any iat into a number. The JSON text is signed as written:
      // JSON.stringify cannot write 1e999 (Infinity once parsed).
      const raw = (iat: string) => forge({ alg: 'HS256', typ: 'JWT' }, `{"sub":"ada","iat":${iat}}`)
      const at = (iat: unknown) => raw(JSON.stringify(iat))
      const refused: Array<[string, string]> = [
        ['a string', at('yesterday')],
        ['a number as a string', at(String(now_s))],
        ['null', at(null)],
        ['a boolean', at(true)],
        ['a list', at([now_s])],
        ['an object', at({ t: now_s })],
        ['1e999 (Infinity)', raw('1e999')],
        ['-1e999 (-Infinity)', raw('-1e999')],
        ['a year ahead', at(now_s + year)],
        ['ten minutes ahead, past the 120 s tolerance', at(now_s + 600)],
      ]
      const accepted: Array<[string, string]> = [
        ['now', at(now_s)],
        ['a minute ahead, within the tolerance', at(now_s + 60)],
        ['a fraction of a second', at(now_s + 0.5)],
        ['a year ago', at(now_s - year)],
        // RFC 7519 section 2: a NumericDate is any JSON number of seconds from the epoch; before 1970 is one (as in jose).
        ['before 1970', at(-1)],
        ['no iat', forge({ alg: 'HS256', typ: 'JWT' }, { sub: 'ada' })],
      ]
      for (const verify_exp of [true, false]) {
        const { app, calls } = with_jwt(t, { clock_tolerance: 120, verify_exp })
        await expect_401(
          t,
          app,
          refused.map(([name, token]) => [`${name}, verify_exp ${verify_exp}`, bearer(token)]),
          INVALID,
          'Bearer error="invalid_token"',
        )
        t.equal(calls.n, 0)
        for (const [name, token] of accepted) {
          const r = await app.inject({ url: '/p', headers: bearer(token) })
          t.same([r.statusCode, r.json().sub], [200, 'ada'], `${name}, verify_exp ${verify_exp}`)
        }
      }
      const strict = with_jwt(t)
      // The clock read now, not at load: the tests before this one can take more than the 5 seconds on a busy machine.
      const iat = Math.floor(Date.now() / 1000) + 5
      const ahead = await strict.app.inject({ url: '/p', headers: bearer(sign({ sub: 'ada', iat })) })
      t.same([ahead.statusCode, ahead.json()], [401, INVALID], 'without clock_tolerance, a few seconds ahead')
    },
  )

  t.test(
    'accepts a token once its iat comes within clock_tolerance, though refused before, cached or not',
    async (t) => {
      for (const cache_size of [1000, 0]) {
        const { app } = with_jwt(t, { clock_tolerance: 5, cache_size })
        const iat = Math.floor(Date.now() / 1000) + 7
        const token = bearer(sign({ sub: 'ada', iat }))
        const early = await app.inject({ url: '/p', headers: token })
        t.same([early.statusCode, early.json()], [401, INVALID], `cache_size ${cache_size}`)
        await new Promise((resolve) => setTimeout(resolve, iat * 1000 - 5000 - Date.now() + 50))
        const r = await app.inject({ url: '/p', headers: token })
        t.same(
          [r.statusCode, r.json()],
          [200, { ok: true, sub: 'ada', roles: [], name: null }],
          `cache_size ${cache_size}`,
        )
      }
    },
  )

  t.test('checks issuer and audience when configured', async (t) => {
    const { app, calls } = with_jwt(t, { issuer: 'https://id.example', audience: ['api', 'admin'] })
    const answer = async (payload: object) => {
      const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'a', ...payload })) })
      return [r.statusCode, r.json().error ?? 'ok']
    }
    t.same(await answer({ iss: 'https://id.example', aud: 'api' }), [200, 'ok'])
    t.same(await answer({ iss: 'https://id.example', aud: ['other', 'admin'] }), [200, 'ok'])
    t.same(await answer({ iss: 'https://evil.example', aud: 'api' }), [401, 'invalid_token'])
    t.same(await answer({ iss: 'https://id.example', aud: 'web' }), [401, 'invalid_token'])
    t.equal(calls.n, 2)
  })

  t.test('refuses a token without iss or aud when issuer and audience are configured', async (t) => {
    const { app, calls } = with_jwt(t, { issuer: 'https://id.example', audience: 'api' })
    const answer = async (payload: object) => {
      const r = await app.inject({ url: '/p', headers: bearer(sign({ sub: 'a', ...payload })) })
      return [r.statusCode, r.json().error ?? 'ok']
    }
    t.same(await answer({ aud: 'api' }), [401, 'invalid_token'], 'no iss')
    t.same(await answer({ iss: 'https://id.example' }), [401, 'invalid_token'], 'no aud')
    t.same(await answer({}), [401, 'invalid_token'], 'neither')
    t.same(await answer({ iss: 'https://id.example', aud: 'api' }), [200, 'ok'])
    t.equal(calls.n, 1)
  })

  t.test('accepts the algorithms it is pinned to, and only those', async (t) => {
    const { app } = with_jwt(t, { algorithms: ['HS512'] })
    const status = async (algorithm: 'HS256' | 'HS512') =>
      (await app.inject({ url: '/p', headers: bearer(sign({ sub: 'a' }, { algorithm })) })).statusCode
    t.equal(await status('HS512'), 200)
    t.equal(await status('HS256'), 401)
  })

  t.test('answers a token seen before from the cache, and never a tampered copy of it', async (t) => {
    for (const cache_size of [1000, 0]) {
      const { app, calls } = with_jwt(t, { cache_size })
      const token = sign({ sub: 'ada', roles: ['user'] })
      for (let i = 0; i < 3; i++) {
        t.same((await app.inject({ url: '/p', headers: bearer(token) })).json(), {
          ok: true,
          sub: 'ada',
          roles: ['user'],
          name: null,
        })
      }
      const [h, , s] = token.split('.')
      const tampered = await app.inject({
        url: '/p',
        headers: bearer(`${h}.${b64({ sub: 'ada', roles: ['admin'] })}.${s}`),
      })
      t.equal(tampered.statusCode, 401)
      t.same(tampered.json(), INVALID)
      t.equal(calls.n, 3)
    }
  })

  t.test('gives no request a payload it can change for the next request of the same token', async (t) => {
    for (const cache_size of [1000, 0]) {
      const changed: string[] = []
      const { app } = build(t, [jwt({ secret: SECRET, cache_size })], (req) => {
        const payload = req.state(JwtClaims)!.payload as { roles: string[]; org: { id: string } }
        for (const change of [() => payload.roles.push('admin'), () => (payload.org.id = 'evil')]) {
          try {
            change()
            changed.push('changed')
          } catch (err) {
            changed.push((err as Error).name)
          }
        }
        return { roles: req.state(JwtClaims)!.roles, org: payload.org.id }
      })
      const token = sign({ sub: 'ada', roles: ['user'], org: { id: 'acme' } })
      for (let i = 0; i < 2; i++) {
        t.same((await app.inject({ url: '/p', headers: bearer(token) })).json(), {
          ok: true,
          roles: ['user'],
          org: 'acme',
        })
      }
      t.same(changed, ['TypeError', 'TypeError', 'TypeError', 'TypeError'], `cache_size ${cache_size}`)
    }
  })

  t.test('refuses bad options at creation', async (t) => {
    const bad = (options: unknown, message: RegExp) =>
      throws_coded(t, () => jwt(options as JwtOptions), 'FW_ERR_AUTH_BAD_OPTION', message)
    bad(undefined, /^jwt: options must be an object; got undefined$/)
    bad({}, /^jwt: secret, public_key and jwks must be given one at a time \(exactly one of them\); got \[\]$/)
    bad(
      { secret: SECRET, jwks: 'https://id.example.com/jwks' },
      /^jwt: secret, public_key and jwks must be given one at a time \(exactly one of them\); got \["secret","jwks"\]$/,
    )
    bad(
      { secret: '' },
      /^jwt: secret must be a non-empty string, Buffer, Uint8Array or oct JWK; got a string of 0 characters$/,
    )
    bad({ secret: SECRET, algorithms: ['none'] }, /^jwt: algorithms must be one of HS256, HS384, HS512; got "none"$/)
    bad({ secret: SECRET, algorithms: ['RS256'] }, /^jwt: algorithms must be one of HS256, HS384, HS512; got "RS256"$/)
    bad({ secret: SECRET, algorithms: [] }, /^jwt: algorithms must be a non-empty list of non-empty strings; got \[\]$/)
    bad({ secret: SECRET, verify_exp: 'false' }, /^jwt: verify_exp must be a boolean; got "false"$/)
    bad({ secret: SECRET, clock_tolerance: -1 }, /^jwt: clock_tolerance must be an integer >= 0; got -1$/)
    bad({ secret: SECRET, issuer: '' }, /^jwt: issuer must be a non-empty string; got ""$/)
    bad({ secret: SECRET, audience: [] }, /^jwt: audience must be a non-empty list/)
    bad({ secret: SECRET, roles_key: '' }, /^jwt: roles_key must be a non-empty string; got ""$/)
    bad({ secret: SECRET, cache_size: -1 }, /^jwt: cache_size must be an integer >= 0; got -1$/)
    bad({ secret: PUBLIC_PEM }, /^jwt: secret must be an HMAC secret, not a PEM key; got a string of \d+ characters$/)
    // The public key as JWK text (an environment variable, a file read as bytes) would let anyone sign HS256 tokens.
    const public_jwk = JSON.stringify(RSA.publicKey.export({ format: 'jwk' }))
    const not_jwk = /^jwt: secret must be an HMAC secret, not JWK text \(give an oct JWK as an object\); got /
    for (const secret of [public_jwk, ` ${public_jwk}\n`, Buffer.from(public_jwk), `{"keys":[${public_jwk}]}`])
      bad({ secret }, not_jwk)
    t.ok(
      jwt({ secret: `{not json, but a long enough secret all the same}` }),
      'a secret that only starts with { is one',
    )
    const extract = () => 'token'
    const beside = /^jwt: cookie and query_param must be left out with extract \(which replaces them\); got "t"$/
    bad({ secret: SECRET, extract, query_param: 't' }, beside)
    bad({ secret: SECRET, extract, cookie: 't' }, beside)
  })
})
