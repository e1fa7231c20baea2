// Enums and literals: a value that must be one of a fixed few strings, numbers or booleans.
import { ValidationErrorCode } from './validation-error.js'
import { Type, base_spec, fail, type Check, type CompileOptions, type JsonSchema, type TypeSpec } from './type.js'

/** A value an enum or a literal may name. */
export type Literal = string | number | boolean

/** What an enum declares. */
export interface ChoiceSpec extends TypeSpec {
  readonly values: readonly Literal[]
}

/** Compiles the check shared by enums and literals; in a query string, `"2"` and `"true"` name `2` and `true`. */
function choice_check(values: readonly Literal[], message: string, options: CompileOptions): Check {
  const allowed = new Set<unknown>(values)
  const by_text = new Map(values.map((v) => [String(v), v]))
  return (raw, at, errors) => {
    if (allowed.has(raw)) return raw
    if (options.coerce && typeof raw === 'string' && by_text.has(raw)) return by_text.get(raw)
    return fail(errors, at, ValidationErrorCode.Enum, message)
  }
}

/**
 * One of the listed values (`Enum`, default message `<field> must be one of a, b, c`).
 * @example
 * field.enum(['draft', 'published']).default('draft')
 */
export class EnumType<V extends Literal, R extends boolean> extends Type<V, R> {
  declare readonly '~presence': { readonly required: EnumType<V, true>; readonly optional: EnumType<V, false> }
  declare readonly spec: ChoiceSpec

  /** Prefer the `field.*` builders. */
  constructor(spec: ChoiceSpec) {
    super(spec)
  }

  /** Prefer `field.enum()`. */
  static of<V extends Literal>(values: readonly Literal[], message?: string): EnumType<V, false> {
    return new EnumType<V, false>({ ...base_spec(message), values: [...values] })
  }

  protected override get blank_is_missing(): boolean {
    return !this.spec.values.includes('')
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    return choice_check(this.spec.values, this.type_message(name, `one of ${this.spec.values.join(', ')}`), options)
  }

  protected value_schema(): JsonSchema {
    return { enum: [...this.spec.values] }
  }
}

/** Exactly one value (`Enum`, default message `<field> must be <value>`); the tag of a discriminated union. */
export class LiteralType<V extends Literal, R extends boolean> extends Type<V, R> {
  declare readonly '~presence': { readonly required: LiteralType<V, true>; readonly optional: LiteralType<V, false> }
  declare readonly spec: ChoiceSpec

  /** Prefer the `field.*` builders. */
  constructor(spec: ChoiceSpec) {
    super(spec)
  }

  /** Prefer `field.literal()`. */
  static of<V extends Literal>(value: V, message?: string): LiteralType<V, false> {
    return new LiteralType<V, false>({ ...base_spec(message), values: [value] })
  }

  /** The one value. */
  get value(): V {
    return this.spec.values[0] as V
  }

  protected override get blank_is_missing(): boolean {
    return !this.spec.values.includes('')
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    return choice_check(this.spec.values, this.type_message(name, JSON.stringify(this.value)), options)
  }

  protected value_schema(): JsonSchema {
    return { const: this.value }
  }
}
