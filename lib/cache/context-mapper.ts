// Context helpers: build a CacheContext from a network probe, a request outcome, or nothing at all.
import { CacheContext, RequestOutcome } from './cache-context.js'
import type { OnlineState } from './network-probe.js'

/**
 * A context with `offline` true when the probe reports offline at `now_ms`.
 * @example
 * const hit = cache.get(key, now, contextFromProbe(probe, now))
 */
export function contextFromProbe(probe: OnlineState, now_ms: number): CacheContext {
  return new CacheContext({ offline: !probe.isOnline(now_ms) })
}

/**
 * As `contextFromProbe`, with `network_error` true when `outcome` is `RequestOutcome.NetworkError`.
 * @example
 * const stale = cache.get(key, now, contextFromProbeAndOutcome(probe, now, RequestOutcome.NetworkError))
 */
export function contextFromProbeAndOutcome(probe: OnlineState, now_ms: number, outcome: RequestOutcome): CacheContext {
  return new CacheContext({ offline: !probe.isOnline(now_ms), network_error: outcome === RequestOutcome.NetworkError })
}

/** The online context (`CacheContext.Online()`). */
export function contextOnline(): CacheContext {
  return CacheContext.Online()
}

/** The offline context (`CacheContext.Offline()`). */
export function contextOffline(): CacheContext {
  return CacheContext.Offline()
}

/** The network-error context (`CacheContext.NetworkError()`). */
export function contextNetworkError(): CacheContext {
  return CacheContext.NetworkError()
}
