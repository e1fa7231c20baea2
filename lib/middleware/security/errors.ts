// The coded errors the security middleware throws at startup when its options are wrong.
import { defineError } from '../../errors.js'
import { define_bad_option, quote } from '../../options.js'

/** A bad security middleware option (a secret is described by its shape, never quoted). */
export const ERR_SECURITY_BAD_OPTION = define_bad_option('SECURITY')

export const ERR_CORS_BAD_ORIGIN = defineError(
  'FW_ERR_CORS_BAD_ORIGIN',
  (origin: unknown) =>
    `cors: ${quote(origin)} is not an exact origin (scheme://host[:port] without a path), a one-label wildcard (https://*.example.com), an anchored RegExp, "null", or "*" alone`,
)

export const ERR_CORS_WILDCARD_CREDENTIALS = defineError(
  'FW_ERR_CORS_WILDCARD_CREDENTIALS',
  () => 'cors: origins ["*"] cannot be combined with allow_credentials; list the allowed origins instead',
)

export const ERR_IP_FILTER_BAD_ADDRESS = defineError(
  'FW_ERR_IP_FILTER_BAD_ADDRESS',
  (list: string, entry: unknown) => `ip_filter: ${list} entry ${quote(entry)} is not an IPv4/IPv6 address or CIDR`,
)
