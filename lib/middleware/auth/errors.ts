// The coded errors the authentication middleware throws: bad options at startup, and misuse of a session.
import { defineError } from '../../errors.js'

/**
 * A value named by its type and size only: `a string of 12 characters`, `a Buffer of 32 bytes`, `a list of 2 items`,
 * `an object`. How secrets (and objects, which may hold credentials) appear in messages.
 */
export function describe_value(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'string') return `a string of ${value.length} characters`
  if (typeof value === 'function') return 'a function'
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.byteLength} bytes`
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** How a bad option value is quoted in a message: secrets and objects by their shape only, other values as JSON. */
export function quote(value: unknown, secret: boolean): string {
  if (secret || typeof value === 'function' || (typeof value === 'object' && value !== null && !Array.isArray(value))) {
    return describe_value(value)
  }
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

export const ERR_AUTH_NO_SESSION = defineError(
  'FW_ERR_AUTH_NO_SESSION',
  () => 'start_session: no session middleware runs on this route',
)
