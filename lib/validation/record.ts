// Records: objects with keys not known in advance, each value of one type.
import { ValidationErrorCode } from './validation-error.js'
import {
  INVALID,
  MAX_ERRORS,
  Type,
  child_path,
  fail,
  null_item_refused,
  required_message_of,
  type Check,
  type CompileOptions,
  type JsonSchema,
  type TypeSpec,
} from './type.js'

type ValueOf<V> = V extends Type<infer T, boolean> ? T : never

/** What a record declares. */
export interface RecordSpec extends TypeSpec {
  readonly value: Type<unknown, boolean>
}

/**
 * An object of any own keys, each value checked by `value`. The result has no prototype, so keys such as `__proto__`,
 * `constructor` or `toString` are plain data. A `null` value fails with `Required` (`<field> value is required`, at the
 * key's path) unless the value type is nullable or has a default.
 * @example
 * field.record(field.integer().min(0)) // { "apples": 3, "pears": 0 }
 */
export class RecordType<V extends Type<unknown, boolean>, R extends boolean> extends Type<
  Record<string, ValueOf<V>>,
  R
> {
  declare readonly '~presence': { readonly required: RecordType<V, true>; readonly optional: RecordType<V, false> }
  declare readonly spec: RecordSpec

  /** Prefer the `field.*` builders. */
  constructor(spec: RecordSpec) {
    super(spec)
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    const value = this.spec.value.compile(`${name} value`, options)
    // A `null` value is refused with `Required` unless its type takes it (`null_item_refused`).
    const required_message = required_message_of(this.spec.value.spec, `${name} value`)
    const null_refused = null_item_refused(this.spec.value.spec)
    const type_message = this.type_message(name, 'an object')
    return (raw, at, errors) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        return fail(errors, at, ValidationErrorCode.Type, type_message)
      const start = errors.length
      const out: Record<string, unknown> = Object.create(null)
      for (const key of Object.keys(raw)) {
        if (errors.length >= MAX_ERRORS) break
        const given = (raw as Record<string, unknown>)[key]
        const key_at = child_path(at, key)
        if (given === null && null_refused) {
          fail(errors, key_at, ValidationErrorCode.Required, required_message)
          continue
        }
        const v = value(given, key_at, errors)
        if (v !== undefined) out[key] = v
      }
      return errors.length > start ? INVALID : out
    }
  }

  protected value_schema(): JsonSchema {
    return { type: 'object', additionalProperties: this.spec.value.json_schema() }
  }
}
