// The KV line: `<HH:MM:SS.mmm> [<logger>] [<label>] <message> rid=<id> mod=<module> <field>=<value> ... <key>=<value>
// ...`.
import { paint_label } from './colors.js'
import { LABELS } from './levels.js'
import { RAW_CHARS, escape_raw, field_text, text_of } from './values.js'

// A message is written bare unless quoting is needed to keep the line one line, its `key=value` tail unambiguous and
// its text in the order it was logged. `RAW_CHARS` are what a quoted text escapes besides JSON's own escapes: the
// Unicode line and paragraph separators (editors and log viewers break lines there) and the bidirectional controls
// (they reorder what is shown). Each test is one scan of the text, whatever the class holds.
const MESSAGE_NEEDS_QUOTES = new RegExp(`["=\\p{Cc}${RAW_CHARS}]`, 'u')
const VALUE_NEEDS_QUOTES = new RegExp(`[\\s="\\p{Cc}${RAW_CHARS}]`, 'u')
const BAD_KEY_CHARS = new RegExp(`[\\s="\\p{Cc}${RAW_CHARS}]`, 'gu')

const PLAIN_LABELS = LABELS.map((label) => `] [${label}] `)
const COLOR_LABELS = LABELS.map((label, severity) => `] [${paint_label(severity, label)}] `)

let clock_second = NaN
let clock_prefix = ''

/** Local wall-clock time as `HH:MM:SS.mmm`; the `HH:MM:SS.` part is computed once per second. */
export function clock_text(ms: number): string {
  const whole = Math.floor(ms)
  const second = Math.floor(whole / 1000)
  if (second !== clock_second) {
    const d = new Date(whole)
    clock_prefix = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.`
    clock_second = second
  }
  const milli = whole - second * 1000
  return clock_prefix + (milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : `${milli}`)
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`
}

/**
 * A message as the line shows it: bare, or as a JSON string when it is empty or holds `"`, `=`, a control character, a
 * line separator or a bidirectional control.
 */
export function kv_message(msg: string): string {
  return msg === '' || MESSAGE_NEEDS_QUOTES.test(msg) ? quoted(msg) : msg
}

/**
 * A value as the line shows it: bare, or as a JSON string when it is empty or holds whitespace, `=`, `"`, a control
 * character or a bidirectional control.
 */
export function kv_value(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`
  const text = field_text(value)
  return text === '' || VALUE_NEEDS_QUOTES.test(text) ? quoted(text) : text
}

/**
 * `text` as a JSON string in which every control character, line separator and bidirectional control is an escape, so
 * a quoted message or value can neither drive the terminal, start a line nor reorder what is shown. Only quoted text
 * pays the extra scan.
 */
function quoted(text: string): string {
  return escape_raw(JSON.stringify(text))
}

/**
 * A key as the line shows it: whitespace, `=`, `"`, control characters and bidirectional controls become `_`, so a key
 * is always one bare token, shown in the order it was written.
 */
export function kv_key(key: string): string {
  if (key === '') return '_'
  return VALUE_NEEDS_QUOTES.test(key) ? key.replace(BAD_KEY_CHARS, '_') : key
}

/** The key of fw's member `name` in a record: `fw_<name>` when a pair took the name (bit `bit` of `moved`). */
function own_key(name: string, bit: number, moved: number): string {
  return (moved & bit) === 0 ? name : `fw_${name}`
}

/**
 * One KV line, newline included, from a record as pino wrote it: fw's `level`, `msg`, `time` and `logger` members make
 * the head, every other member (bindings, mixin, context, pairs, in their order) a `key=value`; the record of an `Error`
 * (a member named in `errors`, `{type, message, stack}` as fw writes it) shows its stack, as a logged `Error` does. Any
 * other object shows as JSON, whatever its keys: one that only looks like an error keeps all of them.
 */
export function kv_record_line(
  severity: number,
  rec: Record<string, unknown>,
  moved: number,
  color: boolean,
  errors?: readonly string[],
): string {
  const keys = [
    own_key('level', 8, moved),
    own_key('msg', 1, moved),
    own_key('time', 2, moved),
    own_key('logger', 4, moved),
  ]
  const msg = rec[keys[1]!]
  let line = `${clock_text(Number(rec[keys[2]!]))} [${String(rec[keys[3]!])}${(color ? COLOR_LABELS : PLAIN_LABELS)[severity]}${kv_message(typeof msg === 'string' ? msg : text_of(msg))}`
  for (const k in rec) {
    if (k === keys[0] || k === keys[1] || k === keys[2] || k === keys[3]) continue
    const v = rec[k]
    line += ` ${kv_key(k)}=${kv_value(errors?.includes(k) === true && error_like(v) ? error_text(v, 0) : v)}`
  }
  return `${line}\n`
}

type ErrorRecord = { type: string; message: string; stack?: unknown; cause?: unknown }

function error_like(v: unknown): v is ErrorRecord {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ErrorRecord).type === 'string' &&
    typeof (v as ErrorRecord).message === 'string' &&
    'stack' in v
  )
}

/** An error record's stack (or `type: message`) and its causes', three deep, as a logged `Error` shows in KV. */
function error_text(e: ErrorRecord, depth: number): string {
  const own = typeof e.stack === 'string' && e.stack !== '' ? e.stack : `${e.type}: ${e.message}`
  if (e.cause === undefined || depth >= 3) return own
  return `${own}\ncaused by: ${error_like(e.cause) ? error_text(e.cause, depth + 1) : text_of(e.cause)}`
}
