// A logger: the spec's message methods, writing `[<name>]` lines at the level, format and destination all loggers
// share.
import { line_context } from './context.js'
import { core, type StoredContext } from './core.js'
import { ERR_LOG_BAD_KEY, ERR_LOG_BAD_NAME, ERR_LOG_ODD_PAIRS } from './errors.js'
import type { LogFormat } from './formats.js'
import { OFF, severity_of, type LogLevel } from './levels.js'
import { cap, RAW_CHARS, text_of } from './values.js'

/**
 * Checks alternating key/value arguments `A`: it is `A` itself when every key is a string and the count is even, and a
 * different tuple otherwise, so a missing value or a non-string key is a type error. Arrays of unknown length pass
 * (`logf` checks them when called).
 */
export type KeyValues<A extends readonly unknown[]> = number extends A['length']
  ? A
  : A extends readonly []
    ? A
    : A extends readonly [string, unknown, ...infer R]
      ? readonly [A[0], A[1], ...KeyValues<R>]
      : readonly [string, unknown]

/** Throws `FW_ERR_LOG_ODD_PAIRS` for an odd count and `FW_ERR_LOG_BAD_KEY` for a key that is not a string. */
export function check_pairs(pairs: readonly unknown[]): void {
  if (pairs.length % 2 !== 0) throw ERR_LOG_ODD_PAIRS(pairs.length)
  for (let i = 0; i < pairs.length; i += 2) if (typeof pairs[i] !== 'string') throw ERR_LOG_BAD_KEY(pairs[i])
}

/** Binds a logger to a request's context; set by the class's static block, which alone reaches `#bound`. */
let bind: (logger: Logger, ctx: StoredContext) => Logger

// A KV line writes the name bare (`[<name>]`), never escaped, so what a line escapes in values (`RAW_CHARS`:
// bidirectional controls reorder what a terminal shows, line separators start a line) is refused in a name when the
// logger is made, besides whitespace, brackets and control characters.
const NAME = new RegExp(`^[^\\s[\\]\\p{Cc}${RAW_CHARS}]{1,64}$`, 'u')

/**
 * Throws `FW_ERR_LOG_BAD_NAME` unless `name` is 1-64 characters without whitespace, brackets, control characters or
 * bidirectional controls: a `Logger`'s name, and a `pino_logger`'s.
 */
export function check_name(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) throw ERR_LOG_BAD_NAME(name)
}

/**
 * A named logger. Every logger shares one level, format and destination: `set_level` on any of them changes them all.
 * @example
 * const db = logger('db')
 * db.info('connected to {} in {} ms', host, ms)        // 12:00:00.000 [db] [info] connected to pg1 in 12 ms
 * db.logf(LogLevel.Warn, 'slow query', 'ms', 950)      // 12:00:00.000 [db] [warning] slow query ms=950
 */
export class Logger {
  /** The name shown as `[<name>]` (`fw` for the global logger). */
  readonly name: string
  /** The request whose context every line carries (`req.log`); undefined: the current flow's. */
  #bound: StoredContext | undefined = undefined

  static {
    bind = (logger, ctx) => {
      logger.#bound = ctx
      return logger
    }
  }

  /**
   * A name is 1-64 characters without whitespace, brackets, control characters or bidirectional controls
   * (`FW_ERR_LOG_BAD_NAME`).
   */
  constructor(name: string) {
    check_name(name)
    this.name = name
  }

  /** Logs at Trace; each `{}` in `format` is replaced by the next argument. */
  trace(format: string, ...args: unknown[]): void {
    if (core.threshold <= 0) core.message(0, this.name, format, args, line_context(this.#bound))
  }

  /** Logs at Debug; each `{}` in `format` is replaced by the next argument. */
  debug(format: string, ...args: unknown[]): void {
    if (core.threshold <= 1) core.message(1, this.name, format, args, line_context(this.#bound))
  }

  /** Logs at Info; each `{}` in `format` is replaced by the next argument. */
  info(format: string, ...args: unknown[]): void {
    if (core.threshold <= 2) core.message(2, this.name, format, args, line_context(this.#bound))
  }

  /** Logs at Warn (labelled `warning`); each `{}` in `format` is replaced by the next argument. */
  warn(format: string, ...args: unknown[]): void {
    if (core.threshold <= 3) core.message(3, this.name, format, args, line_context(this.#bound))
  }

  /** Logs at Error; each `{}` in `format` is replaced by the next argument. */
  error(format: string, ...args: unknown[]): void {
    if (core.threshold <= 4) core.message(4, this.name, format, args, line_context(this.#bound))
  }

  /** Logs at Critical; the line is written before the call returns, even in async mode. */
  critical(format: string, ...args: unknown[]): void {
    if (core.threshold <= 5) core.message(5, this.name, format, args, line_context(this.#bound))
  }

  /** Logs at a level chosen at run time; `Off` writes nothing. */
  log(level: LogLevel, format: string, ...args: unknown[]): void {
    const severity = severity_of(level)
    if (severity >= core.threshold && severity < OFF)
      core.message(severity, this.name, format, args, line_context(this.#bound))
  }

  /**
   * Logs a structured message: after it, keys and values alternate (`'user_id', 42, 'ip', addr`). An odd count or a key
   * that is not a string is a type error, and throws `FW_ERR_LOG_ODD_PAIRS` / `FW_ERR_LOG_BAD_KEY` whatever the level.
   */
  logf<const A extends unknown[]>(level: LogLevel, message: string, ...pairs: A & KeyValues<A>): void {
    check_pairs(pairs)
    const severity = severity_of(level)
    if (severity >= core.threshold && severity < OFF)
      core.write(severity, this.name, cap(text_of(message)), pairs, line_context(this.#bound))
  }

  /** Sets the level of every logger. */
  set_level(level: LogLevel): void {
    core.configure({ level })
  }

  /** The active level. */
  level(): LogLevel {
    return core.level()
  }

  /** Whether a message at `level` would be written now. */
  enabled(level: LogLevel): boolean {
    return core.enabled(level)
  }

  /** The active output format (shared by every logger). */
  format(): LogFormat {
    return core.format()
  }

  /** Sets the output format of every logger. */
  set_format(format: LogFormat): void {
    core.configure({ format })
  }

  /** Turns async mode on or off for every logger. */
  set_async(on: boolean): void {
    core.configure({ async: on })
  }
}

/**
 * A logger named `name` whose lines carry the request context `ctx` wherever they are written (after an `await`, in a
 * timer): the current flow's context while the flow serves that request, so a module set there shows, else `ctx`
 * itself. `req.log` is one; fw's own lines about a request (the App's, the access line) use it too.
 * @example
 * bound_logger('fw', request_context(freq.id, freq, app_log)).info('started')
 */
export function bound_logger(name: string, ctx: StoredContext): Logger {
  return bind(new Logger(name), ctx)
}

/**
 * Writes one structured line at `level` as `name` in the context `ctx` given, whatever the current flow's: fw's own
 * lines about a request (its access line, its failures), which often come after its async work. Such lines carry their
 * id whether or not requests are followed, so they never start following.
 * @example
 * logf_in(request_context(freq.id, freq, log), 'http', 'info', 'request', pairs)
 */
export function logf_in(
  ctx: StoredContext,
  name: string,
  level: LogLevel,
  message: string,
  pairs: readonly unknown[],
): void {
  const severity = severity_of(level)
  if (severity >= core.threshold && severity < OFF) core.write(severity, name, cap(text_of(message)), pairs, ctx)
}
