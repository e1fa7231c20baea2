// Checks on the limits a schema declares, so a typo in a length or bound fails at startup.
import { ERR_VALIDATION_BAD_LIMIT } from './errors.js'

/**
 * Returns `n` when it is a whole number >= 0; otherwise throws `FW_ERR_VALIDATION_BAD_LIMIT` quoting `call`, the
 * declaring call.
 */
export function count_limit(call: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw ERR_VALIDATION_BAD_LIMIT(call, 'expected a whole number >= 0')
  return n
}

/**
 * Returns `n` when it is a finite number; otherwise throws `FW_ERR_VALIDATION_BAD_LIMIT` quoting `call`, the declaring
 * call.
 */
export function bound_limit(call: string, n: number): number {
  if (!Number.isFinite(n)) throw ERR_VALIDATION_BAD_LIMIT(call, 'expected a finite number')
  return n
}
