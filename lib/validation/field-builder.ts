// The entry points of a field declaration: one builder per JSON type.
import { Field, type FieldKind, type FieldSpec } from './field.js'
import { NumberField } from './number-field.js'
import { StringField } from './string-field.js'

function spec(kind: FieldKind, type_message: string | undefined): FieldSpec {
  return { kind, type_message, required: false, required_message: undefined, transforms: [], rules: [] }
}

/**
 * Builders for schema fields. Each takes the message for a value of the wrong JSON type (default `<field> must be a string`,
 * `an integer`, `a number`, `a boolean`). Fields are optional until `.required()`. No coercion: `"42"` is not an integer.
 * @example
 * const Signup = schema({ email: field.string().required().email(), age: field.integer().min(13), news: field.boolean() })
 */
export const field = {
  /** A string field. */
  string(type_message?: string): StringField<false> {
    return new StringField(spec('string', type_message))
  },
  /** An integer field: a JSON number that is a whole number within ±(2^53 - 1). */
  integer(type_message?: string): NumberField<'integer', false> {
    return new NumberField(spec('integer', type_message))
  },
  /** A number field: any finite JSON number. */
  number(type_message?: string): NumberField<'number', false> {
    return new NumberField(spec('number', type_message))
  },
  /** A boolean field: `true` or `false`, never `"true"` or `1`. */
  boolean(type_message?: string): Field<'boolean', false> {
    return new Field(spec('boolean', type_message))
  },
}
