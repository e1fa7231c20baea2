// Every option of auth, security, sessions and fw/redis, given a marker secret in every shape a credential takes (a
// URL's userinfo, an object, bytes, a function, and for the secret-bearing options the text itself): an option error
// may name the option and describe the value, but neither its message nor its stack may hold the marker.
import { inspect } from 'node:util'
import t from 'tap'
import { api_key_dev, jwt_dev, session_dev, sign_dev_token } from '../../lib/middleware/app/auth-presets.js'
import { api_key } from '../../lib/middleware/auth/api-key.js'
import { jwt } from '../../lib/middleware/auth/jwt.js'
import { rbac_context } from '../../lib/middleware/auth/rbac.js'
import { require_any_perm, require_role } from '../../lib/middleware/auth/rbac-checks.js'
import { InMemorySessionStore } from '../../lib/middleware/auth/session-store.js'
import { session } from '../../lib/middleware/auth/session.js'
import { body_limit } from '../../lib/middleware/security/body-limit.js'
import { cors } from '../../lib/middleware/security/cors.js'
import { csrf } from '../../lib/middleware/security/csrf.js'
import { security_headers } from '../../lib/middleware/security/headers.js'
import { ip_filter } from '../../lib/middleware/security/ip-filter.js'
import { MemoryRateLimitStore } from '../../lib/middleware/security/rate-limit-store.js'
import { rate_limit } from '../../lib/middleware/security/rate-limit.js'
import {
  create_redis_client,
  RedisCacheStore,
  RedisRateLimitStore,
  RedisRoomBus,
  RedisSessionStore,
} from '../../lib/redis/index.js'

const MARKER = 'Qz7Marker-Secret-0d1e2f3a4b5c6d7e8f90'
/** Any piece of the marker at least this long found in a message is a leak. */
const NEEDLES = [
  MARKER.slice(0, 9),
  ...[Buffer.from(MARKER)].flatMap((b) => [b.toString('hex'), b.toString('base64'), [...b].join(',')]),
]

/** Every shape a credential may take in any option; no option may quote it. */
const ANY_OPTION: unknown[] = [
  `https://user:${MARKER}@127.0.0.1:1/jwks.json`,
  `ftp://user:${MARKER}@127.0.0.1:1/jwks`,
  `http://:${MARKER}@127.0.0.1:1/`,
  `redis://default:${MARKER}@127.0.0.1:1/0`,
  [`https://${MARKER}@127.0.0.1:1/`],
  { password: MARKER },
  [{ token: MARKER }],
  new (class Holder {
    key = MARKER
  })(),
  Buffer.from(MARKER),
  new Uint16Array(Buffer.from(MARKER)),
  () => MARKER,
]
/** The shapes a secret-bearing option (a key, a secret, a client) may be given in, beside those above. */
const SECRET_OPTION: unknown[] = [
  MARKER,
  MARKER.slice(0, 12),
  [MARKER, 42],
  [MARKER, ''],
  [[MARKER]],
  { kty: 'oct', k: MARKER },
  `-----BEGIN PUBLIC KEY-----\n${MARKER}\n-----END PUBLIC KEY-----`,
]

const REDIS = 'redis://127.0.0.1:1/0'

interface Owner {
  name: string
  /** Builds the owner with `value` as option `option`. */
  make: (option: string, value: unknown) => unknown
  options: string[]
  secret_options: string[]
}

const with_options =
  (factory: (o: never) => unknown, base: (option: string) => object) =>
  (option: string, value: unknown): unknown =>
    factory({ ...base(option), [option]: value } as never)
const positional = (call: (value: never) => unknown) => (_option: string, value: unknown) => call(value as never)
const redis = (Store: new (o: never) => unknown) => (option: string, value: unknown) =>
  new Store({ client: REDIS, ...{ [option]: value } } as never)

