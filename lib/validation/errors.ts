// Errors thrown while declaring a schema: a bad declaration fails at startup, never per request.
import { defineError } from '../errors.js'
import { define_bad_option } from '../options.js'

/** A route's `body`, `query`, `params`, `headers` or answer schema that is neither an fw type nor a Standard Schema. */
export const ERR_VALIDATION_BAD_OPTION = define_bad_option('VALIDATION')

/**
 * A length or bound that is not a usable number (negative, fractional, not finite) or a range whose min exceeds its
 * max.
 */
export const ERR_VALIDATION_BAD_LIMIT = defineError(
  'FW_ERR_VALIDATION_BAD_LIMIT',
  (call: string, expected: string) => `${call}: ${expected}`,
)

/** An `equals` rule naming a field that the schema does not declare. */
export const ERR_VALIDATION_UNKNOWN_FIELD = defineError(
  'FW_ERR_VALIDATION_UNKNOWN_FIELD',
  (field: string, other: string) =>
    `field ${JSON.stringify(field)} must equal ${JSON.stringify(other)}, which the schema does not declare`,
)

/**
 * A field of a route's `query`, `params` or `headers` fw schema that no request can give: an object, a record or a
 * union (or an array of them), where the part holds only text (the query string is not parsed into nested objects).
 */
export const ERR_VALIDATION_FLAT_PART = defineError(
  'FW_ERR_VALIDATION_FLAT_PART',
  (where: string, part: string, field: string, kind: string, why: string) =>
    `${where}: ${part} field ${JSON.stringify(field)} is ${kind}, which ${why}; declare strings, numbers, booleans, enums or arrays of them`,
)
