// Checks for the cache module's options, so a misconfiguration throws a coded error when the object is built.
import { ERR_CACHE_BAD_OPTION, ERR_CACHE_BAD_TIME } from './errors.js'

/** A duration or count: a non-negative safe integer, at least `min`. */
export function check_int(owner: string, option: string, value: unknown, min = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw ERR_CACHE_BAD_OPTION(owner, option, min === 0 ? 'a non-negative integer' : `an integer >= ${min}`, value)
  }
  return value
}

/** A flag: exactly `true` or `false`. */
export function check_bool(owner: string, option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw ERR_CACHE_BAD_OPTION(owner, option, 'a boolean', value)
  return value
}

/** A non-empty string. */
export function check_string(owner: string, option: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw ERR_CACHE_BAD_OPTION(owner, option, 'a non-empty string', value)
  return value
}

/** A function. */
export function check_fn<F>(owner: string, option: string, value: F): F {
  if (typeof value !== 'function') throw ERR_CACHE_BAD_OPTION(owner, option, 'a function', value)
  return value
}

/** A clock reading: a finite number of ms (NaN or Infinity would make every age comparison meaningless). */
export function check_now(operation: string, now_ms: unknown): number {
  if (typeof now_ms !== 'number' || !Number.isFinite(now_ms)) throw ERR_CACHE_BAD_TIME(operation, now_ms)
  return now_ms
}
