// JSON lines: one object per line, written by pino (`{"level":"info","msg":...,"time":...,<fields>}`), and the indented form.
import pino from 'pino'
import { paint_json } from './colors.js'
import type { LogContext } from './context.js'
import { LABELS } from './levels.js'
import { json_safe, set_field } from './values.js'

/** Members every line has, so a field of the same name is written as `_<name>` instead of replacing them. */
const RESERVED = new Set(['level', 'msg', 'time', 'name'])

/** pino's method for each severity: Critical is pino's `fatal`. */
const PINO_METHODS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const

/** pino's level labels as fw names them in a line. */
const FW_LABELS: Readonly<Record<string, string>> = { trace: 'trace', debug: 'debug', info: 'info', warn: 'warning', error: 'error', fatal: 'critical' }

function field_key(key: string): string {
  return RESERVED.has(key) ? `_${key}` : key
}

/**
 * The members of a line after `level`: `msg`, `time` (epoch milliseconds), `name` (the logger), the context (`rid`, `mod`,
 * its fields), then the key/value pairs, every value made JSON-safe (numbers stay numbers).
 */
export function json_record(
  name: string,
  msg: string,
  time: number,
  ctx: LogContext | undefined,
  pairs: readonly unknown[] | undefined,
): Record<string, unknown> {
  const rec: Record<string, unknown> = { msg, time, name }
  if (ctx !== undefined) {
    if (ctx.request_id !== '') rec.rid = ctx.request_id
    if (ctx.module !== '') rec.mod = ctx.module
    for (const k in ctx.fields) set_field(rec, field_key(k), json_safe(ctx.fields[k]))
  }
  if (pairs !== undefined) {
    for (let i = 0; i < pairs.length; i += 2) set_field(rec, field_key(pairs[i] as string), json_safe(pairs[i + 1]))
  }
  return rec
}

/** Turns records into single-line JSON through pino. */
export class JsonWriter {
  readonly #pino: pino.Logger
  #line = ''

  constructor() {
    // fw filters levels itself and puts msg and time first, so pino runs at `trace` without its own time, pid or hostname;
    // values arrive JSON-safe already, so pino's err serializer must not reshape an `err` member.
    const options: pino.LoggerOptions = {
      level: 'trace',
      base: null,
      timestamp: false,
      serializers: { err: (value: unknown) => value },
      formatters: { level: (label) => ({ level: FW_LABELS[label] ?? label }) },
    }
    // pino hands its finished line to the stream synchronously; keeping it lets fw decide where and how it is written.
    this.#pino = pino(options, { write: (line: string) => void (this.#line = line) })
  }

  /** One record at a severity (0 trace ... 5 critical) as a line, newline included. */
  line(severity: number, rec: Record<string, unknown>): string {
    this.#pino[PINO_METHODS[severity]!](rec)
    const line = this.#line
    this.#line = ''
    return line
  }
}

/** One indented JSON record with `level` first, newline included, coloured when `color` is set. */
export function pretty_line(severity: number, rec: Record<string, unknown>, color: boolean): string {
  const text = `{\n  "level": ${JSON.stringify(LABELS[severity])},${JSON.stringify(rec, null, 2).slice(1)}\n`
  return color ? paint_json(text, severity) : text
}
