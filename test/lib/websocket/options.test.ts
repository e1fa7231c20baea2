// WebSocket route options: defaults, and FW_ERR_WS_BAD_OPTION naming the route, the option and the bad value.
import t from 'tap'
import { App } from '../../../index.js'
import { ERR_WS_BAD_OPTION, type WsOptions } from '../../../lib/websocket/index.js'
import { ws_settings } from '../../../lib/websocket/options.js'

t.test('ws_settings', async (t) => {
  t.test('fills in the defaults', async (t) => {
    t.same(ws_settings('ws /x'), {
      max_payload: 1024 * 1024,
      idle_timeout_ms: 0,
      heartbeat_ms: 30_000,
      per_message_deflate: false,
      high_water_mark: 1024 * 1024,
      on_backpressure: 'close',
      rate_limit: undefined,
      origins: undefined,
      protocols: undefined,
    })
  })

  t.test('keeps the subprotocols a route speaks, in its order', async (t) => {
    const { protocols } = ws_settings('ws /x', { protocols: ['graphql-transport-ws', 'graphql-ws'] })
    t.same(protocols, ['graphql-transport-ws', 'graphql-ws'])
    t.ok(Object.isFrozen(protocols), "a caller's later change to its list does not reach the route")
  })

  t.test('refuses bad options with the route and the value in the message', async (t) => {
    const origins_refused = (got: string): string =>
      `ws /x: origins must be a non-empty list of origins as browsers send them (scheme://host[:port]); got ${got}`
    const bad: Array<[unknown, string]> = [
      [{ max_payload: 0 }, 'ws /x: max_payload must be an integer >= 1; got 0'],
      [{ heartbeat_ms: -1 }, 'ws /x: heartbeat_ms must be an integer >= 0; got -1'],
      [{ idle_timeout_ms: 1.5 }, 'ws /x: idle_timeout_ms must be an integer >= 0; got 1.5'],
      [{ on_backpressure: 'queue' }, `ws /x: on_backpressure must be 'close' or 'drop'; got "queue"`],
      [{ per_message_deflate: 'yes' }, 'ws /x: per_message_deflate must be a boolean; got "yes"'],
      [
        { rate_limit: { max_messages: 0, window_ms: 10 } },
        'ws /x: rate_limit.max_messages must be an integer >= 1; got 0',
      ],
      [{ rate_limit: 5 }, 'ws /x: rate_limit must be { max_messages, window_ms }; got 5'],
      [{ origins: [] }, origins_refused('[]')],
      // Entries no browser sends in Origin, which would refuse the very pages they name.
      [{ origins: ['https://app.example.com/'] }, origins_refused('["https://app.example.com/"]')],
      [{ origins: ['https://App.example.com'] }, origins_refused('["https://App.example.com"]')],
      [{ origins: ['https://example.com:443'] }, origins_refused('["https://example.com:443"]')],
      [{ origins: ['app.example.com'] }, origins_refused('["app.example.com"]')],
      [{ origins: ['https://*.example.com'] }, origins_refused('["https://*.example.com"]')],
    ]
    const protocols_refused = (got: string): string =>
      `ws /x: protocols must be a non-empty list of distinct subprotocol names (HTTP tokens); got ${got}`
    bad.push(
      [{ protocols: [] }, protocols_refused('[]')],
      [{ protocols: 'graphql-ws' }, protocols_refused('"graphql-ws"')],
      // A name a client could not offer (ws refuses the header) or a 101 could not carry.
      [{ protocols: ['chat', 'graphql ws'] }, protocols_refused('["chat","graphql ws"]')],
      [{ protocols: ['chat', ''] }, protocols_refused('["chat",""]')],
      [{ protocols: ['a,b'] }, protocols_refused('["a,b"]')],
      [{ protocols: ['chat', 'chat'] }, protocols_refused('["chat","chat"]')],
      [{ protocols: [1] }, protocols_refused('[1]')],
    )
    for (const [options, message] of bad) {
      t.throws(() => ws_settings('ws /x', options as WsOptions), { code: ERR_WS_BAD_OPTION.code, message })
    }
  })

  t.test('refuses a heartbeat or idle timeout longer than a Node timer can wait', async (t) => {
    // Node runs a longer timer after 1 ms: every connection was pinged and cut (1006) at once, or spun its idle check.
    const too_long = 2 ** 31
    for (const option of ['heartbeat_ms', 'idle_timeout_ms'] as const) {
      t.throws(() => ws_settings('ws /x', { [option]: too_long }), {
        code: ERR_WS_BAD_OPTION.code,
        message: `ws /x: ${option} must be at most 2147483647 (the longest wait of a Node timer); got ${too_long}`,
      })
      t.equal(ws_settings('ws /x', { [option]: too_long - 1 })[option], too_long - 1)
    }
  })

  t.test('app.ws checks them at registration', async (t) => {
    const app = new App()
    t.throws(() => app.ws('/chat', () => {}, { max_payload: -5 }), {
      code: ERR_WS_BAD_OPTION.code,
      message: 'ws /chat: max_payload must be an integer >= 1; got -5',
    })
    t.throws(() => app.ws('/chat', 'nope' as never), { code: 'FW_ERR_APP_BAD_HANDLER' })
    t.throws(() => app.ws('/chat/{id', () => {}), { code: 'FW_ERR_APP_BAD_PATH' })
    await app.ready()
    t.throws(() => app.ws('/late', () => {}), {
      code: 'FW_ERR_APP_LOCKED',
      message: 'cannot add route WS /late after the app has started (listen, inject or mount)',
    })
    await app.close()
  })
})
