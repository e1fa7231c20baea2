// Room broadcasts between instances over Redis pub/sub: each instance publishes what it broadcast and delivers to its
// own sockets what the others published.
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { logger } from '../log/index.js'
import type { BusMessage, RoomBus } from '../websocket/index.js'
import { close_client, RedisConnection, type RedisStoreOptions } from './redis-connection.js'

const log = logger('ws')
const NEWLINE = 0x0a

/** The envelope's header; the message's bytes follow it after a newline, so binary messages travel as they are. */
interface Header {
  /** The publishing instance, which has delivered to its own sockets already. */
  o: string
  r: string
  b: boolean
  e?: string
}

/**
 * A `RoomBus` on Redis pub/sub (channel `<prefix>rooms`, after the client's own keyPrefix), for `app.rooms.use_bus`. A
 * broadcast published while Redis is down reaches this instance's sockets only (the outage is logged); subscribing
 * resumes when Redis is back.
 * @example
 * await app.rooms.use_bus(new RedisRoomBus({ client: 'redis://10.0.0.5:6379' }))
 */
export class RedisRoomBus implements RoomBus {
  readonly #pub: RedisConnection
  readonly #sub: Redis
  readonly #channel: string
  readonly #instance = randomUUID()
  #closing = false
  #deliver: ((message: BusMessage) => void) | undefined

  constructor(options: RedisStoreOptions = {}) {
    this.#pub = new RedisConnection('RedisRoomBus', options)
    // ioredis's keyPrefix goes before the keys of the stores but not before a channel: added here, apps told apart by
    // their clients' keyPrefix alone never hear each other's broadcasts.
    this.#channel = `${this.#pub.client_prefix}${this.#pub.prefix}rooms`
    // A subscribed connection can run nothing else: a second one with the same settings, always owned by the bus. The
    // bus subscribes again itself after a reconnect: ioredis's own resubscription leaves its promise unheard, so a
    // failure of it (refused, timed out, or cut off by close()) would be an unhandled rejection and a deaf instance.
    this.#sub = this.#pub.client.duplicate({ autoResubscribe: false })
    this.#sub.on('error', () => {})
  }

  /**
   * Subscribes and hands other instances' broadcasts to `deliver`; subscribes again after each reconnect. Called again
   * after it failed (`use_bus` retried), it replaces its listeners rather than adding to them, so nothing arrives twice.
   */
  async start(deliver: (message: BusMessage) => void): Promise<void> {
    this.#deliver = deliver
    this.#sub.off('messageBuffer', this.#receive).on('messageBuffer', this.#receive)
    this.#sub.off('ready', this.#subscribe_again)
    await this.#pub.run('subscribe', () => this.#sub.subscribe(this.#channel))
    // 'ready' of the first connection has passed by now: each one from here on is a reconnect.
    this.#sub.on('ready', this.#subscribe_again)
  }

  readonly #receive = (_channel: Buffer, payload: Buffer): void => {
    const m = this.#decode(payload)
    if (m !== undefined) this.#deliver?.(m)
  }

  /** After a reconnect: subscribes again, or drops the connection to try on the next one (logged) if that fails. */
  readonly #subscribe_again = (): void => {
    this.#sub.subscribe(this.#channel).catch((err: unknown) => {
      if (this.#closing) return
      log.logf('error', 'room bus: subscribing again failed, reconnecting', 'channel', this.#channel, 'err', err)
      this.#sub.disconnect(true)
    })
  }

  /** Publishes a broadcast for the other instances; rejects with `FW_ERR_REDIS_UNAVAILABLE` while Redis is down. */
  async publish(m: BusMessage): Promise<void> {
    const header: Header = {
      o: this.#instance,
      r: m.room,
      b: m.binary,
      ...(m.except === undefined ? {} : { e: m.except }),
    }
    const payload = Buffer.concat([Buffer.from(JSON.stringify(header)), Buffer.from([NEWLINE]), m.data])
    await this.#pub.run('publish', (c) => c.publish(this.#channel, payload))
  }

  /** Closes the subscriber, and the publishing client when the bus made it. */
  async close(): Promise<void> {
    this.#closing = true
    this.#sub.off('ready', this.#subscribe_again)
    await Promise.all([close_client(this.#sub), this.#pub.close()])
  }

  /** A message of another instance, or undefined for this instance's own and for anything malformed. */
  #decode(payload: Buffer): BusMessage | undefined {
    const cut = payload.indexOf(NEWLINE)
    let h: Partial<Header>
    try {
      h = JSON.parse(payload.subarray(0, cut === -1 ? 0 : cut).toString('utf8')) as Partial<Header>
    } catch {
      log.logf('warn', 'room bus: malformed message ignored', 'channel', this.#channel)
      return undefined
    }
    if (h.o === this.#instance || typeof h.r !== 'string') return undefined
    return {
      room: h.r,
      binary: h.b === true,
      except: typeof h.e === 'string' ? h.e : undefined,
      data: payload.subarray(cut + 1),
    }
  }
}
