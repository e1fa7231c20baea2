// The real pino logger every fw line goes through: the user's pino options (redact, serializers, mixin, formatters,
// base, transport) apply, and the finished JSON line is written as JSON, or rendered as KV or indented JSON. A line a
// pino option throws on is written without the options, with `log_error`: a log call never throws.
import pino from 'pino'
import { ERR_LOG_BAD_PINO_OPTION } from './errors.js'
import { set_field } from './field.js'
import { OWN, pretty_line } from './json-line.js'
import { kv_record_line } from './kv-line.js'
import type { LogFormat } from './formats.js'
import { tell, type Sink } from './sink.js'
import { UNSERIALIZABLE, cap, escape_raw, is_error, text_of } from './values.js'

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

/**
 * A pino logger writing to an fw sink in one of fw's formats, or to the user's own transport. A line pino throws on
 * while applying the user's options (a `mixin`, `formatters.log`, a serializer, a redact `censor`, a hook) is written
 * without them, with `log_error`; so is every line when pino refuses the options outright (`pino_line`).
 */
export class PinoLine {
  /** Keys the user gave serializers for: their values reach pino as logged, not as fw's JSON-safe copy. */
  readonly raw_keys: ReadonlySet<string>
  readonly meta: LineMeta = { severity: 2, moved: 0, errors: undefined }
  readonly #main: pino.Logger
  /** Used when a pair is named `level`: pino's own level member is then written as `fw_level`. */
  readonly #moved_level: pino.Logger
  /** Renders and writes a record without pino, when pino would add nothing but the level (see the constructor). */
  readonly #direct: ((rec: Record<string, unknown>) => void) | undefined
  /** Where pino's JSON text goes (fw's renderer and sink, or the transport): a line without the options goes there. */
  readonly #out: (text: string) => void
  /** Why every line is written without the options, when pino refused them; undefined when it took them. */
  readonly #refused: string | undefined
  /** Whether the options hide values (`redact`, serializers): a line written without them keeps fw's members only. */
  readonly #hides: boolean

  /**
   * `refused` and `hides` are set by `pino_line` only: the options pino threw on, which this line then leaves out, and
   * whether they would have hidden values.
   */
  constructor(
    options: PinoOptions,
    format: LogFormat,
    sink: Sink | undefined,
    color: boolean,
    refused?: string,
    hides = hides_values(options),
  ) {
    this.raw_keys = new Set(Object.keys(options.serializers ?? {}))
    this.#refused = refused
    this.#hides = hides
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
    const stream = (this.#main as pino.Logger & Record<symbol, unknown>)[pino.symbols.streamSym] as TransportStream
    this.#out = write ?? ((text) => void stream.write(text))
    if (options.transport !== undefined) on_transport_error(stream)
    // With no pino option of the user's, pino would only put the level first and write the record as JSON text, which
    // a KV line parses back and renders without the level: the record is rendered as it is instead, the same line
    // without pino's serialization and the parse (about a tenth of a logged request's CPU).
    this.#direct =
      sink !== undefined && format === 'kv' && Object.keys(options).length === 0 && refused === undefined
        ? kv_writer(sink, this.meta, color)
        : undefined
  }

  /** Writes one record (fw's members first) at `severity`. */
  emit(severity: number, rec: Record<string, unknown>): void {
    this.meta.severity = severity
    if (this.#direct !== undefined) return this.#direct(rec)
    if (this.#refused !== undefined) return this.#without_options(rec, this.#refused)
    try {
      ;((this.meta.moved & 8) === 0 ? this.#main : this.#moved_level)[METHODS[severity]!](rec)
    } catch (err) {
      this.#without_options(rec, thrown_text(err))
    }
  }

  /** Resolves once pino's own destination (a transport) has written what it was given. */
  flush(): Promise<void> {
    return new Promise((resolve) => this.#main.flush(() => resolve()))
  }

  /**
   * Writes `rec` as pino would with no option of the user's (the level first, then fw's record), plus `log_error`:
   * `fw_log_error` when a pair took that name. When the options would have hidden values (`redact`, serializers, whose
   * keys hold values as logged), only fw's own members are written: what they were there to hide must not reach the
   * line because they failed.
   */
  #without_options(rec: Record<string, unknown>, failure: string): void {
    tell_once(failure)
    const line: Record<string, unknown> = {}
    line[(this.meta.moved & 8) === 0 ? 'level' : 'fw_level'] = LABELS[METHODS[this.meta.severity]!]
    if (this.#hides) {
      // fw's member is under its own name, or under `fw_<name>` when a pair took the name.
      for (const own in OWN) {
        const key = (this.meta.moved & OWN[own]!) === 0 ? own : `fw_${own}`
        if (own !== 'level' && rec[key] !== undefined) line[key] = rec[key]
      }
    } else for (const key in rec) set_field(line, key, rec[key])
    line[Object.hasOwn(line, 'log_error') ? 'fw_log_error' : 'log_error'] = failure
    this.#out(`${JSON.stringify(line)}\n`)
  }
}

/**
 * A line through `options`, or, when pino refuses them as it builds its logger (a redact path it cannot parse, a
 * transport target it cannot find, a `formatters.bindings` that throws), one that writes every line without them, with
 * `log_error`, to `fallback()`: the destination, the transport being unusable.
 */
export function pino_line(
  options: PinoOptions,
  format: LogFormat,
  sink: Sink | undefined,
  color: boolean,
  fallback: () => [Sink, boolean],
): PinoLine {
  try {
    return new PinoLine(options, format, sink, color)
  } catch (err) {
    const [to, to_color] = sink === undefined ? fallback() : [sink, color]
    return new PinoLine({}, format, to, to_color, thrown_text(err), hides_values(options))
  }
}

/** Whether pino options hide values of a line: `redact` paths, or serializers. */
function hides_values(options: PinoOptions): boolean {
  return options.redact !== undefined || options.serializers !== undefined
}

/** What a pino option threw, as a value of a line: an error's message, anything else as text, capped. */
function thrown_text(err: unknown): string {
  try {
    return cap(is_error(err) ? String(err.message) : text_of(err))
  } catch {
    return UNSERIALIZABLE
  }
}

/** pino's stream for a transport: a thread-stream, which reports its worker's failure as an `error` event. */
interface TransportStream {
  write(text: string): unknown
  on?(event: 'error', listener: (err: unknown) => void): unknown
}

/**
 * A transport whose worker fails (its target throws as it loads, its own destination fails) emits `error` on every
 * later write, and with no listener that is an uncaught exception: it is said once on stderr, as a failed destination
 * is, and the lines sent to it are dropped.
 */
function on_transport_error(stream: TransportStream): void {
  let said = false
  stream.on?.('error', (err) => {
    if (!said) tell(`fw log: the pino transport failed (${thrown_text(err)}); further lines to it are dropped\n`)
    said = true
  })
}

let told = false

/** Says once per process, on stderr, that a pino option threw (as a failed destination is said once). */
function tell_once(failure: string): void {
  if (!told) tell(`fw log: a pino option threw (${failure}); lines it fails on are written without the pino options\n`)
  told = true
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
  // JSON lines are read on terminals too (`docker logs`): what JSON.stringify leaves raw (C1 controls, DEL, the line
  // separators, the bidirectional controls) is escaped, as in every other format. The same JSON; a line without them
  // is passed as it is, after one scan.
  if (format === 'json') return (line) => out(escape_raw(line))
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
