// Log levels: the spec's names, their order, the labels a line shows, and `parse_level` for text from the environment.
import { ERR_LOG_BAD_LEVEL } from './errors.js'

/** Levels in increasing severity; `Off` disables logging. The default is `Info`. */
export const LogLevel = {
  Trace: 'trace',
  Debug: 'debug',
  Info: 'info',
  Warn: 'warn',
  Error: 'error',
  Critical: 'critical',
  Off: 'off',
} as const

/** One of `LogLevel`'s values. */
export type LogLevel = (typeof LogLevel)[keyof typeof LogLevel]

/** Severity of `Off`: a threshold at this value emits nothing, and no message has this severity. */
export const OFF = 6

/** Levels by severity, the inverse of `severity_of`. */
export const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'critical', 'off']

/** The label a line shows for each severity: the spec names Warn `warning`. */
export const LABELS: readonly string[] = ['trace', 'debug', 'info', 'warning', 'error', 'critical']

const ALIASES: Readonly<Record<string, LogLevel>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  critical: 'critical',
  fatal: 'critical',
  off: 'off',
  never: 'off',
  none: 'off',
  silent: 'off',
  '0': 'off',
}

/**
 * Reads a level from text, ignoring case and surrounding spaces: `trace`, `debug`, `info`, `warn`/`warning`, `error`,
 * `critical`/`fatal`, and `off`/`never`/`none`/`silent`/`0`. Any other text gives `Info`, the default level.
 * @example
 * parse_level('WARNING') // 'warn'
 */
export function parse_level(text: string): LogLevel {
  return known_level(text) ?? LogLevel.Info
}

/** The level `text` names, as `parse_level` reads it, or `undefined` when it names none (for strict configuration). */
export function known_level(text: string): LogLevel | undefined {
  const key = String(text).trim().toLowerCase()
  return Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined
}

/** The severity of a `LogLevel` value; anything else throws `FW_ERR_LOG_BAD_LEVEL`. */
export function severity_of(level: LogLevel): number {
  // A switch keeps the per-call cost of `log` and `logf` to a few comparisons, with no lookup on a prototype chain.
  switch (level) {
    case 'trace':
      return 0
    case 'debug':
      return 1
    case 'info':
      return 2
    case 'warn':
      return 3
    case 'error':
      return 4
    case 'critical':
      return 5
    case 'off':
      return 6
    default:
      throw ERR_LOG_BAD_LEVEL(level)
  }
}

/**
 * A level's place in the spec's order, so levels compare as numbers: Trace 0, Debug 1, Info 2, Warn 3, Error 4,
 * Critical 5, Off 6. Anything else throws `FW_ERR_LOG_BAD_LEVEL`.
 * @example
 * if (severity(level()) <= severity(LogLevel.Debug)) dump_state()
 */
export function severity(level: LogLevel): number {
  return severity_of(level)
}
