// The base of every fw schema type: presence (required, optional, nullable, default), description, refinements, and
// the compilation of a declaration into plain functions, once, before any value is validated.
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { ValidationErrorCode, type ValidationError, type ValidationResult } from './validation-error.js'

/**
 * The normalised values of the object being validated (`undefined` where missing or invalid), for rules that compare
 * fields.
 */
export type FieldValues = Readonly<Record<string, unknown>>

/**
 * A rule as declared: its code, its test, its message or the default one built from the field name, and its JSON
 * Schema.
 */
export interface Rule {
  readonly code: ValidationErrorCode
  readonly message: string | undefined
  readonly default_message: (field: string) => string
  /** Called with a value of the type; typed `never` so rules of every type fit one list. */
  readonly test: (value: never, values: FieldValues) => boolean
  /** The sibling field the rule reads, which `schema()` checks is declared. */
  readonly references: string | undefined
  /** JSON Schema keywords that say the same as the rule (`minLength`, `format`...), merged into the type's schema. */
  readonly keywords?: Readonly<Record<string, unknown>>
  /** Whether the test reads the sibling values (`equals`, `check`), so it runs once every sibling is checked. */
  readonly reads_values?: boolean
}

/** A rule with its message settled, ready to run. */
export interface RulePlan {
  readonly code: ValidationErrorCode
  readonly message: string
  readonly test: (value: never, values: FieldValues) => boolean
  readonly references: string | undefined
  readonly reads_values: boolean
}

/** What every type declares besides its own kind. */
export interface TypeSpec {
  readonly required: boolean
  readonly required_message: string | undefined
  readonly type_message: string | undefined
  readonly nullable: boolean
  readonly has_default: boolean
  readonly default_value: unknown
  readonly description: string | undefined
  readonly rules: readonly Rule[]
}

/** The spec of a new, optional type with no rules. */
export function base_spec(type_message: string | undefined): TypeSpec {
  return {
    required: false,
    required_message: undefined,
    type_message,
    nullable: false,
    has_default: false,
    default_value: undefined,
    description: undefined,
    rules: [],
  }
}

/** Returned by a compiled check for a value that failed (its errors are already pushed). */
export const INVALID: unique symbol = Symbol('fw.invalid')

/** A compiled check of one value at path `at`: the normalised value, or `INVALID` after pushing errors. */
export type Check = (raw: unknown, at: string, errors: ValidationError[]) => unknown

/**
 * How a type is compiled: `coerce` reads strings as numbers and booleans and single values as arrays (query, params).
 */
export interface CompileOptions {
  readonly coerce: boolean
}

/** A type compiled under its field name: its check (presence included) and its rules, which run with sibling values. */
export interface Slot {
  readonly check: Check
  readonly rules: readonly RulePlan[]
}

/** At most this many errors are collected, so a huge invalid array costs a bounded answer. */
export const MAX_ERRORS = 100

/** A type's class at either presence, as its type-only `~presence` member names it. */
export interface Presences {
  readonly required: unknown
  readonly optional: unknown
}

/**
 * The same type `X` with presence `R`, so `required()` and `default()` keep the chain of the type's own class: each
 * class names itself at both presences in `~presence`, so this module needs to know none of them.
 */
export type WithPresence<X, R extends boolean> = X extends { readonly '~presence': infer P extends Presences }
  ? R extends true
    ? P['required']
    : P['optional']
  : never

declare const OUT: unique symbol
declare const REQUIRED: unique symbol

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>

/** Whether a value counts as not given: missing, `null`, or the empty string. */
export function is_empty(value: unknown): boolean {
  return value === undefined || value === null || value === ''
}

/**
 * The child path of `key` under `at` (`items/2/qty`), a JSON Pointer's segments without its leading `/`: a key's `~`
 * and `/` are written `~0` and `~1`, so the key `a/b` of a record is `a~1b`, never the nested `a/b`.
 */
export function child_path(at: string, key: string | number): string {
  const k = typeof key === 'string' && (key.includes('/') || key.includes('~')) ? escape_segment(key) : key
  return at === '' ? String(k) : `${at}/${k}`
}

const escape_segment = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1')

/** The keys of a path `child_path` built (`~1` and `~0` read back, in that order, as RFC 6901 says). */
function path_keys(path: string): string[] {
  if (path === '') return []
  return path.split('/').map((s) => (s.includes('~') ? s.replaceAll('~1', '/').replaceAll('~0', '~') : s))
}

/**
 * A schema type whose valid values have type `T`; `R` records whether it is always present in its parent's value.
 * Immutable: every chain call returns a new type. Also a Standard Schema (`~standard`), so other libraries accept it.
 */
export abstract class Type<T, R extends boolean> implements StandardSchemaV1<unknown, T> {
  declare readonly [OUT]: T
  declare readonly [REQUIRED]: R
  /** Type-level only (never set): this class at either presence, which `WithPresence` reads. */
  declare readonly '~presence': { readonly required: Type<T, true>; readonly optional: Type<T, false> }
  /** The declaration. */
  readonly spec: TypeSpec
  #standard: Check | undefined
  readonly #roots = new Map<boolean, Check>()

