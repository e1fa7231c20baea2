// The KV line: `<HH:MM:SS.mmm> [<logger>] [<label>] <message> rid=<id> mod=<module> <field>=<value> ... <key>=<value> ...`.
import { paint_label } from './colors.js'
import type { LogContext } from './context.js'
import { LABELS } from './levels.js'
import { field_text } from './values.js'

// A message is written bare unless quoting is needed to keep the line one line and its `key=value` tail unambiguous.
const MESSAGE_NEEDS_QUOTES = /["=\p{Cc}]/u
const VALUE_NEEDS_QUOTES = /[\s="\p{Cc}]/u
const BAD_KEY_CHARS = /[\s="\p{Cc}]/gu

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

/** A message as the line shows it: bare, or as a JSON string when it is empty or holds `"`, `=` or a control character. */
export function kv_message(msg: string): string {
  return msg === '' || MESSAGE_NEEDS_QUOTES.test(msg) ? JSON.stringify(msg) : msg
}

/** A value as the line shows it: bare, or as a JSON string when it is empty or holds whitespace, `=`, `"` or a control character. */
export function kv_value(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`
  const text = field_text(value)
  return text === '' || VALUE_NEEDS_QUOTES.test(text) ? JSON.stringify(text) : text
}

/** A key as the line shows it: whitespace, `=`, `"` and control characters become `_`, so a key is always one bare token. */
export function kv_key(key: string): string {
  if (key === '') return '_'
  return VALUE_NEEDS_QUOTES.test(key) ? key.replace(BAD_KEY_CHARS, '_') : key
}

function kv_context(ctx: LogContext): string {
  let out = ''
  if (ctx.request_id !== '') out += ` rid=${kv_value(ctx.request_id)}`
  if (ctx.module !== '') out += ` mod=${kv_value(ctx.module)}`
  for (const k in ctx.fields) out += ` ${kv_key(k)}=${kv_value(ctx.fields[k])}`
  return out
}

/** One KV line, newline included. `pairs` alternates keys (strings) and values; the label is coloured when `color` is set. */
export function kv_line(
  severity: number,
  name: string,
  msg: string,
  time: number,
  ctx: LogContext | undefined,
  pairs: readonly unknown[] | undefined,
  color: boolean,
): string {
  let line = `${clock_text(time)} [${name}${(color ? COLOR_LABELS : PLAIN_LABELS)[severity]}${kv_message(msg)}`
  if (ctx !== undefined) line += kv_context(ctx)
  if (pairs !== undefined) {
    for (let i = 0; i < pairs.length; i += 2) line += ` ${kv_key(pairs[i] as string)}=${kv_value(pairs[i + 1])}`
  }
  return `${line}\n`
}
