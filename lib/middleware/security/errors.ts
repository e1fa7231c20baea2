// The coded errors the security middleware throws at startup when its options are wrong.
import { defineError } from '../../errors.js'
import { describe_value } from '../auth/errors.js'

/**
 * How a bad option value is quoted in a message: a function or an instance of a class (a store, a client, which may hold
 * credentials) by its shape only; plain values as JSON.
 */
function show(value: unknown): string {
  const plain = typeof value !== 'object' || value === null || Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype
  return typeof value === 'function' || !plain ? describe_value(value) : JSON.stringify(value) ?? String(value)
}

export const ERR_SECURITY_BAD_OPTION = defineError(
  'FW_ERR_SECURITY_BAD_OPTION',
  (middleware: string, option: string, expected: string, value: unknown, secret: boolean = false) =>
    `${middleware}: ${option} must be ${expected}; got ${secret ? describe_value(value) : show(value)}`,
)

export const ERR_CORS_BAD_ORIGIN = defineError(
  'FW_ERR_CORS_BAD_ORIGIN',
  (origin: unknown) =>
    `cors: ${show(origin)} is not an exact origin (scheme://host[:port] without a path), a one-label wildcard (https://*.example.com), an anchored RegExp, "null", or "*" alone`,
)

export const ERR_CORS_WILDCARD_CREDENTIALS = defineError(
  'FW_ERR_CORS_WILDCARD_CREDENTIALS',
  () => 'cors: origins ["*"] cannot be combined with allow_credentials; list the allowed origins instead',
)

export const ERR_IP_FILTER_BAD_ADDRESS = defineError(
  'FW_ERR_IP_FILTER_BAD_ADDRESS',
  (list: string, entry: unknown) => `ip_filter: ${list} entry ${show(entry)} is not an IPv4/IPv6 address or CIDR`,
)
