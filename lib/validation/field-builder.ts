// The entry points of a declaration: one builder per JSON type, and the compound types.
import { ArrayType } from './array.js'
import { EnumType, LiteralType, type Literal } from './choice.js'
import { Field, type FieldKind, type FieldSpec } from './field.js'
import { LazyType, type LazyOptions } from './lazy.js'
import { NumberField } from './number-field.js'
import { RecordType } from './record.js'
import { Schema, type Shape } from './schema.js'
import { StringField } from './string-field.js'
import { base_spec, type Type } from './type.js'
import { UnionType } from './union.js'

/** The field class of a kind, so the chain keeps offering that kind's rules (`email` on strings, `min` on numbers). */
export type FieldOf<K extends FieldKind, R extends boolean> = K extends 'string'
  ? StringField<R>
  : K extends 'integer' | 'number'
    ? NumberField<K, R>
    : Field<K, R>

function spec(kind: FieldKind, type_message: string | undefined): FieldSpec {
  return { ...base_spec(type_message), kind, transforms: [] }
}

/**
 * Builders for schema types. Scalars take the message for a value of the wrong JSON type (default `<field> must be a
 * string`, `an integer`, `a number`, `a boolean`). Every type is optional until `.required()`. Bodies are not coerced:
 * `"42"` is not an integer; query strings and path parameters are (see `docs/validation.md`).
 * @example
 * const Signup = schema({
 *   email: field.string().required().email(),
 *   age: field.integer().min(13),
 *   news: field.boolean(),
 * })
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
  /** A boolean field: `true` or `false`, never `"true"` or `1` in a body. */
  boolean(type_message?: string): Field<'boolean', false> {
    return new Field(spec('boolean', type_message))
  },
  /** A nested object of the fields of `shape`; unknown keys are dropped (or refused with `.strict()`). */
  object<S extends Shape>(shape: S, type_message?: string): Schema<S, false> {
    return new Schema<S, false>(shape, base_spec(type_message))
  },
  /** An array whose every item is `item`. */
  array<I extends Type<unknown, boolean>>(item: I, type_message?: string): ArrayType<I, false> {
    return new ArrayType<I, false>({ ...base_spec(type_message), item, min_items: undefined, max_items: undefined })
  },
  /** One of the listed strings or numbers. */
  enum<const V extends readonly Literal[]>(values: V, message?: string): EnumType<V[number], false> {
    return EnumType.of<V[number]>(values, message)
  },
  /** Exactly `value`. */
  literal<const V extends Literal>(value: V, message?: string): LiteralType<V, false> {
    return LiteralType.of(value, message)
  },
  /** One of several objects, told apart by the literal at `key` (a discriminated union). */
  union<const O extends readonly Schema<Shape, boolean>[]>(
    key: string,
    options: O,
    type_message?: string,
  ): UnionType<O[number], false> {
    return UnionType.of<O[number]>(key, options, type_message)
  },
  /**
   * The type `get()` returns, resolved when first used: how a schema refers to itself (a tree, a comment thread).
   * `name` is its name in the OpenAPI document; values nested deeper than `max_depth` (default 1,000) fail with
   * `Depth`.
   */
  lazy<X extends Type<unknown, boolean>>(get: () => X, options: LazyOptions): LazyType<X, false> {
    return LazyType.of(get, options)
  },
  /** An object with any keys, each value of type `value`. */
  record<V extends Type<unknown, boolean>>(value: V, type_message?: string): RecordType<V, false> {
    return new RecordType<V, false>({ ...base_spec(type_message), value })
  },
}
