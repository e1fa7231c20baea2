// The one logging state every logger shares (level, format, destination, async mode, clock) and the path of a line.
import { color_wanted } from './colors.js'
import { check_format, parse_format, type LogFormat } from './formats.js'
import { json_record } from './json-line.js'
import type { LogContext } from './log-context.js'
import { LEVELS, OFF, parse_level, severity_of, type LogLevel } from './levels.js'
import { check_pino_options, pino_line, type PinoLine, type PinoOptions } from './pino-line.js'
import { check_destination, flush_on_signals, open_sink, type LogDestination, type Sink } from './sink.js'
import { first_error, format_message } from './values.js'

/** Logging configuration; `configure` sets any of these together and leaves the others as they are. */
export interface LogConfig {
  /** Lowest level written (default `Info`). */
  level: LogLevel
  /** Output format (default `KV`). */
  format: LogFormat
  /** Buffer lines and write them in the background, flushed on exit, `flush()`, SIGTERM and SIGINT (default false). */
  async: boolean
  /** Where lines go (default stdout). */
  destination: LogDestination
  /**
   * Options for the pino logger every line goes through: `redact`, `serializers`, `mixin`, `formatters.log`, `base`, or
   * a `transport` (which then receives the JSON lines instead of the destination). Default none.
   */
  pino: PinoOptions
}

/**
 * A context as stored: the visible members, plus the request the flow serves (an opaque object, the key tracing finds
 * the request's span by, since two requests may send the same id) and the log core of its App (its destination, format
 * and pino options). Neither is part of `context()`; `set_context` and `run_with_context` keep them, as they change
 * what lines say, not which request or App the flow serves.
 */
export interface StoredContext extends LogContext {
  readonly owner: object | undefined
  readonly log: LogCore | undefined
}

/** What an App's core sets itself; what it leaves out is the process-wide core's. */
interface Overrides {
  format: LogFormat | undefined
  pino: PinoOptions | undefined
  sink: Sink | undefined
}

/** A line to a transport writes to no sink of fw's (its colours are then unused). */
const NO_SINK: [undefined, boolean] = [undefined, false]

/**
 * The shared state behind every logger. `threshold` is public so a disabled call costs one comparison. An App with
 * `logger` options has a child core (`child()`): the lines of its requests go to the child's destination in its format
 * through its pino options, and what it does not set (and the level, always) is the process-wide core's.
 */
export class LogCore {
  /** Severity of the lowest enabled level; `OFF` (6) when logging is off. */
  threshold = 2
  #format: LogFormat = 'kv'
  #async = false
  #destination: LogDestination = 1
  #sink: Sink | undefined
  #color = false
  #clock: () => number = Date.now
  #pino_options: PinoOptions = {}
  #line: PinoLine | undefined
  #line_fields: ((ctx: StoredContext | undefined) => readonly unknown[] | undefined) | undefined
  readonly #level_watchers = new Set<(level: LogLevel) => void>()
  readonly #parent: LogCore | undefined
  readonly #over: Overrides = { format: undefined, pino: undefined, sink: undefined }
  /**
   * What a child's line was built from (format, the parent's pino options, its own, its own sink, the parent's sink):
   * it is rebuilt when one changes.
   */
  #line_from: readonly [LogFormat, PinoOptions, PinoOptions | undefined, Sink | undefined, Sink | undefined] | undefined
  /** Whether a child's line writes to a pino transport rather than a sink. */
  #line_to_transport = false

  /** A process-wide core, or with `parent` an App's core over it. */
  constructor(parent?: LogCore) {
    this.#parent = parent
  }

  /**
   * An App's core: `config` applies to the lines of the App's requests. The level is one per process (a disabled call
   * is decided by one comparison, before any context is looked up), so a `level` given here sets the process's level.
   */
  child(config: Partial<LogConfig>): LogCore {
    const c = new LogCore(this)
    c.configure(config)
    return c
  }

