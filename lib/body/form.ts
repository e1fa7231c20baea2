// application/x-www-form-urlencoded bodies: fields by name, repeated names as arrays, a bounded field count.
import { over_limit } from './errors.js'

/** A parsed form: one string per name, an array for a repeated name. Its prototype is null. */
export type FormFields = Record<string, string | string[]>

/** Adds one field to a form made by `Object.create(null)`; a repeated name becomes an array in arrival order. */
export function add_field(form: FormFields, name: string, value: string): void {
  const prev = form[name]
  if (prev === undefined) form[name] = value
  else if (typeof prev === 'string') form[name] = [prev, value]
  else prev.push(value)
}

/**
 * Parses a urlencoded body. The object has no prototype, so `__proto__`, `constructor` and `toString` are plain field
 * names; more than `max_fields` fields throws `FW_ERR_BODY_OVER_LIMIT` (413), counted before the body is decoded.
 */
export function parse_form(text: string, max_fields: number): FormFields {
  // n fields take at least 2n - 1 characters (one more with a leading `?`): a shorter text cannot pass the limit.
  if (text.length > 2 * max_fields && too_many_fields(text, max_fields)) throw over_limit('fields', max_fields)
  const form = Object.create(null) as FormFields
  for (const [name, value] of new URLSearchParams(text)) add_field(form, name, value)
  return form
}

/**
 * Whether `text` has more than `max` fields as URLSearchParams counts them (the non-empty runs between `&`), found
 * without decoding anything and stopping at the first field over `max`: a 1 MiB `a&a&...` costs microseconds, not
 * the tens of milliseconds of parsing it whole.
 */
function too_many_fields(text: string, max: number): boolean {
  let n = 0
  // URLSearchParams drops one leading `?`, as from a URL's search.
  let start = text.startsWith('?') ? 1 : 0
  for (;;) {
    const amp = text.indexOf('&', start)
    const end = amp === -1 ? text.length : amp
    if (end > start && ++n > max) return true
    if (amp === -1) return false
    start = amp + 1
  }
}
