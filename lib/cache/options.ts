// Checks for the cache module's options, so a misconfiguration throws a coded error when the object is built.
import { OptionChecks } from '../options.js'
import { ERR_CACHE_BAD_OPTION, ERR_CACHE_BAD_TIME } from './errors.js'

/** The option checkers of the cache module: they throw `FW_ERR_CACHE_BAD_OPTION`. */
export const check = new OptionChecks(ERR_CACHE_BAD_OPTION)

/** A clock reading: a finite number of ms (NaN or Infinity would make every age comparison meaningless). */
export function check_now(operation: string, now_ms: unknown): number {
  if (typeof now_ms !== 'number' || !Number.isFinite(now_ms)) throw ERR_CACHE_BAD_TIME(operation, now_ms)
  return now_ms
}
