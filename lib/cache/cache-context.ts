// What the caller knows about the network when it asks the cache: offline, or a request that just failed.

/** The fields of a `CacheContext`. */
export interface CacheContextInit {
  offline?: boolean
  network_error?: boolean
}

/**
 * The spec's `CacheContext`: `offline` allows stale reuse within `stale_if_offline_ms`, `network_error` within
 * `stale_if_error_ms`. Both false is the plain online case, where only fresh entries are served.
 * @example
 * cache.get(key, Date.now(), CacheContext.Offline())
 */
export class CacheContext {
  offline: boolean
  network_error: boolean

  constructor({ offline = false, network_error = false }: CacheContextInit = {}) {
    this.offline = offline
    this.network_error = network_error
  }

  /** Online: both flags false. */
  static Online(): CacheContext {
    return new CacheContext()
  }

  /** Offline: `offline` true. */
  static Offline(): CacheContext {
    return new CacheContext({ offline: true })
  }

  /** A network error: `network_error` true. */
  static NetworkError(): CacheContext {
    return new CacheContext({ network_error: true })
  }
}

/** The spec's `RequestOutcome`: how the request to the origin went. */
export const RequestOutcome = Object.freeze({ Ok: 'Ok', NetworkError: 'NetworkError' } as const)

/** `RequestOutcome.Ok` or `RequestOutcome.NetworkError`. */
export type RequestOutcome = (typeof RequestOutcome)[keyof typeof RequestOutcome]
