// A scalar field of a schema: its JSON type, its transforms and its rules. Immutable: every call returns a new field.
import { ValidationErrorCode } from './validation-error.js'
import {
  INVALID,
  Type,
  is_empty,
  type Check,
  type CompileOptions,
  type FieldValues,
  type JsonSchema,
  type TypeSpec,
} from './type.js'

export { is_empty, type FieldValues, type Rule, type RulePlan } from './type.js'

/** The JSON type a field accepts. */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean'

/** The TypeScript type of a field's value, by kind. */
export type KindValue<K extends FieldKind> = K extends 'string' ? string : K extends 'boolean' ? boolean : number

/** Everything a field declares. */
export interface FieldSpec extends TypeSpec {
  readonly kind: FieldKind
  readonly transforms: readonly ((value: string) => string)[]
}

const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/

/**
 * A kind's JSON test, its noun for messages, and how a query or path string is read as it (`undefined`: it cannot be).
 */
const KINDS: Record<
  FieldKind,
  { accepts: (value: unknown) => boolean; noun: string; coerce: (text: string) => unknown }
> = {
  string: { accepts: (v) => typeof v === 'string', noun: 'a string', coerce: (s) => s },
  // Beyond 2^53 a JSON integer is no longer exact, so it is refused rather than silently rounded.
  integer: {
    accepts: (v) => Number.isSafeInteger(v),
    noun: 'an integer',
    coerce: (s) => (INTEGER_TEXT.test(s) ? Number(s) : undefined),
  },
  number: {
    accepts: (v) => Number.isFinite(v),
    noun: 'a number',
    coerce: (s) => (NUMBER_TEXT.test(s) ? Number(s) : undefined),
  },
  boolean: {
    accepts: (v) => typeof v === 'boolean',
    noun: 'a boolean',
    coerce: (s) => (s === 'true' ? true : s === 'false' ? false : undefined),
  },
}

declare const KIND: unique symbol

/** @internal What compiled object code needs to check a scalar field inline (`object-code.ts`). */
export interface ScalarPlan {
  readonly kind: FieldKind
  readonly type_message: string
  /**
   * How a query or path string is read as the kind; `undefined` when the part is not coerced or the kind is a string.
   */
  readonly coerce: ((text: string) => unknown) | undefined
  readonly transforms: readonly ((value: string) => string)[]
}

/**
 * A field of kind `K`; `R` records whether it is required, so `schema()` can type the value it returns. Build one with
 * `field.string()`, `field.integer()`, `field.number()` or `field.boolean()`.
 */
export class Field<K extends FieldKind, R extends boolean> extends Type<KindValue<K>, R> {
  declare readonly '~presence': { readonly required: Field<K, true>; readonly optional: Field<K, false> }
  declare readonly [KIND]: K
  /** The declaration, read once by `schema()`. */
  declare readonly spec: FieldSpec

  /** Prefer the `field.*` builders; this is what they and the chain methods call. */
  constructor(spec: FieldSpec) {
    super(spec)
  }

  /**
   * Fails with `Custom` when this field and `other` are both non-empty and differ (after transforms).
   * @example
   * field.string().required('confirm is required').equals('password', 'passwords do not match')
   */
  equals(other: string, message?: string): this {
    return this.with_rule<this>({
      code: ValidationErrorCode.Custom,
      message,
      default_message: (name) => `${name} must match ${other}`,
      test: (value: unknown, values: FieldValues) =>
        is_empty(value) || is_empty(values[other]) || value === values[other],
      references: other,
      reads_values: true,
    })
  }

  /** @internal The plan of this field's check under the name `name`, for object code that inlines it. */
  scalar(name: string, options: CompileOptions): ScalarPlan {
    const { kind, transforms } = this.spec
    const { noun, coerce } = KINDS[kind]
    return {
      kind,
      type_message: this.type_message(name, noun),
      coerce: options.coerce && kind !== 'string' ? coerce : undefined,
      transforms,
    }
  }

  protected override get empty_string_is_missing(): boolean {
    return true
  }

  protected override get blank_is_missing(): boolean {
    return this.spec.kind !== 'string'
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    const { accepts, noun, coerce } = KINDS[this.spec.kind]
    const message = this.type_message(name, noun)
    const transforms = this.spec.transforms
    const read = options.coerce && this.spec.kind !== 'string'
    return (raw, at, errors) => {
      let value = read && typeof raw === 'string' ? coerce(raw) : raw
      if (!accepts(value)) {
        errors.push({ field: at, code: ValidationErrorCode.Type, message })
        return INVALID
      }
      for (const transform of transforms) value = transform(value as string)
      return value
    }
  }

  protected value_schema(): JsonSchema {
    return { type: this.spec.kind }
  }
}
