// The coded errors the authentication middleware throws: bad options and combinations at startup, and misuse of a
// session.
import { defineError } from '../../errors.js'
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

export const ERR_AUTH_NO_SESSION = defineError(
  'FW_ERR_AUTH_NO_SESSION',
  () => 'start_session: no session middleware runs on this route',
)

export const ERR_AUTH_BAD_COMBINATION = defineError(
  'FW_ERR_AUTH_BAD_COMBINATION',
  (owner: string, problem: string) => `${owner}: ${problem}`,
)
