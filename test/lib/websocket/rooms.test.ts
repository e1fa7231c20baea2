// Rooms: local membership and broadcast, `except`, and a bus that carries broadcasts to other instances or fails.
import t from 'tap'
import { Request } from '../../../lib/request.js'
import { Services } from '../../../lib/state.js'
import { Rooms, WebSocketConnection, type BusMessage, type RoomBus } from '../../../lib/websocket/index.js'
import { ws_settings } from '../../../lib/websocket/options.js'
import { capture_log } from '../../helpers/log.js'
import { THENABLE_KINDS } from '../../helpers/thenable.js'
import { FakeSocket } from './fake-socket.js'
import { host_request } from '../../helpers/host-request.js'

const host = host_request({ id: 'rid-r', url: '/ws' })
const settings = ws_settings('ws /ws', { heartbeat_ms: 0 })

function member(rooms: Rooms, ...names: string[]): { raw: FakeSocket; ws: WebSocketConnection } {
  const raw = new FakeSocket()
  const ws = new WebSocketConnection(raw, new Request(host, new Services()), settings, rooms)
  for (const n of names) ws.join(n)
  return { raw, ws }
}

/** A bus that records what is published and lets the test deliver messages from "another instance". */
class MemoryBus implements RoomBus {
  readonly published: BusMessage[] = []
  deliver: ((m: BusMessage) => void) | undefined
  fail: Error | undefined
  closed = false
  start(deliver: (m: BusMessage) => void): void {
    this.deliver = deliver
  }
  async publish(m: BusMessage): Promise<void> {
    if (this.fail) throw this.fail
    this.published.push(m)
  }
  close(): void {
    this.closed = true
  }
}

t.test('Rooms.broadcast', async (t) => {
  t.test('reaches every member of the room except the one named, once encoded', async (t) => {
    const rooms = new Rooms()
    const a = member(rooms, 'lobby')
    const b = member(rooms, 'lobby')
    const c = member(rooms, 'other')
    t.equal(rooms.broadcast('lobby', { text: 'hi' }, { except: a.ws }), 1)
    t.same(b.raw.texts(), ['{"text":"hi"}'])
    t.same(a.raw.texts(), [])
    t.same(c.raw.texts(), [])
    t.equal(rooms.broadcast('lobby', 'by id', { except: b.ws.id }), 1)
    t.same(a.raw.texts(), ['by id'])
    t.equal(rooms.broadcast('nobody', 'x'), 0)
  })

  t.test("members lists this instance's members; leave and close remove them", async (t) => {
    const rooms = new Rooms()
    const a = member(rooms, 'lobby')
    const b = member(rooms, 'lobby')
    t.same(
      rooms
        .members('lobby')
        .map((m) => m.id)
        .sort(),
      [a.ws.id, b.ws.id].sort(),
    )
    a.ws.leave('lobby')
    b.raw.peer_closed()
    t.same(rooms.members('lobby'), [])
    t.same(rooms.names(), [])
  })
})

