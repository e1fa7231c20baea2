// WebSocketConnection over a fake socket: what send puts on the wire, limits (backpressure, rate, size), heartbeat and
// idle timers under fake time, and room membership ending with the connection.
import { mock } from 'node:test'
import t from 'tap'
import { Request } from '../../../lib/request.js'
import { Services } from '../../../lib/state.js'
import { Rooms, WebSocketConnection, type WsHandler, type WsOptions } from '../../../lib/websocket/index.js'
import { ws_settings } from '../../../lib/websocket/options.js'
import { gate } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'
import { THENABLE_KINDS } from '../../helpers/thenable.js'
import { FakeSocket } from './fake-socket.js'
import { host_request } from '../../helpers/host-request.js'

const host = host_request({ id: 'rid-1', url: '/ws' })

function open(
  options: WsOptions = {},
  rooms = new Rooms(),
): { raw: FakeSocket; ws: WebSocketConnection; rooms: Rooms } {
  const raw = new FakeSocket()
  const ws = new WebSocketConnection(
    raw,
    new Request(host, new Services()),
    ws_settings('ws /ws', { heartbeat_ms: 0, ...options }),
    rooms,
  )
  return { raw, ws, rooms }
}

t.test('WebSocketConnection.send', async (t) => {
  t.test('sends strings as text, bytes as binary and other values as JSON text', async (t) => {
    const { raw, ws } = open()
    t.equal(ws.send('hé'), true)
    ws.send(Buffer.from([1, 2]))
    ws.send(new Uint8Array([3]))
    ws.send({ a: 1 })
    ws.send(null)
    t.same(
      raw.sent.map((s) => [typeof s.data === 'string' ? s.data : s.data.toString('hex'), s.binary]),
      [
        ['hé', false],
        ['0102', true],
        ['03', true],
        ['{"a":1}', false],
        ['null', false],
      ],
    )
  })

  t.test('sends nothing once closed', async (t) => {
    const { raw, ws } = open()
    raw.peer_closed()
    t.equal(ws.send('late'), false)
    t.equal(raw.sent.length, 0)
  })

  t.test('closes a client past the high-water mark with 1013', async (t) => {
    const { raw, ws } = open({ high_water_mark: 100 })
    raw.bufferedAmount = 101
    t.equal(ws.send('x'), false)
    t.same(raw.closed_with, { code: 1013, reason: 'client too slow' })
    t.equal(raw.sent.length, 0)
  })

  t.test("drops messages past the high-water mark with on_backpressure: 'drop'", async (t) => {
    const { raw, ws } = open({ high_water_mark: 100, on_backpressure: 'drop' })
    raw.bufferedAmount = 101
    t.equal(ws.send('a'), false)
    t.equal(ws.send('b'), false)
    t.equal(ws.dropped, 2)
    t.equal(raw.closed_with, undefined)
    raw.bufferedAmount = 0
    t.equal(ws.send('c'), true)
    t.same(raw.texts(), ['c'])
  })
})

