// The global logger `fw` and the module-level operations of `fw/log`, configured from FW_LOG_LEVEL and FW_LOG_FORMAT at
// load.
import { set_lines_wanted } from './context.js'
import { core, type LogConfig } from './core.js'
import type { LogFormat } from './formats.js'
import type { LogLevel } from './levels.js'
import { Logger } from './logger.js'
import type { LogDestination } from './sink.js'

const root = new Logger('fw')

/** The global logger, named `fw`: the same level, format and message methods as this module's functions. */
export function global(): Logger {
  return root
}

/**
 * A logger that writes `[<name>]` instead of `[fw]`, sharing level, format and destination with every other logger.
 * @example
 * const http = logger('http')
 * http.warn('slow request {} took {} ms', path, ms)
 */
export function logger(name: string): Logger {
  return new Logger(name)
}

/** Logs at Trace through the global logger; each `{}` in `format` is replaced by the next argument. */
export const trace: Logger['trace'] = root.trace.bind(root)
/** Logs at Debug through the global logger; each `{}` in `format` is replaced by the next argument. */
export const debug: Logger['debug'] = root.debug.bind(root)
/**
 * Logs at Info through the global logger; each `{}` in `format` is replaced by the next argument.
 * @example
 * info('user {} signed in from {}', user.id, req.ip()) // 12:00:00.000 [fw] [info] user 42 signed in from 10.0.0.1
 */
export const info: Logger['info'] = root.info.bind(root)
/** Logs at Warn (labelled `warning`) through the global logger. */
export const warn: Logger['warn'] = root.warn.bind(root)
/** Logs at Error through the global logger; an `Error` argument also becomes the `err` field, with its stack. */
export const error: Logger['error'] = root.error.bind(root)
/** Logs at Critical through the global logger; the line is written before the call returns, even in async mode. */
export const critical: Logger['critical'] = root.critical.bind(root)
/** Logs at a level chosen at run time through the global logger. */
export const log: Logger['log'] = root.log.bind(root)
/**
 * Logs a structured message through the global logger: keys and values alternate after it; an odd count is a type
 * error.
 * @example
 * logf(LogLevel.Info, 'order placed', 'order_id', 981, 'total', 42.5)
 * // ... [info] order placed order_id=981 total=42.5
 */
export const logf: Logger['logf'] = root.logf.bind(root)

/**
 * Sets level, format, async mode and destination together; omitted ones stay as they are.
 * @example
 * configure({ level: LogLevel.Debug, format: LogFormat.JSON, async: true, destination: '/var/log/app.log' })
 */
export function configure(config: Partial<LogConfig>): void {
  core.configure(config)
}

/** Sets the level of every logger. */
export function set_level(level: LogLevel): void {
  core.configure({ level })
}

/** The active level. */
export function level(): LogLevel {
  return core.level()
}

/** Whether a message at `level` would be written now (`Off` never is). */
export function enabled(level: LogLevel): boolean {
  return core.enabled(level)
}

/** Sets the output format. */
export function set_format(format: LogFormat): void {
  core.configure({ format })
}

/** Turns async mode on or off: buffered background writes that never block the event loop. */
export function set_async(on: boolean): void {
  core.configure({ async: on })
}

/**
 * Sends lines to a file path (appended), a file descriptor or a writable stream; the previous destination is flushed.
 */
export function set_destination(destination: LogDestination): void {
  core.configure({ destination })
}

/**
 * Reads the level from an environment variable (default `FW_LOG_LEVEL`); unset or empty changes nothing and returns
 * false.
 */
export function set_level_from_env(name = 'FW_LOG_LEVEL'): boolean {
  return core.set_level_from_env(name)
}

/**
 * Reads the format from an environment variable (default `FW_LOG_FORMAT`); unset or empty changes nothing and returns
 * false.
 */
export function set_format_from_env(name = 'FW_LOG_FORMAT'): boolean {
  return core.set_format_from_env(name)
}

/** Resolves once every line logged so far has reached the destination (at once in sync mode). */
export function flush(): Promise<void> {
  return core.flush()
}

/**
 * Stamps lines with `clock()` (epoch milliseconds) instead of `Date.now()`, for tests and replays; no argument restores
 * it.
 */
export function set_clock(clock?: () => number): void {
  core.set_clock(clock)
}

// A request's log context follows its async work only while some line can be written (see run_with_request_id).
core.watch_level((level) => set_lines_wanted(level !== 'off'))
set_level_from_env()
set_format_from_env()
