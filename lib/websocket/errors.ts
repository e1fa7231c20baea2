// The coded errors and HTTP codes of fw's WebSocket routes: bad options at registration, and refused upgrades.
import { httpCode } from '../errors.js'
import { define_bad_option } from '../options.js'

/** A bad option of a WebSocket route. */
export const ERR_WS_BAD_OPTION = define_bad_option('WS')

/** A plain HTTP request (no `Upgrade: websocket`) to a WebSocket route. */
export const CODE_UPGRADE_REQUIRED = httpCode('upgrade_required')

/** An upgrade with a missing or malformed `Sec-WebSocket-Key` (the code the adapter answers malformed requests with). */
export const CODE_BAD_REQUEST = httpCode('bad_request')

/** An upgrade from an `Origin` the route's `origins` option does not list. */
export const CODE_ORIGIN_FORBIDDEN = httpCode('origin_forbidden')

/** Close codes fw sends (RFC 6455 section 7.4.1). */
export const CLOSE = {
  normal: 1000,
  going_away: 1001,
  policy_violation: 1008,
  too_big: 1009,
  internal_error: 1011,
  try_again_later: 1013,
} as const