  /** Prefer the `field.*` builders. */
  constructor(spec: TypeSpec) {
    this.spec = spec
  }

  /** Missing and `null` fail with `Required` and `message` (default `<field> is required`); for strings `''` too. */
  required<X>(this: X & Type<T, R>, message?: string): WithPresence<X, true> {
    return this.derive({ required: true, required_message: message })
  }

  /** Undoes `required()`: a missing value is left out of the result (a `null` one is refused unless `nullable()`). */
  optional<X>(this: X & Type<T, R>): WithPresence<X, false> {
    return this.derive({ required: false })
  }

  /**
   * Accepts `null` as a value of its own. Otherwise `null` fails with `Required` when the type is required, takes the
   * default when it has one, and fails as a value of the wrong type when it is optional.
   */
  nullable(): Type<T | null, R> {
    return this.derive({ nullable: true })
  }

  /** The value used when the field is missing (or `null`, unless nullable); the field is then always present. */
  default<X>(this: X & Type<T, R>, value: T): WithPresence<X, true> {
    return this.derive({ has_default: true, default_value: value })
  }

  /** A description for the generated JSON Schema and OpenAPI document. */
  describe(description: string): this {
    return this.derive({ description })
  }

  /**
   * Fails with `Custom` and `message` when `test` returns false; `values` holds the parent object's other fields. A
   * test that throws fails the request with a 500 (logged), never the process.
   */
  check(test: (value: T, values: FieldValues) => boolean, message: string): this {
    return this.with_rule({
      code: ValidationErrorCode.Custom,
      message,
      default_message: () => message,
      test,
      references: undefined,
      reads_values: true,
    })
  }

  /** The type message for a field named `name`. */
  protected type_message(name: string, noun: string): string {
    return this.spec.type_message ?? `${name} must be ${noun}`
  }

  /** Compiles the check of a present value (not missing, not null): the type's own work. */
  protected abstract compile_value(name: string, options: CompileOptions): Check

  /** The JSON Schema of the type's own values, before nullable, default and description. */
  protected abstract value_schema(): JsonSchema

  /** Whether `''` counts as missing for a required field (strings only). */
  protected get empty_string_is_missing(): boolean {
    return false
  }

  /**
   * Whether, in a coerced part (query, params, headers), `''` counts as missing: an empty `?page=` names no number,
   * boolean or enum value, so it is treated as absent (default, left out, or `Required`) rather than as a wrong type.
   */
  protected get blank_is_missing(): boolean {
    return false
  }

  /** @internal Compiles the type under its field name: presence first, then the value check, then its rules. */
  slot(name: string, options: CompileOptions): Slot {
    const { required, nullable, has_default, default_value } = this.spec
    const required_message = required_message_of(this.spec, name)
    const value = this.compile_value(name, options)
    const empty = this.empty_string_is_missing
    const fill = default_of(default_value)
    const null_missing = null_is_missing(this.spec)
    const check: Check = (raw, at, errors) => {
      if (raw === undefined || (raw === null && null_missing)) {
        if (has_default) return fill()
        if (!required) return undefined
        errors.push({ field: at, code: ValidationErrorCode.Required, message: required_message })
        return INVALID
      }
      if (raw === null && nullable) return null
      const v = value(raw, at, errors)
      if (empty && v === '' && required) {
        errors.push({ field: at, code: ValidationErrorCode.Required, message: required_message })
        return INVALID
      }
      return v
    }
    const rules = rule_plans(this.spec, name)
    // Only coerced parts pay for the blank test; a body's check is the one above.
    if (!(options.coerce && this.blank_is_missing)) return { check, rules }
    return { check: (raw, at, errors) => check(raw === '' ? undefined : raw, at, errors), rules }
  }

  /**
   * Validates a whole value (for a body: the parsed JSON, `undefined` when there is none); `coerce` reads query-string
   * values. A `schema()` reports a value that is not an object with `NOT_AN_OBJECT`.
   */
  validate(input: unknown, options: CompileOptions = { coerce: false }): ValidationResult<T> {
    let check = this.#roots.get(options.coerce)
    if (check === undefined) this.#roots.set(options.coerce, (check = this.root(options, 'value')))
    return run_check(check, input)
  }

  /** @internal The check of a whole value named `name` (`value`, or a route's part). */
  root(options: CompileOptions, name: string): Check {
    return this.compile(name, options)
  }

  /** @internal Compiles the type with its rules into one check (array items, record values, whole bodies). */
  compile(name: string, options: CompileOptions): Check {
    const { check, rules } = this.slot(name, options)
    if (rules.length === 0) return check
    const none: FieldValues = Object.freeze({})
    return (raw, at, errors) => {
      const v = check(raw, at, errors)
      if (v === INVALID) return v
      const error = first_failure(rules, v, none, at)
      if (error === undefined) return v
      errors.push(error)
      return INVALID
    }
  }

