// The module `fw/log`: leveled, formatted and structured logging backed by pino, with per-request context.
export { LogLevel, parse_level, severity } from './levels.js'
export { LogFormat, parse_format } from './formats.js'
export { type LogConfig } from './core.js'
export { type PinoOptions } from './pino-line.js'
export { type LogContext, type LogContextInit } from './log-context.js'
export {
  set_context,
  context,
  clear_context,
  run_with_context,
  run_with_request_id,
  with_request_id,
  follow_context,
} from './context.js'
export { type LogDestination, type WritableLike } from './sink.js'
export { Logger, type KeyValues } from './logger.js'
export {
  global,
  logger,
  trace,
  debug,
  info,
  warn,
  error,
  critical,
  log,
  logf,
  configure,
  set_level,
  level,
  enabled,
  set_format,
  set_async,
  set_destination,
  set_level_from_env,
  set_format_from_env,
  flush,
  set_clock,
} from './global.js'
export { pino_logger } from './pino-logger.js'
export { redact_headers, redact_query, SECRET_QUERY, REDACTED, SECRET_HEADERS } from './redact.js'
export { MAX_VALUE_CHARS } from './values.js'
export {
  ERR_LOG_ODD_PAIRS,
  ERR_LOG_BAD_KEY,
  ERR_LOG_BAD_LEVEL,
  ERR_LOG_BAD_FORMAT,
  ERR_LOG_BAD_DESTINATION,
  ERR_LOG_OPEN_FAILED,
  ERR_LOG_BAD_NAME,
  ERR_LOG_BAD_PINO_OPTION,
} from './errors.js'
