// Rendering of logged values: `{}` placeholders, text for KV lines, JSON-safe copies of objects and errors, the length
// cap. A value that throws when read is written as `UNSERIALIZABLE`: a log call never throws.
import { Stream } from 'node:stream'
import { set_field } from './field.js'
import { REDACTED, secret_header } from './redact.js'

export { set_field } from './field.js'

/**
 * Longest message or value a line carries, in UTF-16 code units; a longer one is cut and marked `...[truncated N
 * chars]`.
 */
export const MAX_VALUE_CHARS = 8192

const MAX_DEPTH = 6
const MAX_ITEMS = 100

/**
 * What a value that throws when read is written as: a getter, `toJSON` or `name`/`message`/`stack` that throws, a Proxy
 * whose traps throw (prototype lookup, keys, members), a revoked Proxy. In a message, a KV field and JSON alike.
 */
export const UNSERIALIZABLE = '[Unserializable]'

/** Whether `value` is an `Error`; false for a Proxy whose prototype lookup throws (`instanceof` asks it). */
export function is_error(value: unknown): value is Error {
  try {
    return value instanceof Error
  } catch {
    return false
  }
}

/**
 * What follows the character before `cap`'s usual cut in a text it cut: that character, then the mark (the cut falls
 * one earlier, right there, when it keeps a surrogate pair whole).
 */
const CUT_MARK = /^[\s\S]?\.\.\.\[truncated \d+ chars\]$/

/**
 * Cuts text longer than `MAX_VALUE_CHARS` (never inside a surrogate pair) and says how much was cut. Text `cap` cut
 * already is returned as it is: a KV line renders values that were capped when the record was made, and cutting the
 * mark would replace the count of what was cut with the count of the mark's own characters.
 */
export function cap(text: string): string {
  if (text.length <= MAX_VALUE_CHARS) return text
  if (CUT_MARK.test(text.slice(MAX_VALUE_CHARS - 1))) return text
  const code = text.charCodeAt(MAX_VALUE_CHARS - 1)
  const end = code >= 0xd800 && code <= 0xdbff ? MAX_VALUE_CHARS - 1 : MAX_VALUE_CHARS
  return `${text.slice(0, end)}...[truncated ${text.length - end} chars]`
}

/**
 * What JSON.stringify leaves raw in a string but a terminal or a viewer may act on, as the body of a character class:
 * DEL, the C1 controls (U+009B is CSI, U+0085 is NEL, next line), the Unicode line and paragraph separators (U+2028,
 * U+2029) and the bidirectional controls, which reorder what is shown ("Trojan Source": a value holding U+202E shows
 * `nimda` as `admin`): the marks U+061C, U+200E and U+200F, the embeddings and overrides U+202A-U+202E, the isolates
 * U+2066-U+2069. Every format escapes them; KV also quotes text holding one (`kv-line.ts`), in the same one scan.
 */
export const RAW_CHARS = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069'
const RAW_IN_JSON = new RegExp(`[${RAW_CHARS}]`, 'gu')

