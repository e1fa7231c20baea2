// The coded errors of the cache module: bad options, bad entries, bad clocks, and the FileStore warnings.
import { defineError } from '../errors.js'
import { define_bad_option, quote } from '../options.js'

/** A bad cache option. */
export const ERR_CACHE_BAD_OPTION = define_bad_option('CACHE')

export const ERR_CACHE_BAD_ENTRY = defineError(
  'FW_ERR_CACHE_BAD_ENTRY',
  (field: string, expected: string, value: unknown) => `CacheEntry: ${field} must be ${expected}; got ${quote(value)}`,
)

export const ERR_CACHE_BAD_TIME = defineError(
  'FW_ERR_CACHE_BAD_TIME',
  (operation: string, value: unknown) =>
    `${operation}: now_ms must be a finite number of milliseconds; got ${quote(value)}`,
)

/** A clock reading: a finite number of ms (NaN or Infinity would make every age comparison meaningless). */
export function check_now(operation: string, now_ms: unknown): number {
  if (typeof now_ms !== 'number' || !Number.isFinite(now_ms)) throw ERR_CACHE_BAD_TIME(operation, now_ms)
  return now_ms
}

export const ERR_CACHE_FILE_CORRUPT = defineError(
  'FW_ERR_CACHE_FILE_CORRUPT',
  (file: string, reason: string, moved_to: string) =>
    `FileStore: ${file} is not a readable cache file (${reason}); ${moved_to}; starting empty`,
)

export const ERR_CACHE_FILE_UNREADABLE = defineError(
  'FW_ERR_CACHE_FILE_UNREADABLE',
  (file: string, reason: string) =>
    `FileStore: cannot read ${file} (${reason}); keeping entries in memory only and leaving the file untouched`,
)

export const ERR_CACHE_FILE_UNWRITABLE = defineError(
  'FW_ERR_CACHE_FILE_UNWRITABLE',
  (file: string, reason: string) =>
    `FileStore: cannot write ${file} (${reason}); entries stay in memory and every later change retries the write`,
)
