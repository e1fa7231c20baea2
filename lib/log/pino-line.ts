// The real pino logger every fw line goes through: the user's pino options (redact, serializers, mixin, formatters,
// base, transport) apply, and the finished JSON line is written as JSON, or rendered as KV or indented JSON.
import pino from 'pino'
import { ERR_LOG_BAD_PINO_OPTION } from './errors.js'
import { pretty_line } from './json-line.js'
import { kv_record_line } from './kv-line.js'
import type { LogFormat } from './formats.js'
import type { Sink } from './sink.js'

/**
 * pino options a user may give through `configure({ pino })` or `AppOptions.logger`. fw keeps the level (it filters
 * itself), the `level` label, `msg` and `time`: the options that would change them are refused.
 */
export type PinoOptions = Omit<
  pino.LoggerOptions,
  | 'level'
  | 'levelComparison'
  | 'customLevels'
  | 'useOnlyCustomLevels'
  | 'timestamp'
  | 'messageKey'
  | 'enabled'
  | 'browser'
>

const REFUSED = [
  'level',
  'levelComparison',
  'customLevels',
  'useOnlyCustomLevels',
  'timestamp',
  'messageKey',
  'enabled',
  'browser',
]

/** pino's method for each severity: Critical is pino's `fatal`. */
const METHODS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const

/** pino's level labels as fw names them in a line. */
const LABELS: Readonly<Record<string, string>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
  fatal: 'critical',
}

/** Checks user pino options; one that would change fw's own members throws `FW_ERR_LOG_BAD_PINO_OPTION`. */
export function check_pino_options(options: PinoOptions): PinoOptions {
  if (typeof options !== 'object' || options === null) throw ERR_LOG_BAD_PINO_OPTION('pino', options)
  for (const key of REFUSED)
    if (Object.hasOwn(options, key)) throw ERR_LOG_BAD_PINO_OPTION(key, (options as Record<string, unknown>)[key])
  return options
}

/** What one line needs besides its record: its severity, and which of fw's members a pair pushed to `fw_<name>`. */
export interface LineMeta {
  severity: number
  /** Bit set of moved members: 1 msg, 2 time, 4 logger, 8 level, 16 rid, 32 mod. */
  moved: number
  /** The members whose value was an `Error`, or undefined for none. */
  errors: readonly string[] | undefined
}

/** A pino logger writing to an fw sink in one of fw's formats, or to the user's own transport. */
export class PinoLine {
  /** Keys the user gave serializers for: their values reach pino as logged, not as fw's JSON-safe copy. */
  readonly raw_keys: ReadonlySet<string>
  readonly meta: LineMeta = { severity: 2, moved: 0, errors: undefined }
  readonly #main: pino.Logger
  /** Used when a pair is named `level`: pino's own level member is then written as `fw_level`. */
  readonly #moved_level: pino.Logger
  /** Renders and writes a record without pino, when pino would add nothing but the level (see the constructor). */
  readonly #direct: ((rec: Record<string, unknown>) => void) | undefined

  constructor(options: PinoOptions, format: LogFormat, sink: Sink | undefined, color: boolean) {
    this.raw_keys = new Set(Object.keys(options.serializers ?? {}))
    const level_of = (key: string) => (label: string) => ({ [key]: LABELS[label] ?? label })
    const write = sink === undefined ? undefined : line_writer(format, sink, this.meta, color)
    // pino renders the level member once per logger (its level cache), so the moved one needs a logger of its own.
    const make = (key: string): pino.Logger => {
      const full: pino.LoggerOptions = {
        base: null,
        ...options,
        // fw's records carry an error as its JSON-safe copy ({ type, message, stack }), already named by its class:
        // pino's default err serializer would name the copy's own class (`Object`). A user's err serializer still
        // receives the Error itself (raw_keys).
        serializers: { err: as_is, ...options.serializers },
        level: 'trace',
        timestamp: false,
        formatters: { ...options.formatters, level: level_of(key) },
      }
      return write === undefined ? pino(full) : pino(full, { write })
    }
    this.#main = make('level')
    this.#moved_level = options.transport === undefined ? make('fw_level') : this.#main
    // With no pino option of the user's, pino would only put the level first and write the record as JSON text, which
    // a KV line parses back and renders without the level: the record is rendered as it is instead, the same line
    // without pino's serialization and the parse (about a tenth of a logged request's CPU).
    this.#direct =
      sink !== undefined && format === 'kv' && Object.keys(options).length === 0
        ? kv_writer(sink, this.meta, color)
        : undefined
  }

  /** Writes one record (fw's members first) at `severity`. */
  emit(severity: number, rec: Record<string, unknown>): void {
    this.meta.severity = severity
    if (this.#direct !== undefined) return this.#direct(rec)
    ;((this.meta.moved & 8) === 0 ? this.#main : this.#moved_level)[METHODS[severity]!](rec)
  }

  /** Resolves once pino's own destination (a transport) has written what it was given. */
  flush(): Promise<void> {
    return new Promise((resolve) => this.#main.flush(() => resolve()))
  }
}

const CRITICAL = 5

/** The serializer that leaves a value as fw made it. */
const as_is = (value: unknown): unknown => value

/** Writes a finished line to `sink`; a critical line may be the last before a crash, so it is written at once. */
function sink_writer(sink: Sink, meta: LineMeta): (text: string) => void {
  return (text) => {
    if (meta.severity === CRITICAL) sink.write_sync(text)
    else sink.write(text)
  }
}

/** The stream pino writes to: JSON lines pass as they are, KV and indented JSON are rendered from them. */
function line_writer(format: LogFormat, sink: Sink, meta: LineMeta, color: boolean): (line: string) => void {
  const out = sink_writer(sink, meta)
  if (format === 'json') return out
  return (line) => {
    const rec = JSON.parse(line) as Record<string, unknown>
    out(
      format === 'kv'
        ? kv_record_line(meta.severity, rec, meta.moved, color, meta.errors)
        : pretty_line(meta.severity, rec, color),
    )
  }
}

/**
 * Writes fw's record as a KV line without pino: its values are JSON-safe already (`json_record`), so they render as
 * after pino's JSON text and the parse back.
 */
function kv_writer(sink: Sink, meta: LineMeta, color: boolean): (rec: Record<string, unknown>) => void {
  const out = sink_writer(sink, meta)
  return (rec) => out(kv_record_line(meta.severity, rec, meta.moved, color, meta.errors))
}
