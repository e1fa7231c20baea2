import { inspect } from 'node:util'
import t from 'tap'
import { sign_dev_token } from '../../../../lib/middleware/app/auth-presets.js'
import { api_key, type ApiKeyOptions } from '../../../../lib/middleware/auth/api-key.js'
import { jwt, type JwtAlgorithm, type JwtOptions } from '../../../../lib/middleware/auth/jwt.js'
import { session, type SessionOptions } from '../../../../lib/middleware/auth/session.js'
import { csrf } from '../../../../lib/middleware/security/csrf.js'
import { rate_limit } from '../../../../lib/middleware/security/rate-limit.js'
import type { ISessionStore } from '../../../../lib/middleware/auth/session-store.js'
import { auth_api_config, type AuthApiOptions } from '../../../../demo/auth-api/index.js'

// A recognisable secret, and the forms its bytes could take in a message.
const SECRET = 'S3cr3t-Recognisable-Value-42-Long-Enough'
const OTHER = 'An0ther-Secret-Value-Rotated-7-Long-Enough'
const forms = (s: string): string[] => {
  const b = Buffer.from(s)
  return [s, b.toString('hex'), b.toString('base64'), b.toString('base64url'), [...b].join(','), [...b].join(', ')]
}
const LEAKS = [...forms(SECRET), ...forms(OTHER)]

/**
 * Every way a bad option can carry secret material: the secret itself in a wrong shape, or beside another bad option.
 */
const CASES: Array<[string, () => unknown]> = [
  ['session secret list with a short one', () => session({ secret: [SECRET, OTHER.slice(0, 9)] })],
  ['session secret list with a number', () => session({ secret: [SECRET, 42] as unknown as string[] })],
  ['session secret list nested', () => session({ secret: [[SECRET, OTHER]] as unknown as string[] })],
  ['session secret too short', () => session({ secret: SECRET.slice(0, 12) })],
  ['session secret as bytes', () => session({ secret: Buffer.from(SECRET) as unknown as string })],
  ['session options as the secret', () => session(SECRET as unknown as SessionOptions)],
  ['session with a bad ttl', () => session({ secret: SECRET, ttl: -1 })],
  [
    'session with a bad store',
    () => session({ secret: SECRET, store: { secret: SECRET } as unknown as ISessionStore }),
  ],
  [
    'jwt secret as bytes of a wrong kind',
    () => jwt({ secret: new Uint16Array(Buffer.from(SECRET)) as unknown as string }),
  ],
  ['jwt secret as an object', () => jwt({ secret: { k: SECRET, password: OTHER } as unknown as string })],
  ['jwt secret as a PEM key', () => jwt({ secret: `-----BEGIN PUBLIC KEY-----\n${SECRET}\n-----END PUBLIC KEY-----` })],
  ['jwt options as the secret', () => jwt(SECRET as unknown as JwtOptions)],
  ['jwt with a bad algorithm', () => jwt({ secret: SECRET, algorithms: ['none'] as unknown as JwtAlgorithm[] })],
  [
    'api_key allowed_keys with a bad entry',
    () => api_key({ allowed_keys: [SECRET, 42, OTHER] as unknown as string[] }),
  ],
  ['api_key allowed_keys as one string', () => api_key({ allowed_keys: SECRET as unknown as string[] })],
  ['api_key allowed_keys with an empty entry', () => api_key({ allowed_keys: [SECRET, ''] })],
  ['api_key with a bad header', () => api_key({ allowed_keys: [SECRET], header: 'x y' } as ApiKeyOptions)],
  ['csrf secret list with a short one', () => csrf({ secret: [SECRET, OTHER.slice(0, 9)] })],
  ['csrf secret as bytes', () => csrf({ secret: Buffer.from(SECRET) as unknown as string })],
  [
    'rate_limit with a store holding a secret',
    () =>
      rate_limit({
        max_requests: 1,
        window_seconds: 1,
        store: new (class Store {
          password = SECRET
          hit = 1
        })() as never,
      }),
  ],
  ['sign_dev_token secret as a list', () => sign_dev_token([SECRET] as unknown as string, {})],
  // The reference authentication API: what may hold credentials is a logger, a clock or a password hasher given wrong.
  [
    'auth_api log as a logger object holding a token',
    () => auth_api_config({ env: {}, log: { token: SECRET } as unknown as () => void }),
  ],
  [
    'auth_api now as an instance holding a secret',
    () =>
      auth_api_config({
        env: {},
        now: new (class Clock {
          key = SECRET
        })() as never,
      }),
  ],
  [
    'auth_api admins holding an object with a password',
    () => auth_api_config({ env: {}, admins: [{ password: SECRET }] as unknown as string[] }),
  ],
  [
    'auth_api passwords without verify, holding a pepper',
    () => auth_api_config({ env: {}, passwords: { pepper: SECRET, hash: () => '' } } as unknown as AuthApiOptions),
  ],
  [
    'auth_api passwords as the pepper itself',
    () => auth_api_config({ env: {}, passwords: SECRET } as unknown as AuthApiOptions),
  ],
]

t.test('*_BAD_OPTION errors never carry secret material', async (t) => {
  for (const [name, fn] of CASES) {
    let err: unknown
    try {
      fn()
    } catch (e) {
      err = e
    }
    t.match(err, { name: 'FwError', code: /^FW_ERR_[A-Z_]+_BAD_OPTION$/ }, `${name} throws a coded bad option`)
    const text = `${(err as Error).message}\n${inspect(err)}\n${JSON.stringify(err)}`
    for (const leak of LEAKS) t.notOk(text.includes(leak), `${name}: no ${leak.slice(0, 12)}...`)
  }
})

t.test('a secret in a wrong shape is described by its type and size', async (t) => {
  t.throws(() => session({ secret: [[SECRET, OTHER]] as unknown as string[] }), {
    message: /^session: secret must be .*; got a list of 2 items$/,
  })
  t.throws(() => jwt({ secret: { k: SECRET } as unknown as string }), { message: /; got an object$/ })
  t.throws(() => api_key({ allowed_keys: [SECRET, 42] as unknown as string[] }), {
    message: /; got a list of 2 items$/,
  })
})