/** JSON text with each character of `RAW_IN_JSON` written as a `\uXXXX` escape: the same JSON, safe to read on a terminal. */
export function escape_raw(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * Replaces each `{}` in `format` with the next argument as text. Placeholders without an argument stay as written;
 * arguments without a placeholder are not shown (an `Error` among them still becomes the line's `err` field).
 */
export function format_message(format: string, args: readonly unknown[]): string {
  if (typeof format !== 'string') format = text_of(format)
  if (args.length === 0) return cap(format)
  let out = ''
  let from = 0
  let i = 0
  for (let at = format.indexOf('{}'); at !== -1 && i < args.length; at = format.indexOf('{}', from)) {
    out += format.slice(from, at) + text_of(args[i++])
    from = at + 2
  }
  return cap(out + format.slice(from))
}

/** The first `Error` among message arguments, which a line carries as its `err` field. */
export function first_error(args: readonly unknown[]): Error | undefined {
  for (const a of args) if (is_error(a)) return a
  return undefined
}

/**
 * A value as message text: strings as they are, an `Error` as `Name: message`, objects and arrays as compact JSON, a
 * value that throws when read as `UNSERIALIZABLE`. With `secret`, credential headers in an object read `[redacted]`
 * (an error's cause, shown in KV).
 */
export function text_of(value: unknown, secret = false): string {
  switch (typeof value) {
    case 'string':
      return value
    case 'object':
      return value === null ? 'null' : object_text(value, secret)
    case 'function':
      return function_text(value)
    default:
      return String(value)
  }
}

function object_text(value: object, secret: boolean): string {
  try {
    if (value instanceof Error) return `${value.name}: ${value.message}`
    const safe = json_safe(value, 0, [], secret)
    return safe === UNSERIALIZABLE ? safe : JSON.stringify(safe)
  } catch {
    return UNSERIALIZABLE
  }
}

/** A function as `[Function name]`; its `name` may be a getter that throws. */
function function_text(f: { name: unknown }): string {
  try {
    return `[Function ${(f.name as string) || 'anonymous'}]`
  } catch {
    return UNSERIALIZABLE
  }
}

/**
 * A field value as KV text, capped: an `Error` shows its stack (and its causes'; an `AggregateError` its errors, the
 * first 10), anything else as `text_of` gives it.
 */
export function field_text(value: unknown): string {
  try {
    return cap(is_error(value) ? error_text(value, 0) : text_of(value))
  } catch {
    return UNSERIALIZABLE
  }
}

/** The errors of an `AggregateError` shown in a KV field; the rest are counted. */
const SHOWN_ERRORS = 10

function error_text(e: Error, depth: number): string {
  let text = typeof e.stack === 'string' && e.stack !== '' ? e.stack : `${e.name}: ${e.message}`
  if (depth >= 3) return text
  const inner = e instanceof AggregateError && Array.isArray(e.errors) ? (e.errors as unknown[]) : []
  for (let i = 0; i < inner.length && i < SHOWN_ERRORS; i++) text += `\nerror ${i}: ${nested_text(inner[i], depth)}`
  if (inner.length > SHOWN_ERRORS) text += `\n... ${inner.length - SHOWN_ERRORS} more errors`
  const cause: unknown = e.cause
  return cause === undefined ? text : `${text}\ncaused by: ${nested_text(cause, depth)}`
}

/**
 * A cause or an aggregated error one level down: an `Error` with its own stack and causes, else its text, credential
 * headers redacted as in an error's own fields.
 */
const nested_text = (value: unknown, depth: number): string =>
  is_error(value) ? error_text(value, depth + 1) : text_of(value, true)

/**
 * A copy of any value that `JSON.stringify` renders faithfully and never throws on: strings capped, `undefined` as null
 * (members whose value is undefined are left out), non-finite numbers and bigints as strings, errors as `{type (the
 * class name), message, stack, ...own fields, cause}`, cycles as `"[Circular]"`, objects beyond 6 levels as
 * `"[Object]"`, at most 100 items or keys per level, a value that throws when read as `"[Unserializable]"`. Within an
 * error (`secret`: its own fields, its cause, its errors, at any depth) a member named as one of `SECRET_HEADERS` (any
 * case) reads `"[redacted]"`: an HTTP client's error carries the request's `config.headers.Authorization`.
 */
export function json_safe(value: unknown, depth = 0, parents: object[] = [], secret = false): unknown {
  switch (typeof value) {
    case 'string':
      return cap(value)
    case 'number':
      return Number.isFinite(value) ? value : String(value)
    case 'boolean':
      return value
    case 'undefined':
      return null
    case 'function':
      return function_text(value)
    case 'object':
      return value === null ? null : object_safe(value, depth, parents, secret)
    default:
      return String(value)
  }
}

function object_safe(value: object, depth: number, parents: object[], secret: boolean): unknown {
  if (parents.includes(value)) return '[Circular]'
  parents.push(value)
  try {
    // Array.isArray throws on a revoked Proxy.
    if (depth >= MAX_DEPTH) return Array.isArray(value) ? '[Array]' : '[Object]'
    if (value instanceof Error) return error_safe(value, depth, parents)
    // A Node stream (an HTTP client error's `request`, a socket) is its class name: its members are internal state, and
    // a ClientRequest's `_header` holds the request head, credentials included.
    if (value instanceof Stream) return `[${class_name(value)}]`
    const to_json = (value as { toJSON?: unknown }).toJSON
    if (typeof to_json === 'function') return json_safe(to_json.call(value), depth + 1, parents, secret)
    if (Array.isArray(value)) return items_safe(value, depth, parents, secret)
    if (value instanceof Set) return items_safe([...value], depth, parents, secret)
    const entries = value instanceof Map ? [...value].map(([k, v]) => [String(k), v] as const) : Object.entries(value)
    return entries_safe(entries, depth, parents, secret)
  } catch {
    // A getter, toJSON or Proxy trap that throws must not turn a log call into a crash.
    return UNSERIALIZABLE
  } finally {
    parents.pop()
  }
}

function items_safe(items: readonly unknown[], depth: number, parents: object[], secret: boolean): unknown[] {
  const out = items.slice(0, MAX_ITEMS).map((v) => json_safe(v, depth + 1, parents, secret))
  if (items.length > MAX_ITEMS) out.push(`...[${items.length - MAX_ITEMS} more items]`)
  return out
}

function entries_safe(
  entries: ReadonlyArray<readonly [string, unknown]>,
  depth: number,
  parents: object[],
  secret: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  // Like JSON.stringify, a member whose value is undefined is left out.
  for (const [k, v] of entries.slice(0, MAX_ITEMS))
    if (v !== undefined) set_field(out, k, member_safe(k, v, depth, parents, secret))
  if (entries.length > MAX_ITEMS) out['...'] = `${entries.length - MAX_ITEMS} more keys`
  return out
}

function error_safe(e: Error, depth: number, parents: object[]): Record<string, unknown> {
  const out: Record<string, unknown> = { type: class_name(e), message: cap(String(e.message)) }
  if (typeof e.stack === 'string') out.stack = cap(e.stack)
  // Everything copied from an error hides credential headers: the cost falls on lines that carry one.
  for (const [k, v] of Object.entries(e))
    if (!Object.hasOwn(out, k)) set_field(out, k, member_safe(k, v, depth, parents, true))
  if (e.cause !== undefined) out.cause = json_safe(e.cause, depth + 1, parents, true)
  if (e instanceof AggregateError) out.errors = json_safe(e.errors, depth + 1, parents, true)
  return out
}

/** A member's value one level down; `[redacted]` for a credential header's value within an error (`secret`). */
function member_safe(key: string, value: unknown, depth: number, parents: object[], secret: boolean): unknown {
  return secret && value !== undefined && secret_header(key) ? REDACTED : json_safe(value, depth + 1, parents, secret)
}

/**
 * An error's class name, as pino's error serializer gives `type`: `DbError` for `class DbError extends Error {}`, whose
 * inherited `name` is `Error`; the `name` when its constructor is not a named function.
 */
function class_name(e: object): string {
  const ctor: unknown = e.constructor
  return typeof ctor === 'function' && ctor.name !== '' ? ctor.name : String((e as { name?: unknown }).name)
}