  /** The JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of the values this type accepts. */
  json_schema(): JsonSchema {
    const own: JsonSchema = { ...this.value_schema() }
    for (const rule of this.spec.rules) Object.assign(own, rule.keywords)
    // A required string refuses '' (`Required`), which JSON Schema's `required` (presence only) does not say.
    if (
      this.spec.required &&
      this.empty_string_is_missing &&
      own['type'] === 'string' &&
      !(Number(own['minLength']) >= 1)
    )
      own['minLength'] = 1
    const out: JsonSchema = this.spec.nullable ? { anyOf: [own, { type: 'null' }] } : own
    if (this.spec.description !== undefined) out['description'] = this.spec.description
    if (this.spec.has_default) out['default'] = this.spec.default_value
    return out
  }

  /**
   * The Standard Schema interface: fw types validate (strictly, as a JSON body) inside any library that accepts one.
   */
  get '~standard'(): StandardSchemaV1.Props<unknown, T> {
    return {
      version: 1,
      vendor: 'fw',
      validate: (value: unknown): StandardSchemaV1.Result<T> => {
        this.#standard ??= this.compile('value', { coerce: false })
        const result = run_check<T>(this.#standard, value)
        if (result.ok) return { value: result.value }
        return {
          issues: result.errors.map((e) => ({ message: e.message, path: path_keys(e.field) })),
        }
      },
    }
  }

  /** A copy of this type of the same class, with `patch` applied. */
  protected derive<D>(patch: object): D {
    const Same = this.constructor as new (spec: TypeSpec) => D
    return new Same({ ...this.spec, ...patch })
  }

  /** A copy of this type with `rule` appended. */
  protected with_rule<D>(rule: Rule): D {
    return this.derive<D>({ rules: [...this.spec.rules, rule] })
  }
}

/**
 * What fills a missing value declared with `default(value)`: the value itself when it is a primitive, else a fresh copy
 * each time, so that a handler changing the array or object it was given changes no later request's default.
 */
export function default_of(value: unknown): () => unknown {
  if (typeof value !== 'object' || value === null) return () => value
  return () => structuredClone(value)
}

/**
 * Whether a `null` counts as a missing value for a type: `null` is a value, not an absent field, and only a nullable
 * type takes it. A required type answers `Required` and a defaulted one takes its default, as for a missing field; an
 * optional one leaves it to its value check, which refuses it as any value of the wrong type (its JSON Schema does not
 * admit `null` either). `Type`'s check and the compiled object code both decide by it.
 */
export function null_is_missing(spec: Pick<TypeSpec, 'nullable' | 'required' | 'has_default'>): boolean {
  return !spec.nullable && (spec.required || spec.has_default)
}

/**
 * Whether a `null` item of an array, or value of a record, of a type is refused with `Required`: an item is never
 * missing, so it is refused unless the type is nullable or has a default, as the JSON Schema's `items` and
 * `additionalProperties` refuse it, instead of reaching the handler as `undefined` or dropping its key.
 */
export function null_item_refused(spec: Pick<TypeSpec, 'nullable' | 'has_default'>): boolean {
  return !spec.nullable && !spec.has_default
}

/** The message of a missing required value of a type named `name`. */
export function required_message_of(spec: TypeSpec, name: string): string {
  return spec.required_message ?? `${name} is required`
}

/** The rules of a type named `name`, with their messages settled. */
export function rule_plans(spec: TypeSpec, name: string): RulePlan[] {
  return spec.rules.map((rule) => ({
    code: rule.code,
    message: rule.message ?? rule.default_message(name),
    test: rule.test,
    references: rule.references,
    reads_values: rule.reads_values === true,
  }))
}

/** The first failing rule of a value; an empty value runs none. */
export function first_failure(
  rules: readonly RulePlan[],
  value: unknown,
  values: FieldValues,
  at: string,
): ValidationError | undefined {
  if (is_empty(value)) return undefined
  for (const rule of rules) {
    if (!rule.test(value as never, values)) return { field: at, code: rule.code, message: rule.message }
  }
  return undefined
}

/** Runs a compiled check on a whole value at path `at`. */
export function run_check<T>(check: Check, value: unknown, at = ''): ValidationResult<T> {
  const errors: ValidationError[] = []
  const v = check(value, at, errors)
  if (v === INVALID || errors.length > 0) return { ok: false, errors: capped(errors) }
  return { ok: true, value: v as T }
}

/**
 * `errors` cut to `MAX_ERRORS`. The loops over arrays, records and unknown keys stop once the cap is reached, but an
 * item or object already under way finishes, so a list of objects failing several fields each may pass it by a few;
 * a schema declaring more than 100 fields may too.
 */
export function capped(errors: ValidationError[]): ValidationError[] {
  if (errors.length > MAX_ERRORS) errors.length = MAX_ERRORS
  return errors
}

/** Pushes one error and returns `INVALID`, the outcome of a failed check. */
export function fail(
  errors: ValidationError[],
  field: string,
  code: ValidationErrorCode,
  message: string,
): typeof INVALID {
  errors.push({ field, code, message })
  return INVALID
}
