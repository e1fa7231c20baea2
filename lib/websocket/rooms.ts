// Rooms: named sets of connections of this instance, and broadcast to them here and, through a RoomBus, everywhere.
import { logger } from '../log/index.js'
import { is_thenable } from '../maybe-promise.js'
import {
  encoded,
  frame_of,
  type Frame,
  type Outgoing,
  type RoomMembership,
  type WebSocketConnection,
} from './connection.js'
import type { BusMessage, RoomBus } from './room-bus.js'

/** Options of `rooms.broadcast`. */
export interface BroadcastOptions {
  /** A connection (or its id) that must not receive the message, typically the sender. */
  except?: WebSocketConnection | string
}

const log = logger('ws')

/**
 * `app.rooms`: connections join with `ws.join(room)` and leave on `ws.leave(room)` or when they close.
 * @example
 * app.ws('/ws/chat/{room}', (ws, req) => {
 *   ws.join(req.param('room'))
 *   ws.on_message((text) => app.rooms.broadcast(req.param('room'), { text }, { except: ws }))
 * })
 */
export class Rooms implements RoomMembership {
  readonly #rooms = new Map<string, Set<WebSocketConnection>>()
  #bus: RoomBus | undefined
  /** Whether the bus in use has started: given again after a refused start, it is started again. */
  #bus_started = false
  #bus_down = false

  /**
   * Sends the message to every member of the room on this instance and, with a bus, on every other instance; returns
   * how many local members it was sent to. A bus outage is logged once and never stops local delivery.
   */
  broadcast(room: string, message: Outgoing, options: BroadcastOptions = {}): number {
    const frame = encoded(frame_of(message))
    const { except } = options
    const sent = this.#deliver(room, frame, except)
    if (this.#bus !== undefined) {
      const id = typeof except === 'string' ? except : except?.id
      this.#publish(this.#bus, { room, data: frame.data, binary: frame.binary, except: id })
    }
    return sent
  }

  /** The room's members on this instance (a copy). */
  members(room: string): WebSocketConnection[] {
    return [...(this.#rooms.get(room) ?? [])]
  }

  /** Names of the rooms with at least one member on this instance. */
  names(): string[] {
    return [...this.#rooms.keys()]
  }

  /**
   * Carries broadcasts across instances through `bus` (closed with the App). A bus given before is closed first: left
   * running, it would deliver every remote broadcast a second time and hold its connection until the process ends.
   * Giving the bus in use again changes nothing once it has started; after its start failed (Redis down at startup), it
   * starts it again.
   * @example
   * app.rooms.use_bus(new RedisRoomBus({ client: process.env.REDIS_URL }))
   */
  async use_bus(bus: RoomBus): Promise<void> {
    const before = this.#bus
    if (before === bus && this.#bus_started) return
    this.#bus = bus
    this.#bus_started = false
    if (before !== bus) await before?.close()
    await bus.start((m) => void this.#deliver(m.room, m, m.except))
    if (this.#bus === bus) this.#bus_started = true
  }

  /** @internal Closes the bus; the App calls it on close. */
  async close(): Promise<void> {
    const bus = this.#bus
    this.#bus = undefined
    await bus?.close()
  }

  /** The membership side of `ws.join(room)`: handlers call that instead. */
  join(conn: WebSocketConnection, room: string): void {
    let members = this.#rooms.get(room)
    if (members === undefined) this.#rooms.set(room, (members = new Set()))
    members.add(conn)
  }

  /** The membership side of `ws.leave(room)` (closing leaves every room): handlers call that instead. */
  leave(conn: WebSocketConnection, room: string): void {
    const members = this.#rooms.get(room)
    // An empty room is forgotten, so rooms named by clients cannot pile up.
    if (members?.delete(conn) && members.size === 0) this.#rooms.delete(room)
  }

  #deliver(room: string, frame: Frame, except: WebSocketConnection | string | undefined): number {
    const members = this.#rooms.get(room)
    if (members === undefined) return 0
    // A connection is skipped by identity; ids (a bus message, or an id given) are compared only then, as comparing two
    // strings costs more than two references, for each member of each broadcast.
    const except_id = typeof except === 'string' ? except : undefined
    let sent = 0
    for (const conn of members) {
      if (conn === except || (except_id !== undefined && conn.id === except_id)) continue
      if (conn.deliver(frame)) sent++
    }
    return sent
  }

  #publish(bus: RoomBus, message: BusMessage): void {
    try {
      const r = bus.publish(message)
      // Any thenable (a promise library's, another realm's): its outcome is the bus's state.
      if (is_thenable(r))
        Promise.resolve(r).then(
          () => this.#bus_state(undefined),
          (err: unknown) => this.#bus_state(err),
        )
    } catch (err) {
      this.#bus_state(err)
    }
  }

  /** Logs an outage when it starts and when it ends, not once per broadcast. */
  #bus_state(err: unknown): void {
    if (err !== undefined && !this.#bus_down)
      log.logf('error', 'room bus unavailable, broadcasting to this instance only', 'err', err)
    else if (err === undefined && this.#bus_down) log.logf('info', 'room bus available again')
    this.#bus_down = err !== undefined
  }
}