t.test('WebSocketConnection.on_message', async (t) => {
  t.test('gives text frames as strings and binary frames as Buffers', async (t) => {
    const { raw, ws } = open()
    const got: unknown[] = []
    ws.on_message((m) => got.push(m))
    raw.message('hi')
    raw.message(Buffer.from([9]))
    t.same(got, ['hi', Buffer.from([9])])
  })

  t.test('a handler registered while a message is handled gets the messages after it, not that one', async (t) => {
    const { raw, ws } = open()
    const first: unknown[] = []
    const later: unknown[] = []
    ws.on_message((m) => {
      first.push(m)
      if (m === 'subscribe') ws.on_message((n) => void later.push(n))
    })
    raw.message('subscribe')
    raw.message('news')
    t.same(first, ['subscribe', 'news'])
    t.same(later, ['news'], 'as EventEmitter and addEventListener: no call for the message being dispatched')
  })

  t.test('counts messages per fixed window and closes with 1008 past max_messages', async (t) => {
    mock.timers.enable({ apis: ['Date'], now: 0 })
    t.teardown(() => mock.timers.reset())
    const { raw, ws } = open({ rate_limit: { max_messages: 2, window_ms: 1000 } })
    let got = 0
    ws.on_message(() => void got++)
    raw.message('1')
    raw.message('2')
    mock.timers.tick(1000)
    raw.message('3')
    raw.message('4')
    t.equal(raw.closed_with, undefined)
    raw.message('5')
    t.same(raw.closed_with, { code: 1008, reason: 'message rate limit exceeded' })
    t.equal(got, 4)
  })

  t.test('closes a message over max_payload with 1009 without handling it', async (t) => {
    const { raw, ws } = open({ max_payload: 3 })
    let got = 0
    ws.on_message(() => void got++)
    raw.message('abcd')
    t.same(raw.closed_with, { code: 1009, reason: 'message too big' })
    t.equal(got, 0)
  })

  t.test('closes with 1011 when a handler rejects, and logs it', async (t) => {
    const out = capture_log(t)
    const { raw, ws } = open()
    ws.on_message(async () => {
      throw new Error('async failure')
    })
    raw.message('x')
    await new Promise((resolve) => setImmediate(resolve))
    t.same(raw.closed_with, { code: 1011, reason: 'internal error' })
    t.match(out.text(), /\[error\] ws handler failed rid=rid-1 .*err="Error: async failure/)
  })
})

t.test('WebSocketConnection.run: a handler that awaits before on_message', async (t) => {
  /** A tick for microtasks and promise callbacks. */
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
  /**
   * A connection whose handler awaits `user` before its `on_message` (which collects into `got`), sent 4 bytes over
   * its `max_payload` of 3, so it is paused.
   */
  const paused = (options: WsOptions = {}) => {
    const user = gate()
    const { raw, ws } = open({ max_payload: 3, ...options })
    const got: unknown[] = []
    ws.run(async (ws) => {
      await user.promise
      ws.on_message((m) => void got.push(m))
    })
    raw.message('ab')
    raw.message('cd')
    return { raw, ws, user, got }
  }

  t.test('does not pause for a synchronous handler, nor for one that registers before its first await', async (t) => {
    for (const handler of [
      (ws: WebSocketConnection) => void ws.on_message(() => {}),
      async (ws: WebSocketConnection) => {
        ws.on_message(() => {})
        await settle()
      },
      () => {},
    ]) {
      const { raw, ws } = open()
      ws.run(handler)
      t.equal(raw.paused, false)
    }
  })

  t.test(
    'holds what arrives, unpaused, and gives it in order to the first on_message before any later message',
    async (t) => {
      const user = gate()
      const { raw, ws } = open()
      const got: unknown[] = []
      ws.run(async (ws) => {
        await user.promise
        ws.on_message((m) => void got.push(m))
        got.push('registered')
        // Emitted before the held messages are delivered: it must not overtake them.
        raw.message('late')
      })
      raw.message('a')
      raw.message(Buffer.from([1]))
      t.equal(raw.paused, false, 'what is held stays under max_payload: the socket reads on (a close, a pong)')
      t.same(got, [])
      user.open()
      await settle()
      t.same(got, ['registered', 'a', Buffer.from([1]), 'late'])
      t.equal(raw.paused, false)
      raw.message('b')
      t.same(got.at(-1), 'b')
    },
  )

  t.test('pauses once what it holds passes max_payload, and reads again when the messages are taken', async (t) => {
    const { raw, user, got } = paused()
    t.equal(raw.paused, true, '4 bytes held, over 3')
    // What ws had read before the pause still arrives, and is held too.
    raw.message('ef')
    user.open()
    await settle()
    t.same(got, ['ab', 'cd', 'ef'])
    t.equal(raw.paused, false)
  })

  t.test('applies the limits to a held message when it arrives, and drops the rest once closed', async (t) => {
    const user = gate()
    const { raw, ws } = open({ max_payload: 3 })
    let got = 0
    ws.run(async (ws) => {
      await user.promise
      ws.on_message(() => void got++)
    })
    raw.message('abc')
    raw.message('abcd')
    t.same(raw.closed_with, { code: 1009, reason: 'message too big' })
    t.equal(raw.paused, false, 'reading again lets the close answer in')
    user.open()
    await settle()
    t.equal(got, 0, 'nothing is delivered after the close')
  })

  t.test('resumes and drops what was held when the handler resolves without on_message', async (t) => {
    const user = gate()
    const { raw, ws } = open()
    const got: unknown[] = []
    ws.run(async () => {
      await user.promise
    })
    raw.message('early')
    user.open()
    await settle()
    t.equal(raw.paused, false)
    ws.on_message((m) => void got.push(m))
    await settle()
    raw.message('next')
    t.same(got, ['next'], 'a message handler registered later gets only what arrives then')
  })

  t.test('closes with 1011 and resumes when the handler rejects before on_message', async (t) => {
    const out = capture_log(t)
    const { raw, ws } = open({ max_payload: 3 })
    ws.run(async () => {
      await settle()
      throw new Error('no such user')
    })
    raw.message('ab')
    raw.message('cd')
    t.equal(raw.paused, true)
    await settle()
    await settle()
    t.same(raw.closed_with, { code: 1011, reason: 'internal error' })
    t.equal(raw.paused, false)
    t.match(out.text(), /\[error\] ws handler failed rid=rid-1 .*err="Error: no such user/)
  })

  t.test('leaves nothing pending when the server closes or cuts the connection while paused', async (t) => {
    for (const end of ['close', 'terminate'] as const) {
      const { raw, ws, user, got } = paused()
      t.equal(raw.paused, true)
      if (end === 'close') ws.close()
      else ws.terminate()
      // Closing, the socket reads the peer's answer again; a cut one is gone.
      if (end === 'close') t.equal(raw.paused, false, 'close reads again')
      user.open()
      await settle()
      t.same(got, [], end)
    }
  })

  t.test('drops the held messages when the connection closes before their delivery', async (t) => {
    const { raw, ws } = open()
    let got = 0
    ws.run(async (ws) => {
      await settle()
      ws.on_message(() => void got++)
      raw.peer_closed(1006)
    })
    raw.message('held')
    await settle()
    await settle()
    t.equal(got, 0)
  })

  t.test('the heartbeat counts a paused peer as alive, then cuts it as before once it reads again', async (t) => {
    mock.timers.enable({ apis: ['setInterval', 'setTimeout'] })
    t.teardown(() => mock.timers.reset())
    const { raw, user } = paused({ heartbeat_ms: 1000 })
    mock.timers.tick(5000)
    t.equal(raw.terminated, false, 'no pong can be read while paused')
    t.equal(raw.pings, 5)
    user.open()
    await settle()
    t.equal(raw.paused, false)
    mock.timers.tick(1000)
    t.equal(raw.terminated, false, 'a whole interval to answer the first ping read after the pause')
    mock.timers.tick(1000)
    t.equal(raw.terminated, true)
  })

  t.test('the idle timeout does not count the paused time', async (t) => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 })
    t.teardown(() => mock.timers.reset())
    const { raw, user } = paused({ idle_timeout_ms: 1000 })
    mock.timers.tick(3500)
    t.equal(raw.closed_with, undefined)
    user.open()
    await settle()
    mock.timers.tick(900)
    t.equal(raw.closed_with, undefined)
    mock.timers.tick(1100)
    t.same(raw.closed_with, { code: 1000, reason: 'idle timeout' })
  })
})

