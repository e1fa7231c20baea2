import t, { type Test } from 'tap'
import { DEFAULT_FORM_LIMITS } from '../../lib/body/limits.js'
import { ERR_CONFIG_BAD_VALUE, resolve_config } from '../../lib/config.js'

const SERVER = {
  drain_ms: 0,
  https: undefined,
  http2: false,
  keep_alive_timeout_ms: 72000,
  request_timeout_ms: 300000,
  headers_timeout_ms: 60000,
  max_connections: 0,
  check_responses: false,
}
const TRUST = 'FW_TRUST_PROXY must be true, false, or IP addresses and CIDRs separated by commas'

/** Each case's options and environment throw FW_ERR_CONFIG_BAD_VALUE with its message. */
function refuses(t: Test, cases: ReadonlyArray<[Record<string, unknown>, NodeJS.ProcessEnv, string]>): void {
  for (const [options, env, message] of cases) {
    t.throws(() => resolve_config(options, env), { code: ERR_CONFIG_BAD_VALUE.code, message }, message)
  }
}

t.test('resolve_config', async (t) => {
  t.test('applies the documented defaults', async (t) => {
    t.same(resolve_config({}, {}), {
      port: 8080,
      host: '127.0.0.1',
      trust_proxy: false,
      body_limit: 1048576,
      close_timeout_ms: 10000,
      request_id: true,
      access_log: 'info',
      form_limits: DEFAULT_FORM_LIMITS,
      ...SERVER,
    })
  })

  t.test('takes the options when no environment variable is set', async (t) => {
    const c = resolve_config(
      {
        port: 3000,
        host: '0.0.0.0',
        trust_proxy: ['10.0.0.0/8'],
        body_limit: 10,
        close_timeout_ms: 5,
        request_id: false,
        access_log: false,
      },
      {},
    )
    t.same(c, {
      port: 3000,
      host: '0.0.0.0',
      trust_proxy: ['10.0.0.0/8'],
      body_limit: 10,
      close_timeout_ms: 5,
      request_id: false,
      access_log: false,
      ...SERVER,
      form_limits: DEFAULT_FORM_LIMITS,
    })
  })

  t.test('lets FW_* environment variables override the options', async (t) => {
    const c = resolve_config(
      { port: 3000, host: '0.0.0.0', trust_proxy: false, body_limit: 10, close_timeout_ms: 5, access_log: 'info' },
      {
        FW_PORT: '9090',
        FW_HOST: '::1',
        FW_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8',
        FW_BODY_LIMIT: '64',
        FW_CLOSE_TIMEOUT_MS: '250',
        FW_ACCESS_LOG: 'off',
      },
    )
    t.same(c, {
      port: 9090,
      host: '::1',
      trust_proxy: ['127.0.0.1', '10.0.0.0/8'],
      body_limit: 64,
      close_timeout_ms: 250,
      request_id: true,
      access_log: false,
      ...SERVER,
      form_limits: DEFAULT_FORM_LIMITS,
    })
  })

  t.test('reads the server timeouts and connection limit from options and FW_* variables', async (t) => {
    const c = resolve_config(
      { keep_alive_timeout_ms: 1, request_timeout_ms: 2, headers_timeout_ms: 3, max_connections: 4, http2: true },
      { FW_MAX_CONNECTIONS: '9' },
    )
    t.same(
      [c.keep_alive_timeout_ms, c.request_timeout_ms, c.headers_timeout_ms, c.max_connections, c.http2],
      [1, 2, 3, 9, true],
    )
    t.throws(() => resolve_config({}, { FW_KEEP_ALIVE_TIMEOUT_MS: 'soon' }), {
      message: 'FW_KEEP_ALIVE_TIMEOUT_MS must be an integer >= 0; got "soon"',
    })
  })

  t.test('refuses a timeout longer than a Node timer can wait, which would fire after 1 ms', async (t) => {
    const names = { close_timeout_ms: 'FW_CLOSE_TIMEOUT_MS', drain_ms: 'FW_DRAIN_MS' } as const
    for (const [option, variable] of Object.entries(names)) {
      t.equal(resolve_config({ [option]: 2 ** 31 - 1 }, {})[option as keyof typeof names], 2 ** 31 - 1, option)
      t.throws(() => resolve_config({ [option]: 2 ** 31 }, {}), {
        code: 'FW_ERR_CONFIG_BAD_VALUE',
        message: `${variable} must be an integer from 0 to 2147483647; got 2147483648`,
      })
      t.throws(() => resolve_config({}, { [variable]: '2592000000' }), {
        code: 'FW_ERR_CONFIG_BAD_VALUE',
        message: `${variable} must be an integer from 0 to 2147483647; got "2592000000"`,
      })
    }
  })

  t.test('reads drain_ms from the option and FW_DRAIN_MS', async (t) => {
    t.equal(resolve_config({ drain_ms: 5000 }, {}).drain_ms, 5000)
    t.equal(resolve_config({ drain_ms: 5000 }, { FW_DRAIN_MS: '15000' }).drain_ms, 15000)
    t.throws(() => resolve_config({ drain_ms: -1 }, {}), {
      message: 'FW_DRAIN_MS must be an integer from 0 to 2147483647; got -1',
    })
  })

  t.test('reads FW_TRUST_PROXY true, false and proxy-addr names', async (t) => {
    t.equal(resolve_config({ trust_proxy: ['1.2.3.4'] }, { FW_TRUST_PROXY: 'false' }).trust_proxy, false)
    t.equal(resolve_config({}, { FW_TRUST_PROXY: 'true' }).trust_proxy, true)
    t.equal(resolve_config({}, { FW_TRUST_PROXY: ' true ' }).trust_proxy, true, 'trimmed, as every variable')
    t.equal(resolve_config({ trust_proxy: true }, { FW_TRUST_PROXY: 'false\n' }).trust_proxy, false)
    t.same(resolve_config({}, { FW_TRUST_PROXY: 'loopback,::1' }).trust_proxy, ['loopback', '::1'])
  })

  t.test('reads the access line level by any of its names; false, off and none turn it off', async (t) => {
    const cases: Array<[string, string | false]> = [
      ['WARNING', 'warn'],
      ['fatal', 'critical'],
      [' debug ', 'debug'],
      ['false', false],
      ['off', false],
      ['none', false],
    ]
    for (const [raw, want] of cases) t.equal(resolve_config({}, { FW_ACCESS_LOG: raw }).access_log, want, raw)
    t.equal(resolve_config({ access_log: false }, {}).access_log, false)
  })

  t.test('ignores empty environment variables', async (t) => {
    const c = resolve_config(
      { port: 3000, body_limit: 10, trust_proxy: ['1.2.3.4'] },
      { FW_PORT: '', FW_BODY_LIMIT: '', FW_TRUST_PROXY: '' },
    )
    t.equal(c.port, 3000)
    t.equal(c.body_limit, 10)
    t.same(c.trust_proxy, ['1.2.3.4'])
  })

  t.test('throws FW_ERR_CONFIG_BAD_VALUE for a bad environment value, quoting it', async (t) => {
    refuses(t, [
      [{}, { FW_PORT: 'http' }, 'FW_PORT must be an integer from 0 to 65535; got "http"'],
      [{}, { FW_PORT: '80.5' }, 'FW_PORT must be an integer from 0 to 65535; got "80.5"'],
      [{}, { FW_PORT: '-1' }, 'FW_PORT must be an integer from 0 to 65535; got "-1"'],
      [{}, { FW_PORT: '65536' }, 'FW_PORT must be an integer from 0 to 65535; got "65536"'],
      [{}, { FW_TRUST_PROXY: '127.0.0.1,proxy.local' }, TRUST + '; got "127.0.0.1,proxy.local"'],
      [{}, { FW_TRUST_PROXY: '10.0.0.0/33' }, TRUST + '; got "10.0.0.0/33"'],
      // Fastify's proxy-addr refuses a /0 range (listen failed later with a TypeError): `true` trusts every peer.
      [{}, { FW_TRUST_PROXY: '0.0.0.0/0' }, TRUST + '; got "0.0.0.0/0"'],
      [{}, { FW_TRUST_PROXY: '10.0.0.1,::/0' }, TRUST + '; got "10.0.0.1,::/0"'],
      [{ trust_proxy: ['::ffff:10.0.0.1/0'] }, {}, TRUST + '; got ["::ffff:10.0.0.1/0"]'],
      [{}, { FW_BODY_LIMIT: '1mb' }, 'FW_BODY_LIMIT must be an integer >= 0; got "1mb"'],
      [{}, { FW_CLOSE_TIMEOUT_MS: 'soon' }, 'FW_CLOSE_TIMEOUT_MS must be an integer from 0 to 2147483647; got "soon"'],
      [
        {},
        { FW_ACCESS_LOG: 'loud' },
        'FW_ACCESS_LOG must be a log level (trace, debug, info, warn, error, critical) or false; got "loud"',
      ],
    ])
  })

  t.test('reads integers only as decimal digits: no hex, binary, exponent, or blank read as 0', async (t) => {
    refuses(t, [
      [{}, { FW_PORT: '0x50' }, 'FW_PORT must be an integer from 0 to 65535; got "0x50"'],
      [{}, { FW_PORT: '8e3' }, 'FW_PORT must be an integer from 0 to 65535; got "8e3"'],
      [{}, { FW_BODY_LIMIT: '0b11' }, 'FW_BODY_LIMIT must be an integer >= 0; got "0b11"'],
      [{}, { FW_BODY_LIMIT: '1e6' }, 'FW_BODY_LIMIT must be an integer >= 0; got "1e6"'],
      [{}, { FW_MAX_CONNECTIONS: '1_000' }, 'FW_MAX_CONNECTIONS must be an integer >= 0; got "1_000"'],
      // Past 2^53 digits are not read exactly: 99999999999999999999 was taken as 1e20.
      [
        {},
        { FW_BODY_LIMIT: '99999999999999999999' },
        'FW_BODY_LIMIT must be an integer >= 0; got "99999999999999999999"',
      ],
      [{ body_limit: 2 ** 60 }, {}, 'FW_BODY_LIMIT must be an integer >= 0; got 1152921504606847000'],
    ])
    const c = resolve_config(
      { port: 3000, body_limit: 10, trust_proxy: ['1.2.3.4'] },
      {
        FW_PORT: ' ',
        FW_BODY_LIMIT: '\t',
        FW_TRUST_PROXY: ' ',
        FW_DRAIN_MS: ' 250 ',
      },
    )
    t.same(
      [c.port, c.body_limit, c.trust_proxy, c.drain_ms],
      [3000, 10, ['1.2.3.4'], 250],
      'a blank variable is unset, like an empty one; spaces around digits are dropped',
    )
  })

  t.test('throws FW_ERR_CONFIG_BAD_VALUE for options of the wrong type, never a TypeError', async (t) => {
    refuses(t, [
      [{ trust_proxy: 'true' }, {}, TRUST + '; got "true"'],
      [{ trust_proxy: ['10.0.0.1', 7] }, {}, TRUST + '; got ["10.0.0.1",7]'],
      [{ request_id: 'false' }, {}, 'request_id must be true or false; got "false"'],
      [{ http2: 'true' }, {}, 'http2 must be true or false; got "true"'],
      [{ host: 8080 }, {}, 'FW_HOST must be a host name or address; got 8080'],
    ])
    t.same(
      [resolve_config({ request_id: false, http2: true }, {}).request_id, resolve_config({ http2: true }, {}).http2],
      [false, true],
    )
  })

  t.test('throws FW_ERR_CONFIG_BAD_VALUE for a bad option', async (t) => {
    t.throws(() => resolve_config({ body_limit: -5 }, {}), {
      code: 'FW_ERR_CONFIG_BAD_VALUE',
      message: 'FW_BODY_LIMIT must be an integer >= 0; got -5',
    })
    t.throws(() => resolve_config({ trust_proxy: ['not-an-ip'] }, {}), {
      code: 'FW_ERR_CONFIG_BAD_VALUE',
      message: TRUST + '; got ["not-an-ip"]',
    })
    t.throws(() => resolve_config({ port: 1.5 }, {}), {
      code: 'FW_ERR_CONFIG_BAD_VALUE',
      message: 'FW_PORT must be an integer from 0 to 65535; got 1.5',
    })
  })

  t.test('checks responses by default only where NODE_ENV is test or development', async (t) => {
    const on = (env: string | undefined, option?: boolean) =>
      resolve_config(
        option === undefined ? {} : { check_responses: option },
        env === undefined ? {} : { NODE_ENV: env },
      ).check_responses
    t.same(
      [on('test'), on('development'), on('production'), on(undefined), on('staging'), on('')],
      [true, true, false, false, false, false],
    )
    t.same([on('test', false), on('production', true), on(undefined, true)], [false, true, true])
    t.throws(() => resolve_config({ check_responses: 'yes' as unknown as boolean }, {}), {
      code: 'FW_ERR_CONFIG_BAD_VALUE',
      message: 'check_responses must be true or false; got "yes"',
    })
  })

  t.test('reads process.env by default', async (t) => {
    const saved = process.env.FW_BODY_LIMIT
    t.teardown(() => {
      if (saved === undefined) delete process.env.FW_BODY_LIMIT
      else process.env.FW_BODY_LIMIT = saved
    })
    process.env.FW_BODY_LIMIT = '123'
    t.equal(resolve_config({ body_limit: 5 }).body_limit, 123)
  })
})
