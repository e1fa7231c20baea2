// The coded errors the authentication middleware throws: bad options and combinations at startup, and misuse of a
// session.
import { defineError, store_unavailable } from '../../errors.js'
import { define_bad_option } from '../../options.js'

/** A bad authentication option (a secret is described by its shape, never quoted). */
export const ERR_AUTH_BAD_OPTION = define_bad_option('AUTH')

export const ERR_AUTH_NO_API_KEYS = defineError(
  'FW_ERR_AUTH_NO_API_KEYS',
  () =>
    'api_key: allowed_keys is empty and no validate function is given, so every key would be refused; give one of them',
)

export const ERR_AUTH_SESSION_DESTROYED = defineError(
  'FW_ERR_AUTH_SESSION_DESTROYED',
  (action: string) => `session: cannot ${action} a session after destroy() in the same request`,
)

/** A handler set the session value that holds fw's creation time (`absolute_ttl`): refused, never overwritten. */
export const ERR_AUTH_RESERVED_SESSION_KEY = defineError(
  'FW_ERR_AUTH_RESERVED_SESSION_KEY',
  (key: string, use: string) => `session: the key ${key} is reserved for ${use}; use another key`,
)

export const ERR_AUTH_NO_SESSION = defineError(
  'FW_ERR_AUTH_NO_SESSION',
  () => 'start_session: no session middleware runs on this route',
)

/**
 * The JWKS endpoint cannot answer (down, slow, not a key set), as opposed to an unknown kid: a `StoreUnavailable`, which
 * `jwt` answers 503 `jwks_unavailable` (or 401 `invalid_token`, by `jwks_unavailable`).
 */
export const ERR_AUTH_JWKS_UNAVAILABLE = defineError(
  'FW_ERR_AUTH_JWKS_UNAVAILABLE',
  (reason: string) => `jwt: the JWKS key set cannot be fetched (${reason})`,
  503,
  store_unavailable,
)

/**
 * A warning, not thrown: a development preset was given an HMAC secret shorter than its hash (RFC 7518 section 3.2),
 * which `jwt` itself refuses.
 */
export const ERR_AUTH_WEAK_SECRET = defineError(
  'FW_ERR_AUTH_WEAK_SECRET',
  (preset: string, bytes: number, need: number, alg: string) =>
    `${preset}: the secret has ${bytes} bytes, fewer than the ${need} that ${alg} needs (RFC 7518 section 3.2); accepted for development only`,
)

/** A combinator (`any_of`, `all_of`) given no authenticators, or something that is not one. */
export const ERR_AUTH_BAD_COMBINATION = defineError(
  'FW_ERR_AUTH_BAD_COMBINATION',
  (owner: string, problem: string) => `${owner}: ${problem}`,
)
