// The coded errors the authentication middleware throws: bad options at startup, and misuse of a session.
import { defineError } from '../../errors.js'

/** How a bad option value is quoted in a message; secrets are never quoted, only their length. */
function quote(value: unknown, secret: boolean): string {
  if (secret && typeof value === 'string') return `a string of ${value.length} characters`
  if (typeof value === 'function') return 'a function'
  return JSON.stringify(value) ?? String(value)
}

export const ERR_AUTH_BAD_OPTION = defineError(
  'FW_ERR_AUTH_BAD_OPTION',
  (middleware: string, option: string, expected: string, value: unknown, secret: boolean = false) =>
    `${middleware}: ${option} must be ${expected}; got ${quote(value, secret)}`,
)

export const ERR_AUTH_NO_API_KEYS = defineError(
  'FW_ERR_AUTH_NO_API_KEYS',
  () => 'api_key: allowed_keys is empty and no validate function is given, so every key would be refused; give one of them',
)

export const ERR_AUTH_SESSION_DESTROYED = defineError(
  'FW_ERR_AUTH_SESSION_DESTROYED',
  (action: string) => `session: cannot ${action} a session after destroy() in the same request`,
)