  /** Sets level, format, async mode and destination together; everything is checked before anything changes. */
  configure(config: Partial<LogConfig>): void {
    if (this.#parent !== undefined) return this.#configure_child(this.#parent, config)
    const severity = config.level === undefined ? this.threshold : severity_of(config.level)
    const format = config.format === undefined ? this.#format : check_format(config.format)
    const destination = config.destination === undefined ? this.#destination : check_destination(config.destination)
    const async = config.async === undefined ? this.#async : config.async === true
    const pino = config.pino === undefined ? this.#pino_options : check_pino_options(config.pino)
    // A path given again is opened again: once logrotate has renamed the file away, `set_destination(path)` (a SIGHUP
    // handler) starts a new file there. A descriptor or a stream given again stays as it is.
    const path_again = typeof config.destination === 'string'
    if (path_again || destination !== this.#destination || async !== this.#async) this.#reopen(destination, async)
    if (format !== this.#format || pino !== this.#pino_options) this.#line = undefined
    this.#format = format
    this.#pino_options = pino
    this.#set_threshold(severity)
  }

  /** The active level. */
  level(): LogLevel {
    return LEVELS[(this.#parent ?? this).threshold]!
  }

  /** The active format. */
  format(): LogFormat {
    return this.#over.format ?? this.#format
  }

  /** Whether async mode is on. */
  is_async(): boolean {
    return this.#async
  }

  /** Whether a message at `level` is written now (`Off` never is). */
  enabled(level: LogLevel): boolean {
    const s = severity_of(level)
    return s >= this.threshold && s < OFF
  }

  /**
   * Reads the level from an environment variable through `parse_level`; unset or empty changes nothing and returns
   * false.
   */
  set_level_from_env(name = 'FW_LOG_LEVEL'): boolean {
    return this.#from_env(name, (text) => this.configure({ level: parse_level(text) }))
  }

  /**
   * Reads the format from an environment variable through `parse_format`; unset or empty changes nothing and returns
   * false.
   */
  set_format_from_env(name = 'FW_LOG_FORMAT'): boolean {
    return this.#from_env(name, (text) => this.configure({ format: parse_format(text) }))
  }

  /** Replaces the clock lines are stamped with (epoch milliseconds); no argument restores `Date.now`. */
  set_clock(clock: () => number = Date.now): void {
    this.#clock = clock
  }

  /**
   * Adds the pairs `fields(ctx)` gives for a line's context (alternating keys and values) to every line, after the
   * context: tracing adds `trace_id` and `span_id` this way. No argument removes it.
   */
  set_line_fields(fields?: (ctx: StoredContext | undefined) => readonly unknown[] | undefined): void {
    this.#line_fields = fields
  }

  /** Calls `watcher` with the new level whenever it changes, until the returned function is called. */
  watch_level(watcher: (level: LogLevel) => void): () => void {
    this.#level_watchers.add(watcher)
    return () => this.#level_watchers.delete(watcher)
  }

  /** Resolves once every line logged so far has reached the destination. */
  flush(): Promise<void> {
    if (this.#parent !== undefined)
      return this.#line !== undefined && this.#line_to_transport
        ? this.#line.flush()
        : (this.#over.sink?.flush() ?? Promise.resolve())
    if (this.#pino_options.transport !== undefined && this.#line !== undefined) return this.#line.flush()
    return this.#sink?.flush() ?? Promise.resolve()
  }

  /** Releases an App core's own destination (flushed first); the process-wide one stays open. */
  close(): void {
    const sink = this.#over.sink
    if (this.#parent === undefined || sink === undefined) return
    flush_on_signals(this, undefined)
    sink.close()
  }

  /**
   * Formats `format` with `args` and writes it in the context `ctx`; an `Error` among `args` also becomes the `err`
   * field.
   */
  message(severity: number, name: string, format: string, args: readonly unknown[], ctx?: StoredContext): void {
    const err = args.length === 0 ? undefined : first_error(args)
    this.write(severity, name, format_message(format, args), err === undefined ? undefined : ['err', err], ctx)
  }

  /**
   * Writes one line at an enabled severity: `msg` then the context `ctx` (the loggers find it with `line_context`; none for
   * a line without context) and
   * `pairs` (alternating keys and values). A line of an App's request goes through that App's core.
   */
  write(severity: number, name: string, msg: string, pairs: readonly unknown[] | undefined, ctx?: StoredContext): void {
    const target = ctx?.log ?? this
    const line = target.#current_line()
    const root = target.#parent ?? target
    const extra = root.#line_fields?.(ctx)
    const all = extra === undefined ? pairs : pairs === undefined ? extra : [...extra, ...pairs]
    const { rec, moved, errors } = json_record(name, msg, root.#clock(), ctx, all, line.raw_keys)
    line.meta.moved = moved
    line.meta.errors = errors
    line.emit(severity, rec)
  }

  #current_line(): PinoLine {
    const parent = this.#parent
    if (parent === undefined) return this.#line ?? this.#open_line()
    const o = this.#over
    if (o.format === undefined && o.pino === undefined && o.sink === undefined) return parent.#current_line()
    const format = o.format ?? parent.#format
    const inherited = parent.#pino_options
    const from = this.#line_from
    if (
      this.#line !== undefined &&
      from?.[0] === format &&
      from[1] === inherited &&
      from[2] === o.pino &&
      from[3] === o.sink &&
      from[4] === parent.#sink
    )
      return this.#line
    const pino = merged_pino(inherited, o.pino, o.sink !== undefined)
    // The App's own destination, else the process's, with the colours of the core that opened it.
    const destination = (): [Sink, boolean] => {
      const to = o.sink ?? parent.#sink ?? parent.#open()
      return [to, to === o.sink ? this.#color : parent.#color]
    }
    const [sink, color] = pino.transport === undefined ? destination() : NO_SINK
    this.#line_from = [format, inherited, o.pino, o.sink, parent.#sink]
    this.#line_to_transport = sink === undefined
    this.#line = pino_line(pino, format, sink, color, destination)
    return this.#line
  }

  #configure_child(parent: LogCore, config: Partial<LogConfig>): void {
    const o = this.#over
    const format = config.format === undefined ? o.format : check_format(config.format)
    const pino = config.pino === undefined ? o.pino : check_pino_options(config.pino)
    const own = config.destination !== undefined || config.async !== undefined
    // Checked and opened before anything changes, as the process-wide configure does.
    const destination = own
      ? check_destination(config.destination ?? (o.sink === undefined ? parent.#destination : this.#destination))
      : undefined
    const async = config.async ?? (o.sink === undefined ? parent.#async : this.#async)
    if (config.level !== undefined) severity_of(config.level)
    const sink = destination === undefined ? o.sink : open_sink(destination, async)
    if (config.level !== undefined) parent.configure({ level: config.level })
    if (sink !== o.sink) {
      o.sink?.close()
      this.#destination = destination!
      this.#async = async
      this.#color = color_wanted(sink!.is_tty)
      flush_on_signals(this, this.#async ? sink : undefined)
    }
    this.#over.format = format
    this.#over.pino = pino
    this.#over.sink = sink
  }

  #open_line(): PinoLine {
    // A transport is pino's own destination (often a worker thread): it takes the JSON lines, and fw's sink stays
    // unused.
    const destination = (): [Sink, boolean] => [this.#sink ?? this.#open(), this.#color]
    const [sink, color] = this.#pino_options.transport === undefined ? destination() : NO_SINK
    this.#line = pino_line(this.#pino_options, this.#format, sink, color, destination)
    return this.#line
  }

  #from_env(name: string, apply: (text: string) => void): boolean {
    const text = process.env[name]
    if (text === undefined || text.trim() === '') return false
    apply(text)
    return true
  }

  #set_threshold(severity: number): void {
    if (severity === this.threshold) return
    this.threshold = severity
    for (const watcher of this.#level_watchers) watcher(LEVELS[severity]!)
  }

  #open(): Sink {
    return this.#use(open_sink(this.#destination, this.#async))
  }

  #use(sink: Sink): Sink {
    this.#sink = sink
    this.#line = undefined
    this.#color = color_wanted(sink.is_tty)
    flush_on_signals(this, this.#async ? sink : undefined)
    return sink
  }

  #reopen(destination: LogDestination, async: boolean): void {
    // The new destination is opened before anything changes, so a bad one throws while the old one still works.
    const sink = open_sink(destination, async)
    const old = this.#sink
    this.#destination = destination
    this.#async = async
    this.#use(sink)
    old?.close()
  }
}

/** The state shared by the global logger and every named one. */
export const core = new LogCore()

/**
 * An App's pino options over the process-wide ones: the App's win member by member, so `redact` given to an App keeps
 * the process's `transport`, `mixin` or `base`. A transport the App does not name is not inherited when the App has
 * a destination of its own: its lines go there.
 */
function merged_pino(inherited: PinoOptions, own: PinoOptions | undefined, own_sink: boolean): PinoOptions {
  if (own === undefined && !own_sink) return inherited
  const merged: PinoOptions = { ...inherited, ...own }
  if (own_sink && own?.transport === undefined) delete merged.transport
  return merged
}
