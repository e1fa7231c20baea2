// The configuration of the reference authentication API: options, FW_AUTH_* variables, defaults and startup checks.
import t from 'tap'
import { auth_api, auth_api_config, type AuthApiOptions } from '../../demo/auth-api/index.js'
import { App } from '../../index.js'

t.test('auth_api_config', async (t) => {
  t.test('defaults to demo mode, no admins, one-hour tokens and 5 / 20 login attempts a minute', async (t) => {
    const c = auth_api_config({ env: {} })
    t.same(
      [c.mode, [...c.admins], c.ttl, c.login_limit_per_email, c.login_limit_per_ip, c.rate_limit_store, c.passwords],
      [
        'demo',
        [],
        3600,
        { max_requests: 5, window_seconds: 60 },
        { max_requests: 20, window_seconds: 60 },
        undefined,
        undefined,
      ],
    )
    t.equal(c.now, Date.now)
  })

  t.test('defaults to 10 registrations an hour per client address, and takes a register_limit_per_ip', async (t) => {
    t.same(auth_api_config({ env: {} }).register_limit_per_ip, { max_requests: 10, window_seconds: 3600 })
    const limit = { max_requests: 2, window_seconds: 60 }
    t.same(auth_api_config({ env: {}, register_limit_per_ip: limit }).register_limit_per_ip, limit)
  })

  t.test('reads FW_AUTH_MODE, FW_AUTH_ADMINS and FW_AUTH_TOKEN_TTL', async (t) => {
    const c = auth_api_config({
      env: {
        FW_AUTH_MODE: 'production',
        FW_AUTH_ADMINS: ' Root@Example.com,,ops@example.com ',
        FW_AUTH_TOKEN_TTL: '900',
      },
    })
    t.same([c.mode, [...c.admins], c.ttl], ['production', ['root@example.com', 'ops@example.com'], 900])
  })

  t.test('lets an option win over its variable, and treats an empty variable as unset', async (t) => {
    const env = { FW_AUTH_MODE: 'production', FW_AUTH_ADMINS: 'root@example.com', FW_AUTH_TOKEN_TTL: '900' }
    const c = auth_api_config({ env, mode: 'demo', admins: [], ttl: 60 })
    t.same([c.mode, [...c.admins], c.ttl], ['demo', [], 60])
    const empty = auth_api_config({ env: { FW_AUTH_MODE: '', FW_AUTH_ADMINS: '', FW_AUTH_TOKEN_TTL: '' } })
    t.same([empty.mode, [...empty.admins], empty.ttl], ['demo', [], 3600])
  })

  t.test('reads process.env when no env is given', async (t) => {
    const saved = process.env.FW_AUTH_MODE
    t.teardown(() => void (saved === undefined ? delete process.env.FW_AUTH_MODE : (process.env.FW_AUTH_MODE = saved)))
    process.env.FW_AUTH_MODE = 'production'
    t.equal(auth_api_config().mode, 'production')
  })

  t.test('refuses bad values at startup with FW_ERR_AUTHAPI_BAD_OPTION', async (t) => {
    const cases: Array<[AuthApiOptions, string]> = [
      [
        { env: { FW_AUTH_MODE: 'Production' } },
        'auth_api: FW_AUTH_MODE must be "demo" or "production"; got "Production"',
      ],
      [{ env: { FW_AUTH_TOKEN_TTL: '1h' } }, 'auth_api: FW_AUTH_TOKEN_TTL must be a whole number of seconds; got "1h"'],
      [{ env: {}, mode: 'prod' as 'demo' }, 'auth_api: mode must be "demo" or "production"; got "prod"'],
      [{ env: {}, ttl: 0 }, 'auth_api: ttl must be a whole number of seconds >= 1; got 0'],
      [{ env: {}, ttl: 1.5 }, 'auth_api: ttl must be a whole number of seconds >= 1; got 1.5'],
      [
        { env: {}, admins: 'root@example.com' as unknown as string[] },
        'auth_api: admins must be a list of emails; got "root@example.com"',
      ],
      [{ env: {}, admins: [1] as unknown as string[] }, 'auth_api: admins must be a list of emails; got [1]'],
      [{ env: {}, now: 5 as unknown as () => number }, 'auth_api: now must be a function; got 5'],
      [{ env: {}, log: 'console' as unknown as () => void }, 'auth_api: log must be a function; got "console"'],
      [{ env: {}, log: { level: 'info' } as unknown as () => void }, 'auth_api: log must be a function; got an object'],
      [
        { env: {}, admins: [{ email: 'a@b.c' }] as unknown as string[] },
        'auth_api: admins must be a list of emails; got a list of 1 item',
      ],
      [
        { env: {}, passwords: { hash: () => '' } as never },
        'auth_api: passwords must be a PasswordHasher (hash and verify functions); got an object',
      ],
      [
        { env: {}, passwords: 'pepper' as never },
        'auth_api: passwords must be a PasswordHasher (hash and verify functions); got a string of 6 characters',
      ],
      [
        { env: {}, users: { by_email: () => undefined } as never },
        'auth_api: users must be a store with reserve, release, create, by_email, by_id, list; got an object',
      ],
      [{ env: {}, tokens: new Map() as never }, 'auth_api: tokens must be a store with issue, user_id; got an object'],
    ]
    for (const [options, message] of cases)
      t.throws(() => auth_api_config(options), { code: 'FW_ERR_AUTHAPI_BAD_OPTION', message })
  })

  t.test('makes auth_api fail when it is set up, not on the first request', async (t) => {
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    t.throws(() => auth_api(app, { env: {}, mode: 'production', scrypt: { cost: 3 } }), {
      code: 'FW_ERR_AUTHAPI_BAD_OPTION',
    })
    t.throws(
      () => auth_api(app, { env: {}, mode: 'production', login_limit_per_ip: { max_requests: 0, window_seconds: 60 } }),
      { code: 'FW_ERR_SECURITY_BAD_OPTION' },
    )
    for (const register_limit_per_ip of [{ max_requests: 10, window_seconds: 0 }, 10 as never]) {
      const fresh = new App({ access_log: false })
      t.teardown(() => fresh.close())
      t.throws(() => auth_api(fresh, { env: {}, mode: 'production', register_limit_per_ip }), {
        code: 'FW_ERR_SECURITY_BAD_OPTION',
      })
    }
  })
})