t.test('WebSocketConnection timers', async (t) => {
  t.test('pings every heartbeat_ms and cuts a peer that did not answer the last ping', async (t) => {
    mock.timers.enable({ apis: ['setInterval', 'setTimeout'] })
    t.teardown(() => mock.timers.reset())
    const { raw } = open({ heartbeat_ms: 1000 })
    mock.timers.tick(1000)
    t.equal(raw.pings, 1)
    raw.emit('pong')
    mock.timers.tick(1000)
    t.equal(raw.pings, 2)
    t.equal(raw.terminated, false)
    mock.timers.tick(1000)
    t.equal(raw.terminated, true, 'no pong for the second ping')
  })

  t.test('closes a connection idle for idle_timeout_ms; each message restarts the wait', async (t) => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 })
    t.teardown(() => mock.timers.reset())
    const { raw, ws } = open({ idle_timeout_ms: 1000 })
    ws.on_message(() => {})
    mock.timers.tick(900)
    raw.message('still here')
    mock.timers.tick(900)
    t.equal(raw.closed_with, undefined)
    mock.timers.tick(100)
    t.same(raw.closed_with, { code: 1000, reason: 'idle timeout' })
  })
})

t.test('WebSocketConnection rooms', async (t) => {
  t.test('leaves every room when the connection closes, and runs on_close once', async (t) => {
    const { raw, ws, rooms } = open()
    ws.join('a').join('b').join('a')
    t.same(rooms.names().sort(), ['a', 'b'])
    t.same([...ws.rooms].sort(), ['a', 'b'])
    const codes: number[] = []
    ws.on_close((code) => void codes.push(code))
    raw.peer_closed(1006)
    raw.peer_closed(1006)
    t.same(codes, [1006])
    t.same(rooms.names(), [])
    ws.join('c')
    t.same(rooms.names(), [], 'a closed connection joins nothing')
  })

  t.test('runs an on_close registered after the close at once, with its code and reason', async (t) => {
    const out = capture_log(t)
    const { raw, ws } = open()
    raw.peer_closed(4000, 'bye')
    const got: Array<[number, string]> = []
    ws.on_close((code, reason) => void got.push([code, reason]))
    t.same(got, [[4000, 'bye']])
    ws.on_close(() => {
      throw new Error('late failure')
    })
    t.equal(raw.closed_with, undefined, 'a late callback that throws closes nothing more')
    t.match(out.text(), /\[error\] ws handler failed rid=rid-1 .*err="Error: late failure/)
  })
})

t.test('WebSocketConnection with handlers answering thenables that are not native promises', async (t) => {
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
  }
  for (const [kind, make] of Object.entries(THENABLE_KINDS)) {
    t.test(`${kind}: a message handler's rejection closes with 1011 and is logged`, async (t) => {
      const out = capture_log(t)
      const { raw, ws } = open()
      ws.on_message(() =>
        make(async () => {
          await settle()
          throw new Error(`${kind} message failure`)
        }),
      )
      raw.message('x')
      await settle()
      await settle()
      t.same(raw.closed_with, { code: 1011, reason: 'internal error' })
      t.match(out.text(), new RegExp(`\\[error\\] ws handler failed rid=rid-1 .*${kind} message failure`))
    })

    t.test(`${kind}: an on_close handler's rejection is logged`, async (t) => {
      const out = capture_log(t)
      const { raw, ws } = open()
      ws.on_close(() => make(() => Promise.reject(new Error(`${kind} close failure`))))
      raw.peer_closed(1000)
      await settle()
      t.match(out.text(), new RegExp(`\\[error\\] ws handler failed rid=rid-1 .*${kind} close failure`))
    })

    t.test(`${kind}: the route handler is waited for: what arrives meanwhile goes to its on_message`, async (t) => {
      const user = gate()
      const { raw, ws } = open()
      const got: unknown[] = []
      // A route handler may answer any thenable, as its type says.
      const handler: WsHandler = (ws) =>
        make(() => user.promise.then(() => void ws.on_message((m) => void got.push(m)))) as PromiseLike<void>
      ws.run(handler)
      raw.message('early')
      user.open()
      await settle()
      t.same(got, ['early'])
      raw.message('next')
      t.same(got, ['early', 'next'])
    })

    t.test(`${kind}: the route handler's rejection closes with 1011 and is logged`, async (t) => {
      const out = capture_log(t)
      const { raw, ws } = open()
      ws.run(() =>
        make(async () => {
          await settle()
          throw new Error(`${kind} handler failure`)
        }),
      )
      await settle()
      await settle()
      t.same(raw.closed_with, { code: 1011, reason: 'internal error' })
      t.match(out.text(), new RegExp(`\\[error\\] ws handler failed rid=rid-1 .*${kind} handler failure`))
    })
  }
})
