// Errors thrown by the log module: bad configuration at startup, and misuse of `logf` at the call site.
import { defineError } from '../errors.js'
import { quote } from '../options.js'

/** `logf` got an odd number of key/value arguments (a key without its value). */
export const ERR_LOG_ODD_PAIRS = defineError(
  'FW_ERR_LOG_ODD_PAIRS',
  (count: number) => `logf() takes alternating key/value arguments after the message; got ${count} arguments`,
)

/** `logf` got a key that is not a string. */
export const ERR_LOG_BAD_KEY = defineError(
  'FW_ERR_LOG_BAD_KEY',
  (key: unknown) => `logf() keys must be strings; got ${quote(key)}`,
)

/** A level that is not one of `LogLevel`'s values (use `parse_level` for free text). */
export const ERR_LOG_BAD_LEVEL = defineError(
  'FW_ERR_LOG_BAD_LEVEL',
  (level: unknown) => `log level must be one of trace, debug, info, warn, error, critical, off; got ${quote(level)}`,
)

/** A format that is not one of `LogFormat`'s values (use `parse_format` for free text). */
export const ERR_LOG_BAD_FORMAT = defineError(
  'FW_ERR_LOG_BAD_FORMAT',
  (format: unknown) => `log format must be one of kv, json, json_pretty; got ${quote(format)}`,
)

/** A destination that is neither a file path, a file descriptor nor a writable stream. */
export const ERR_LOG_BAD_DESTINATION = defineError(
  'FW_ERR_LOG_BAD_DESTINATION',
  (dest: unknown) =>
    `log destination must be a file path, a file descriptor or a writable stream; got ${typeof dest === 'object' && dest !== null ? 'an object without write()' : quote(dest)}`,
)

/** The destination file could not be opened (missing permission, a directory, ...) or the descriptor is not open. */
export const ERR_LOG_OPEN_FAILED = defineError(
  'FW_ERR_LOG_OPEN_FAILED',
  (what: string, reason: string) => `cannot open log destination ${what}: ${reason}`,
)

/** A logger name that is empty or holds whitespace, brackets or control characters (it would break the KV line). */
export const ERR_LOG_BAD_NAME = defineError(
  'FW_ERR_LOG_BAD_NAME',
  (name: unknown) =>
    `logger name must be 1-64 characters without whitespace, brackets or control characters; got ${quote(name)}`,
)

export const ERR_LOG_BAD_PINO_OPTION = defineError(
  'FW_ERR_LOG_BAD_PINO_OPTION',
  (name: string, value: unknown) =>
    `pino option ${name} is fw's own (level, time and msg stay fw's) or not an object; got ${quote(value)}`,
)