t.test('Rooms with a bus', async (t) => {
  t.test('publishes each broadcast with its except id, and delivers what other instances publish', async (t) => {
    const rooms = new Rooms()
    const bus = new MemoryBus()
    await rooms.use_bus(bus)
    const a = member(rooms, 'lobby')
    rooms.broadcast('lobby', Buffer.from([7]), { except: 'someone-elsewhere' })
    rooms.broadcast('lobby', 'from a', { except: a.ws })
    t.same(
      bus.published.map((m) => [m.room, m.data.toString('hex'), m.binary, m.except]),
      [
        ['lobby', '07', true, 'someone-elsewhere'],
        ['lobby', Buffer.from('from a').toString('hex'), false, a.ws.id],
      ],
    )
    bus.deliver!({ room: 'lobby', data: Buffer.from('remote'), binary: false, except: undefined })
    bus.deliver!({ room: 'lobby', data: Buffer.from('not me'), binary: false, except: a.ws.id })
    t.same(a.raw.texts(), ['\u0007', 'remote'])
    await rooms.close()
    t.equal(bus.closed, true)
  })

  t.test('a second use_bus closes the first bus before starting the new one', async (t) => {
    const rooms = new Rooms()
    const first = new MemoryBus()
    const second = new MemoryBus()
    await rooms.use_bus(first)
    const a = member(rooms, 'lobby')
    await rooms.use_bus(second)
    // The first bus would otherwise stay subscribed, delivering every remote broadcast a second time, and never close.
    t.equal(first.closed, true)
    t.equal(second.closed, false)
    // The bus in use given again stays as it is.
    await rooms.use_bus(second)
    t.equal(second.closed, false)
    rooms.broadcast('lobby', 'hello')
    t.same([first.published.length, second.published.length], [0, 1])
    second.deliver!({ room: 'lobby', data: Buffer.from('remote'), binary: false, except: undefined })
    t.same(a.raw.texts(), ['hello', 'remote'])
    await rooms.close()
    t.equal(second.closed, true)
  })

  t.test('use_bus given again after its start failed starts the bus again', async (t) => {
    const rooms = new Rooms()
    const a = member(rooms, 'lobby')
    // Redis down at startup: the first start is refused, the caller retries with the same bus.
    let refusals = 1
    const bus = new MemoryBus()
    const start = bus.start.bind(bus)
    bus.start = (deliver) => {
      if (refusals-- > 0) throw new Error('connection is closed')
      start(deliver)
    }
    await t.rejects(rooms.use_bus(bus), { message: 'connection is closed' })
    await rooms.use_bus(bus)
    t.equal(bus.closed, false)
    t.ok(bus.deliver, 'the retry started the bus')
    bus.deliver?.({ room: 'lobby', data: Buffer.from('remote'), binary: false, except: undefined })
    t.same(a.raw.texts(), ['remote'], 'other instances reach this one')
    await rooms.close()
    t.equal(bus.closed, true)
  })

  t.test('keeps local delivery while the bus fails, logging the outage once and its end', async (t) => {
    const out = capture_log(t)
    const rooms = new Rooms()
    const bus = new MemoryBus()
    await rooms.use_bus(bus)
    const a = member(rooms, 'lobby')
    bus.fail = new Error('connection is closed')
    for (const text of ['one', 'two', 'three']) rooms.broadcast('lobby', text)
    await new Promise((resolve) => setImmediate(resolve))
    t.same(a.raw.texts(), ['one', 'two', 'three'])
    t.equal(out.lines().filter((l) => l.includes('room bus unavailable')).length, 1)
    t.match(
      out.text(),
      /\[error\] room bus unavailable, broadcasting to this instance only err="Error: connection is closed/,
    )
    bus.fail = undefined
    rooms.broadcast('lobby', 'four')
    await new Promise((resolve) => setImmediate(resolve))
    t.match(out.text(), /\[info\] room bus available again/)
    t.equal(bus.published.length, 1)
  })
})

t.test('Rooms with a bus answering thenables that are not native promises', async (t) => {
  for (const [kind, make] of Object.entries(THENABLE_KINDS)) {
    t.test(`${kind}: a failed publish is logged as an outage, and its end too`, async (t) => {
      const out = capture_log(t)
      const rooms = new Rooms()
      let fail: Error | undefined = new Error(`${kind} bus down`)
      const published: string[] = []
      // Typed as a RoomBus: a bus may answer any thenable.
      const bus: RoomBus = {
        start: (): void => undefined,
        publish: (m: BusMessage) =>
          make(async () => {
            if (fail !== undefined) throw fail
            published.push(m.data.toString())
          }) as PromiseLike<void>,
        close: (): void => undefined,
      }
      await rooms.use_bus(bus)
      const a = member(rooms, 'lobby')
      rooms.broadcast('lobby', 'one')
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
      t.same(a.raw.texts(), ['one'])
      t.match(
        out.text(),
        new RegExp(`\\[error\\] room bus unavailable, broadcasting to this instance only .*${kind} bus down`),
      )
      fail = undefined
      rooms.broadcast('lobby', 'two')
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
      t.same(published, ['two'])
      t.match(out.text(), /\[info\] room bus available again/)
    })
  }
})
