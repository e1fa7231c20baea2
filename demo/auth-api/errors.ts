// The coded errors the reference authentication API throws at startup when its configuration is wrong.
import { defineError } from '../../lib/errors.js'
import { quote } from '../../lib/options.js'

/**
 * An option (or the environment variable standing in for it) with a value the API cannot work with. Objects (a logger,
 * a clock, a password hasher, which may hold credentials) and `secret` values are quoted by their shape only; plain
 * values and lists of them as JSON.
 */
export const ERR_AUTHAPI_BAD_OPTION = defineError(
  'FW_ERR_AUTHAPI_BAD_OPTION',
  (option: string, expected: string, value: unknown, secret: boolean = false) =>
    `auth_api: ${option} must be ${expected}; got ${quote(value, secret)}`,
)
