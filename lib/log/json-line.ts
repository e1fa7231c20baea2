// JSON lines: the record fw hands pino (`msg`, `time`, `logger`, the context, the pairs) and the indented form.
import { paint_json } from './colors.js'
import type { LogContext } from './log-context.js'
import { escape_raw, is_error, json_safe, set_field } from './values.js'

/**
 * fw's own members and their bit in `moved`: a pair of the same name keeps it, and fw's member becomes `fw_<name>`. The
 * context's `rid` and `mod` are fw's members too, on the lines that have them.
 */
export const OWN: Readonly<Record<string, number>> = { msg: 1, time: 2, logger: 4, level: 8, rid: 16, mod: 32 }
/** The names fw's members move to, with the same bits: on a line where fw's member took it, a pair moves on. */
const MOVED: Readonly<Record<string, number>> = {
  fw_msg: 1,
  fw_time: 2,
  fw_logger: 4,
  fw_level: 8,
  fw_rid: 16,
  fw_mod: 32,
}

/** A record and which of fw's members a pair pushed to `fw_<name>` (bits of `OWN`). */
export interface JsonRecord {
  rec: Record<string, unknown>
  moved: number
  /** The members whose value was an `Error` (a KV line shows their stack), or undefined for none. */
  errors: string[] | undefined
}

/**
 * The members of a line after pino's `level`: `msg`, `time` (epoch milliseconds), `logger` (its name), the context
 * (`rid`, `mod`, its fields), then the key/value pairs, every value made JSON-safe (numbers stay numbers) unless its
 * key is in `raw_keys` (the user's pino serializers take those as logged). A pair named `msg`, `time`, `logger`,
 * `level`, `rid` or `mod` keeps its name; fw's own member moves to `fw_msg`, `fw_time`... (`rid` and `mod` when the line
 * has them), and a pair of that name, on that line only, to `fw_fw_<name>`: each key appears once and no value is lost.
 */
export function json_record(
  name: string,
  msg: string,
  time: number,
  ctx: LogContext | undefined,
  pairs: readonly unknown[] | undefined,
  raw_keys?: ReadonlySet<string>,
): JsonRecord {
  const out: JsonRecord = { rec: { msg, time, logger: name }, moved: 0, errors: undefined }
  if (ctx !== undefined) {
    if (ctx.request_id !== '') out.rec.rid = ctx.request_id
    if (ctx.module !== '') out.rec.mod = ctx.module
    for (const k in ctx.fields) put(out, k, ctx.fields[k], raw_keys)
  }
  if (pairs !== undefined)
    for (let i = 0; i < pairs.length; i += 2) put(out, pairs[i] as string, pairs[i + 1], raw_keys)
  return out
}

function put(out: JsonRecord, key: string, value: unknown, raw_keys: ReadonlySet<string> | undefined): void {
  const bit = Object.hasOwn(OWN, key) ? OWN[key]! : 0
  // fw's member moves only when the line has it (pino writes `level` itself); a line without `rid` or `mod` lets the
  // pair take the name with nothing to move.
  if (bit !== 0 && (out.moved & bit) === 0 && (bit === 8 || Object.hasOwn(out.rec, key))) {
    out.moved |= bit
    const moved = `fw_${key}`
    // Only a pair can have written this name yet: it gives the name to fw's member (pino's level key for `level`).
    if (Object.hasOwn(out.rec, moved)) {
      set_field(out.rec, `fw_${moved}`, out.rec[moved])
      delete out.rec[moved]
    }
    if (bit !== 8) set_field(out.rec, moved, out.rec[key])
  }
  const name = key.startsWith('fw_') && Object.hasOwn(MOVED, key) && (out.moved & MOVED[key]!) !== 0 ? `fw_${key}` : key
  if (is_error(value)) (out.errors ??= []).push(name)
  set_field(out.rec, name, raw_keys?.has(key) === true ? value : json_safe(value))
}

/**
 * One record as indented JSON, newline included, coloured when `color` is set. It is read on a terminal, so control
 * characters JSON leaves raw are escaped (`escape_raw`).
 */
export function pretty_line(severity: number, rec: Record<string, unknown>, color: boolean): string {
  const text = `${escape_raw(JSON.stringify(rec, null, 2))}\n`
  return color ? paint_json(text, severity) : text
}
