// What carries room broadcasts between instances: any pub/sub (fw/redis has RedisRoomBus). Without one, rooms are
// local.

/** A broadcast as it travels between instances. */
export interface BusMessage {
  readonly room: string
  readonly data: Buffer
  readonly binary: boolean
  /** The id of a connection that must not receive it (`except`). */
  readonly except: string | undefined
}

/**
 * Carries broadcasts to the other instances. `publish` must not deliver back to the instance that published (it has
 * delivered locally already); an outage must not throw into the caller's broadcast (reject, and `Rooms` logs it).
 */
export interface RoomBus {
  /** Starts handing messages published by other instances to `deliver`. */
  start(deliver: (message: BusMessage) => void): void | PromiseLike<void>
  /** Sends a broadcast to the other instances. */
  publish(message: BusMessage): void | PromiseLike<void>
  /** Stops; called when the App closes. */
  close(): void | PromiseLike<void>
}
