// The options of a WebSocket route, checked once at registration, with their defaults.
import type { Middleware } from '../compose.js'
import { HTTP_TOKEN } from '../http-token.js'
import { MAX_TIMER_MS, option_checker, type OptionChecker } from '../options.js'
import { is_exact_origin } from '../origin.js'
import { ERR_WS_BAD_OPTION } from './errors.js'

/** Per-connection message rate limit: at most `max_messages` in each fixed window of `window_ms`. */
export interface WsRateLimit {
  max_messages: number
  window_ms: number
}

/** Options of `app.ws(path, handler, options)`. */
export interface WsOptions {
  /** Largest message accepted, in bytes (default 1 MiB); a larger one closes the socket with 1009. */
  max_payload?: number
  /** Close a connection that sent nothing for this long, in ms (default 0: never; at most 2147483647, about 24.8 days). */
  idle_timeout_ms?: number
  /**
   * Ping every this many ms; a peer that has not answered the previous ping is cut (default 30000; 0: off; at most
   * 2147483647).
   */
  heartbeat_ms?: number
  /** Negotiate permessage-deflate (default false: compression costs CPU and memory per connection). */
  per_message_deflate?: boolean
  /** Bytes queued for one slow client before `on_backpressure` applies (default 1 MiB). */
  high_water_mark?: number
  /** Past the high-water mark: `close` the socket with 1013 (default), or `drop` the message. */
  on_backpressure?: 'close' | 'drop'
  /** Per-connection message rate limit; a client over it is closed with 1008. None by default. */
  rate_limit?: WsRateLimit
  /**
   * `Origin` values allowed besides the route's own host, written as browsers send them (`scheme://host[:port]`: no
   * path, lowercase host, no default port; anything else throws `FW_ERR_WS_BAD_OPTION`). An upgrade whose `Origin`
   * names another host and is not listed gets 403 `origin_forbidden`; one without `Origin` (not a browser) passes.
   * Default none: same-origin only.
   */
  origins?: readonly string[]
  /**
   * The subprotocols the route speaks (distinct HTTP tokens: `['graphql-transport-ws']`). The 101 selects the first
   * one the client offers, in the client's order, and the handler reads it as `ws.protocol`; an upgrade that offers
   * none of them, or none at all, gets 400 `bad_request`. Default none: ws's own choice, the client's first offer.
   */
  protocols?: readonly string[]
  /**
   * Middleware of this route alone, run on the upgrade request after the prefix middleware that covers it (as a
   * route's `use`): a refusal (401, 403, 429) answers the upgrade and no socket opens.
   */
  use?: Middleware | readonly Middleware[]
}

/** The resolved options of one route. */
export interface WsSettings {
  readonly max_payload: number
  readonly idle_timeout_ms: number
  readonly heartbeat_ms: number
  readonly per_message_deflate: boolean
  readonly high_water_mark: number
  readonly on_backpressure: 'close' | 'drop'
  readonly rate_limit: WsRateLimit | undefined
  readonly origins: ReadonlySet<string> | undefined
  readonly protocols: readonly string[] | undefined
}

const MIB = 1024 * 1024

/** A timer's wait: an integer >= 0 that a Node timer can hold. */
function timer_ms(check: OptionChecker, option: string, value: unknown): number {
  const ms = check.int(option, value, 0)
  check.must(ms <= MAX_TIMER_MS, option, `at most ${MAX_TIMER_MS} (the longest wait of a Node timer)`, ms)
  return ms
}

function rate_limit_of(check: OptionChecker, value: unknown): WsRateLimit | undefined {
  if (value === undefined) return undefined
  check.must(typeof value === 'object' && value !== null, 'rate_limit', '{ max_messages, window_ms }', value)
  const r = value as Record<string, unknown>
  return {
    max_messages: check.int('rate_limit.max_messages', r.max_messages, 1),
    window_ms: check.int('rate_limit.window_ms', r.window_ms, 1),
  }
}

function origins_of(check: OptionChecker, value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined
  // An entry a browser never sends (a path, an upper-case host, a default port) would refuse the pages it names.
  if (!Array.isArray(value) || value.length === 0 || !value.every(is_exact_origin)) {
    check.fail('origins', 'a non-empty list of origins as browsers send them (scheme://host[:port])', value)
  }
  return new Set(value as string[])
}

function protocols_of(check: OptionChecker, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined
  // A name that is not a token could never be offered (ws refuses such a header) nor carried by the 101.
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((p, i) => typeof p === 'string' && HTTP_TOKEN.test(p) && value.indexOf(p) === i)
  check.must(ok, 'protocols', 'a non-empty list of distinct subprotocol names (HTTP tokens)', value)
  return Object.freeze([...(value as string[])])
}

/** Checks a route's options (`FW_ERR_WS_BAD_OPTION` names the route and the option) and fills in the defaults. */
export function ws_settings(owner: string, options: WsOptions = {}): WsSettings {
  const check = option_checker(ERR_WS_BAD_OPTION, owner)
  const o = options as Record<string, unknown>
  const backpressure = o.on_backpressure ?? 'close'
  if (backpressure !== 'close' && backpressure !== 'drop')
    return check.fail('on_backpressure', "'close' or 'drop'", backpressure)
  const deflate = check.bool('per_message_deflate', o.per_message_deflate ?? false)
  return {
    max_payload: check.int('max_payload', o.max_payload ?? MIB, 1),
    idle_timeout_ms: timer_ms(check, 'idle_timeout_ms', o.idle_timeout_ms ?? 0),
    heartbeat_ms: timer_ms(check, 'heartbeat_ms', o.heartbeat_ms ?? 30_000),
    per_message_deflate: deflate,
    high_water_mark: check.int('high_water_mark', o.high_water_mark ?? MIB, 1),
    on_backpressure: backpressure,
    rate_limit: rate_limit_of(check, o.rate_limit),
    origins: origins_of(check, o.origins),
    protocols: protocols_of(check, o.protocols),
  }
}
