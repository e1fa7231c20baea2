// A field of a schema: its JSON type, whether it is required, its transforms and its rules. Immutable: every call returns a new field.
import { ValidationErrorCode } from './validation-error.js'
import type { NumberField } from './number-field.js'
import type { StringField } from './string-field.js'

/** The JSON type a field accepts. */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean'

/** The TypeScript type of a field's value, by kind. */
export type KindValue<K extends FieldKind> = K extends 'string' ? string : K extends 'boolean' ? boolean : number

/** The field class of a kind, so the chain keeps offering that kind's rules (`email` on strings, `min` on numbers). */
export type FieldOf<K extends FieldKind, R extends boolean> = K extends 'string'
  ? StringField<R>
  : K extends 'integer' | 'number'
    ? NumberField<K, R>
    : Field<K, R>

/** The normalised values of every field of the body being validated (`undefined` where missing or of the wrong type). */
export type FieldValues = Readonly<Record<string, unknown>>

/** A rule as declared: its code, its test, and its message or the default one built from the field name. */
export interface Rule {
  readonly code: ValidationErrorCode
  readonly message: string | undefined
  readonly default_message: (field: string) => string
  /** Called with a value of the field's kind; typed `never` so rules of every kind fit one list. */
  readonly test: (value: never, values: FieldValues) => boolean
  /** The sibling field the rule reads, which `schema()` checks is declared. */
  readonly references: string | undefined
}

/** Everything a field declares. */
export interface FieldSpec {
  readonly kind: FieldKind
  readonly type_message: string | undefined
  readonly required: boolean
  readonly required_message: string | undefined
  readonly transforms: readonly ((value: string) => string)[]
  readonly rules: readonly Rule[]
}

/** A rule with its message settled, ready to run. */
export interface RulePlan {
  readonly code: ValidationErrorCode
  readonly message: string
  readonly test: (value: never, values: FieldValues) => boolean
  readonly references: string | undefined
}

/** A field compiled under its name by `schema()`: the messages are settled, nothing is left to decide per request. */
export interface FieldPlan {
  readonly name: string
  readonly accepts: (value: unknown) => boolean
  readonly type_message: string
  readonly required: boolean
  readonly required_message: string
  readonly transforms: readonly ((value: string) => string)[]
  readonly rules: readonly RulePlan[]
}

const KINDS: Record<FieldKind, { accepts: (value: unknown) => boolean; noun: string }> = {
  string: { accepts: (v) => typeof v === 'string', noun: 'a string' },
  // Beyond 2^53 a JSON integer is no longer exact, so it is refused rather than silently rounded.
  integer: { accepts: (v) => Number.isSafeInteger(v), noun: 'an integer' },
  number: { accepts: (v) => Number.isFinite(v), noun: 'a number' },
  boolean: { accepts: (v) => typeof v === 'boolean', noun: 'a boolean' },
}

declare const KIND: unique symbol
declare const REQUIRED: unique symbol

/** Whether a value counts as not given: missing, `null`, or the empty string. */
export function is_empty(value: unknown): boolean {
  return value === undefined || value === null || value === ''
}

/**
 * A field of kind `K`; `R` records whether it is required, so `schema()` can type the value it returns.
 * Build one with `field.string()`, `field.integer()`, `field.number()` or `field.boolean()`.
 */
export class Field<K extends FieldKind, R extends boolean> {
  declare readonly [KIND]: K
  declare readonly [REQUIRED]: R
  /** The declaration, read once by `schema()`. */
  readonly spec: FieldSpec

  /** Prefer the `field.*` builders; this is what they and the chain methods call. */
  constructor(spec: FieldSpec) {
    this.spec = spec
  }

  /** Missing, `null` and `''` fail with `Required` and `message` (default `<field> is required`). */
  required(message?: string): FieldOf<K, true> {
    return this.derive<FieldOf<K, true>>({ required: true, required_message: message })
  }

  /**
   * Fails with `Custom` when this field and `other` are both non-empty and differ (after transforms).
   * @example
   * field.string().required('confirm is required').equals('password', 'passwords do not match')
   */
  equals(other: string, message?: string): FieldOf<K, R> {
    return this.with_rule<FieldOf<K, R>>({
      code: ValidationErrorCode.Custom,
      message,
      default_message: (name) => `${name} must match ${other}`,
      test: (value: unknown, values) => is_empty(value) || is_empty(values[other]) || value === values[other],
      references: other,
    })
  }

  /** Fails with `Custom` and `message` when `test` returns false; `values` holds the body's other fields, normalised. */
  check(test: (value: KindValue<K>, values: FieldValues) => boolean, message: string): FieldOf<K, R> {
    return this.with_rule<FieldOf<K, R>>({ code: ValidationErrorCode.Custom, message, default_message: () => message, test, references: undefined })
  }

  /** Settles every message for the field named `name`. */
  plan(name: string): FieldPlan {
    const { kind, type_message, required, required_message, transforms, rules } = this.spec
    return {
      name,
      accepts: KINDS[kind].accepts,
      type_message: type_message ?? `${name} must be ${KINDS[kind].noun}`,
      required,
      required_message: required_message ?? `${name} is required`,
      transforms,
      rules: rules.map((rule) => ({
        code: rule.code,
        message: rule.message ?? rule.default_message(name),
        test: rule.test,
        references: rule.references,
      })),
    }
  }

  /** A copy of this field of the same class, with `patch` applied. */
  protected derive<T>(patch: Partial<FieldSpec>): T {
    const Same = this.constructor as new (spec: FieldSpec) => T
    return new Same({ ...this.spec, ...patch })
  }

  /** A copy of this field with `rule` appended. */
  protected with_rule<T>(rule: Rule): T {
    return this.derive<T>({ rules: [...this.spec.rules, rule] })
  }
}
