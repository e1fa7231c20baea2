// What a rate limit counts per: the client address, the authenticated user, or the API key.
import type { Ctx } from '../../compose.js'
import type { Request } from '../../request.js'
import { Identity } from '../../identity.js'
import { key_digest } from '../auth/api-key.js'
import { ApiKey } from '../auth/state.js'
import { ip_key } from '../../ip-address.js'

/** The longest `key_fn` value kept as it is in a counting key; a longer one is kept by its digest. */
const LONG_KEY = 48

/** The spec's counting keys. */
export type RateLimitKey = 'ip' | 'user' | 'api_key'

/** The counting keys, for option checks. */
export const RATE_LIMIT_KEYS: readonly RateLimitKey[] = ['ip', 'user', 'api_key']

/** Computes the counting key of a request; a `key_fn` returning undefined or '' falls back to the client address. */
export type KeyFn = (ctx: Ctx) => string | undefined

/** `ip:<address>`, with IPv6 grouped by /64. */
export function ip_counting_key(req: Request): string {
  return 'ip:' + ip_key(req.ip())
}

/**
 * `user:<id>` for an authenticated request (the id of its `Identity`, whichever authenticator set it), else the `ip:`
 * key, so anonymous clients still share a per-address limit.
 */
function user_counting_key(req: Request): string {
  const id = req.state(Identity)?.id
  return id === undefined ? ip_counting_key(req) : 'user:' + id
}

/**
 * `key:<digest>` of the accepted key (`ApiKey`, when `api_key` ran first), else of the key header, else the `ip:` key.
 * Hashed, so keys never sit in a store in clear.
 */
function api_key_counting_key(header: string): (req: Request) => string {
  return (req) => {
    const key = req.state(ApiKey)?.value ?? req.header(header)
    return key === '' ? ip_counting_key(req) : key_digest(key)
  }
}

/** The key function for a counting key kind, or for a custom `key_fn`. */
export function counting_key(
  kind: RateLimitKey,
  api_key_header: string,
  key_fn: KeyFn | undefined,
): (ctx: Ctx) => string {
  if (key_fn !== undefined)
    return (ctx) => {
      const k = key_fn(ctx)
      // '' too: `req.header(name)` gives it for a missing header, and one `fn:` key would be one bucket for everyone.
      if (k === undefined || k === '') return ip_counting_key(ctx.req)
      // A long value (a header the client chose) is kept by its digest: the store holds up to max_keys keys, each
      // otherwise as large as the client made it.
      return 'fn:' + (k.length > LONG_KEY ? key_digest(k) : k)
    }
  const by_req =
    kind === 'ip' ? ip_counting_key : kind === 'user' ? user_counting_key : api_key_counting_key(api_key_header)
  return (ctx) => by_req(ctx.req)
}