const OWNERS: Owner[] = [
  {
    name: 'api_key',
    make: with_options(api_key, () => ({ allowed_keys: ['k-0123456789'] })),
    options: ['header', 'query_param', 'required', 'allowed_keys', 'extract', 'validate'],
    secret_options: ['allowed_keys', 'validate', 'extract'],
  },
  {
    name: 'jwt',
    make: with_options(jwt, (o) => (['secret', 'public_key', 'jwks'].includes(o) ? {} : { secret: 's'.repeat(32) })),
    options: [
      ...['secret', 'public_key', 'jwks', 'jwks_timeout_ms', 'jwks_cooldown_ms', 'jwks_max_age_ms', 'jwks_unavailable'],
      ...['algorithms', 'verify_exp', 'clock_tolerance', 'issuer', 'audience', 'required_claims', 'roles_key'],
      ...['cookie', 'query_param', 'extract', 'cache_size'],
    ],
    secret_options: ['secret', 'public_key', 'extract'],
  },
  {
    name: 'session',
    make: with_options(session, () => ({ secret: 's'.repeat(16) })),
    options: [
      ...['secret', 'store', 'cookie_name', 'cookie_path', 'secure', 'http_only', 'same_site', 'ttl'],
      ...['auto_create', 'serialize', 'rolling', 'absolute_ttl', 'end_grace', 'now'],
    ],
    secret_options: ['secret'],
  },
  {
    name: 'InMemorySessionStore',
    make: with_options(
      (o) => new InMemorySessionStore(o),
      () => ({}),
    ),
    options: ['max_entries', 'now'],
    secret_options: [],
  },
  {
    name: 'rbac_context',
    make: with_options(rbac_context, () => ({})),
    options: ['roles_key', 'perms_key', 'require_auth', 'use_resolver'],
    secret_options: [],
  },
  { name: 'require_role', make: positional(require_role), options: ['role'], secret_options: [] },
  { name: 'require_any_perm', make: positional(require_any_perm), options: ['perms'], secret_options: [] },
  { name: 'jwt_dev', make: positional(jwt_dev), options: ['secret'], secret_options: ['secret'] },
  { name: 'api_key_dev', make: positional(api_key_dev), options: ['key'], secret_options: ['key'] },
  { name: 'session_dev', make: positional(session_dev), options: ['secret'], secret_options: ['secret'] },
  {
    name: 'sign_dev_token',
    make: positional((v) => sign_dev_token(v, {})),
    options: ['secret'],
    secret_options: ['secret'],
  },
  {
    name: 'cors',
    make: with_options(cors, () => ({ origins: ['https://a.example.com'] })),
    options: ['origins', 'reflect_headers', 'allow_credentials', 'methods', 'headers', 'expose_headers', 'max_age'],
    secret_options: [],
  },
  {
    name: 'csrf',
    make: with_options(csrf, () => ({})),
    options: [
      ...['cookie_name', 'secret', 'header_name', 'field_name', 'cookie_path', 'secure', 'same_site'],
      'trusted_origins',
    ],
    secret_options: ['secret'],
  },
  {
    name: 'security_headers',
    make: with_options(security_headers, () => ({})),
    options: ['hsts', 'csp', 'permissions_policy', 'overrides', 'csp_nonce'],
    secret_options: [],
  },
  {
    name: 'ip_filter',
    make: with_options(ip_filter, () => ({ allow: ['127.0.0.1'] })),
    options: ['allow', 'deny'],
    secret_options: [],
  },
  {
    name: 'rate_limit',
    make: with_options(rate_limit, () => ({ max_requests: 1, window_seconds: 1 })),
    options: [
      ...['max_requests', 'window_seconds', 'key', 'key_fn', 'api_key_header', 'store', 'namespace', 'now'],
      ...['fail_open', 'ietf_headers', 'policy', 'allow', 'override'],
    ],
    secret_options: [],
  },
  {
    name: 'MemoryRateLimitStore',
    make: with_options(
      (o) => new MemoryRateLimitStore(o),
      () => ({}),
    ),
    options: ['max_keys', 'now'],
    secret_options: [],
  },
  { name: 'body_limit', make: with_options(body_limit, () => ({})), options: ['max_bytes'], secret_options: [] },
  {
    name: 'RedisSessionStore',
    make: redis(RedisSessionStore),
    options: ['client', 'prefix', 'lock_ttl_ms', 'lock_wait_ms'],
    secret_options: ['client'],
  },
  {
    name: 'RedisCacheStore',
    make: redis(RedisCacheStore),
    options: ['client', 'prefix', 'expire_after_ms'],
    secret_options: ['client'],
  },
  {
    name: 'RedisRateLimitStore',
    make: redis(RedisRateLimitStore),
    options: ['client', 'prefix'],
    secret_options: ['client'],
  },
  { name: 'RedisRoomBus', make: redis(RedisRoomBus), options: ['client', 'prefix'], secret_options: ['client'] },
  {
    name: 'create_redis_client',
    make: positional(create_redis_client),
    options: ['options'],
    secret_options: ['options'],
  },
]

/** Closes what a call made, when it made something that holds a connection. */
async function dispose(made: unknown): Promise<void> {
  const m = made as { close?: () => unknown; disconnect?: () => unknown } | null
  if (typeof m?.disconnect === 'function') return void m.disconnect()
  if (typeof m?.close === 'function' && m.constructor.name.startsWith('Redis')) await m.close()
}

t.test('no *_BAD_OPTION of auth, security, sessions or fw/redis quotes a secret or a URL userinfo', async (t) => {
  let refused = 0
  const leaks: string[] = []
  const uncoded: string[] = []
  for (const owner of OWNERS) {
    for (const option of owner.options) {
      const values = owner.secret_options.includes(option) ? [...ANY_OPTION, ...SECRET_OPTION] : ANY_OPTION
      for (const [i, value] of values.entries()) {
        const what = `${owner.name} ${option} #${i}`
        let made: unknown
        try {
          made = owner.make(option, value)
        } catch (err) {
          refused++
          const code = (err as { code?: unknown }).code
          if (typeof code !== 'string' || !/^FW_ERR_[A-Z_]+$/.test(code)) uncoded.push(`${what}: ${code}`)
          const e = err as Error
          const text = `${e.message}\n${e.stack}\n${inspect(err)}`
          if (NEEDLES.some((n) => text.includes(n))) leaks.push(`${what}: ${e.message}`)
        }
        await dispose(made)
      }
    }
  }
  t.same(leaks, [], 'no message or stack holds the marker')
  t.same(uncoded, [], 'every refusal is a coded FW_ERR_*')
  t.ok(refused > 300, `the walk reaches the option checks (${refused} refusals)`)
})

t.test('the cases the issue names describe the secret and hide the userinfo', async (t) => {
  t.throws(() => api_key({ validate: MARKER as never }), {
    code: 'FW_ERR_AUTH_BAD_OPTION',
    message: `api_key: validate must be a function; got a string of ${MARKER.length} characters`,
  })
  t.throws(() => jwt({ jwks: `ftp://user:${MARKER}@host/jwks` }), {
    code: 'FW_ERR_AUTH_BAD_OPTION',
    message: 'jwt: jwks must be an http(s) URL; got "ftp://***@host/jwks"',
  })
})
