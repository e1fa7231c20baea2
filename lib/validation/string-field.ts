// String fields: trim and lowercase transforms, email format, and lengths counted in code points.
import { code_point_length } from './code-points.js'
import { is_email } from './email.js'
import { is_date_time, is_uri, is_uuid } from './formats.js'
import { ERR_VALIDATION_BAD_LIMIT } from './errors.js'
import { Field } from './field.js'
import { count_limit } from './limits.js'
import { ValidationErrorCode } from './validation-error.js'

/**
 * A string field. Transforms (`trim`, `lowercase`) run before every rule, wherever they stand in the chain; rules run
 * in the order declared and the first failing one is the field's error. Lengths count Unicode code points.
 * @example
 * field.string().required('email is required').trim().lowercase().email('invalid email format').max_length(120)
 */
export class StringField<R extends boolean> extends Field<'string', R> {
  declare readonly '~presence': { readonly required: StringField<true>; readonly optional: StringField<false> }
  /** Removes leading and trailing whitespace (`String.prototype.trim`), so `'  '` counts as empty. */
  trim(): StringField<R> {
    return this.derive<StringField<R>>({ transforms: [...this.spec.transforms, (s: string) => s.trim()] })
  }

  /**
   * Lowercases the value (`String.prototype.toLowerCase`); meant for emails, where case carries no meaning in practice.
   */
  lowercase(): StringField<R> {
    return this.derive<StringField<R>>({ transforms: [...this.spec.transforms, (s: string) => s.toLowerCase()] })
  }

  /**
   * Fails with `Email` unless the value passes `is_email` (default message `<field> must be a valid email address`).
   */
  email(message?: string): StringField<R> {
    return this.with_rule<StringField<R>>({
      code: ValidationErrorCode.Email,
      message,
      default_message: (name) => `${name} must be a valid email address`,
      test: is_email,
      references: undefined,
      keywords: { format: 'email' },
    })
  }

  /** Fails with `Format` unless the value is a UUID (`8-4-4-4-12` hex digits, any version). */
  uuid(message?: string): StringField<R> {
    return this.#format('uuid', is_uuid, message)
  }

  /**
   * Fails with `Format` unless the value is an absolute URI with a scheme (`https://example.com/x`, `urn:isbn:0451`).
   * Any scheme is a URI, `javascript:` too: give `schemes` (compared case-insensitively) to accept only those, as a
   * link a page will render must (default message `<field> must be a valid uri (scheme http or https)`).
   * @example
   * field.string().uri({ schemes: ['http', 'https'] }) // refuses javascript:alert(1), data:..., ftp://...
   */
  uri(options?: string | { readonly schemes?: readonly string[]; readonly message?: string }): StringField<R> {
    if (typeof options !== 'object' || options.schemes === undefined)
      return this.#format('uri', is_uri, typeof options === 'object' ? options.message : options)
    const schemes = options.schemes as unknown
    if (
      !Array.isArray(schemes) ||
      schemes.length === 0 ||
      !schemes.every((s) => typeof s === 'string' && SCHEME.test(s))
    )
      throw ERR_VALIDATION_BAD_LIMIT(
        `uri({ schemes: ${JSON.stringify(schemes)} })`,
        'expected a list of one or more schemes (letters, then letters, digits, +, - or ., without the colon)',
      )
    const allowed = new Set((schemes as string[]).map((s) => s.toLowerCase()))
    const names = [...allowed]
    const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
    return this.with_rule<StringField<R>>({
      code: ValidationErrorCode.Format,
      message: options.message,
      default_message: (name) => `${name} must be a valid uri (scheme ${listed})`,
      test: (value: string) => is_uri(value) && allowed.has(value.slice(0, value.indexOf(':')).toLowerCase()),
      references: undefined,
      // The same restriction for clients: a pattern matching the scheme in either case (JSON Schema has no flags).
      keywords: { format: 'uri', pattern: `^(?:${names.map(any_case).join('|')}):` },
    })
  }

  /** Fails with `Format` unless the value is an RFC 3339 date-time (`2026-11-25T02:30:00Z`, `...+01:00`). */
  date_time(message?: string): StringField<R> {
    return this.#format('date-time', is_date_time, message)
  }

  #format(format: string, test: (value: string) => boolean, message: string | undefined): StringField<R> {
    const default_message = (name: string): string => `${name} must be a valid ${format}`
    return this.with_rule<StringField<R>>({
      code: ValidationErrorCode.Format,
      message,
      default_message,
      test,
      references: undefined,
      keywords: { format },
    })
  }

  /** Fails with `MinLength` when the value has fewer than `min` code points. */
  min_length(min: number, message?: string): StringField<R> {
    return this.#min(
      count_limit(`min_length(${min})`, min),
      message,
      (name) => `${name} must be at least ${min} characters`,
    )
  }

  /** Fails with `MaxLength` when the value has more than `max` code points. */
  max_length(max: number, message?: string): StringField<R> {
    return this.#max(
      count_limit(`max_length(${max})`, max),
      message,
      (name) => `${name} must be at most ${max} characters`,
    )
  }

  /**
   * Fails with `MinLength` below `min` code points and `MaxLength` above `max` (default message `<field> must be <min>
   * to <max> characters`).
   */
  length(min: number, max: number, message?: string): StringField<R> {
    const call = `length(${min}, ${max})`
    count_limit(call, min)
    count_limit(call, max)
    if (min > max) throw ERR_VALIDATION_BAD_LIMIT(call, 'min must not exceed max')
    const default_message = (name: string): string => `${name} must be ${min} to ${max} characters`
    return this.#min(min, message, default_message).#max(max, message, default_message)
  }

  #min(min: number, message: string | undefined, default_message: (name: string) => string): StringField<R> {
    // A code point is one or two UTF-16 units: below `min` units, or from `2 * min`, the length alone decides.
    const test = (value: string): boolean =>
      value.length >= min && (value.length >= 2 * min || code_point_length(value) >= min)
    const keywords = { minLength: min }
    return this.with_rule<StringField<R>>({
      code: ValidationErrorCode.MinLength,
      message,
      default_message,
      test,
      references: undefined,
      keywords,
    })
  }

  #max(max: number, message: string | undefined, default_message: (name: string) => string): StringField<R> {
    // The UTF-16 length bounds the code point count from above, so most values skip the count.
    const test = (value: string): boolean => value.length <= max || code_point_length(value) <= max
    const keywords = { maxLength: max }
    return this.with_rule<StringField<R>>({
      code: ValidationErrorCode.MaxLength,
      message,
      default_message,
      test,
      references: undefined,
      keywords,
    })
  }
}

/** A URI scheme as RFC 3986 writes it (`http`, `urn`, `git+ssh`). */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/

/**
 * A lowercase scheme as a pattern matching it in any case: `http` is `[Hh][Tt][Tt][Pp]`; `+`, `-` and `.` each stand in
 * a class of their own (`[+]`), which reads the same with or without the `u` flag.
 */
function any_case(scheme: string): string {
  return [...scheme]
    .map((c) => (c >= 'a' && c <= 'z' ? `[${c.toUpperCase()}${c}]` : c >= '0' && c <= '9' ? c : `[${c}]`))
    .join('')
}
