// Objects: a shape of fields declared once, compiled into one function, used to validate each value into a typed
// result.
import { ERR_VALIDATION_UNKNOWN_FIELD } from './errors.js'
import { object_code, type Refuse } from './object-code.js'
import { ValidationErrorCode, type ValidationError } from './validation-error.js'
import {
  INVALID,
  MAX_ERRORS,
  Type,
  base_spec,
  child_path,
  first_failure,
  type Check,
  type CompileOptions,
  type JsonSchema,
  type RulePlan,
  type TypeSpec,
} from './type.js'

/** The fields of an object, by name. */
export type Shape = Readonly<Record<string, Type<unknown, boolean>>>

type ValueOf<F> = F extends Type<infer T, boolean> ? T : never
type RequiredKeys<S extends Shape> = { [N in keyof S]: S[N] extends Type<unknown, true> ? N : never }[keyof S]
type Flatten<T> = { [N in keyof T]: T[N] }

/**
 * The value an object's `validate` returns on success: required fields always present, optional ones possibly absent.
 */
export type Output<S extends Shape> = Flatten<
  { [N in RequiredKeys<S>]: ValueOf<S[N]> } & { [N in Exclude<keyof S, RequiredKeys<S>>]?: ValueOf<S[N]> }
>

/**
 * The value type of a schema (an fw type or any Standard Schema).
 * @example
 * type RegisterBody = Infer<typeof RegisterBody> // { email: string; password: string; confirm: string }
 */
export type Infer<T> =
  T extends Type<infer O, boolean>
    ? O
    : T extends { readonly '~standard': { readonly types?: infer X } }
      ? NonNullable<X> extends { readonly output: infer O }
        ? O
        : unknown
      : never

/** The error for a body that is not a JSON object (an array, `null`, a string, a number, or no body at all). */
export const NOT_AN_OBJECT: ValidationError = Object.freeze({
  field: '',
  code: ValidationErrorCode.Type,
  message: 'Expected JSON object',
})

/** What an object declares. */
export interface ObjectSpec extends TypeSpec {
  readonly shape: Shape
  readonly unknown: 'strip' | 'refuse'
  readonly unknown_message: string | undefined
}

/** A field compiled for the object: its key, its check and its rules. */
interface Member {
  readonly key: string
  readonly check: Check
  readonly rules: readonly RulePlan[]
  /** `false` for a member named `__proto__`, which must be defined rather than assigned. */
  readonly plain: boolean
  /** The key as a path segment: its `~` and `/` written `~0` and `~1` (`child_path`). */
  readonly segment: string
}

/**
 * An object type. `validate` reports every failing field (in shape order; nested ones as `items/2/qty`), each with its
 * first failing rule. Keys the shape does not declare are left out of the value (or refused by `.strict()`); only own
 * properties of the input are read, so `__proto__` and `constructor` keys never reach the value's prototype.
 */
export class Schema<S extends Shape, R extends boolean = true> extends Type<Output<S>, R> {
  declare readonly '~presence': { readonly required: Schema<S, true>; readonly optional: Schema<S, false> }
  declare readonly spec: ObjectSpec

  /**
   * Prefer `schema()` and `field.object()`; throws `FW_ERR_VALIDATION_UNKNOWN_FIELD` when an `equals` names an
   * undeclared field.
   */
  constructor(shape: S | ObjectSpec, spec?: TypeSpec) {
    const full: ObjectSpec =
      spec === undefined
        ? (shape as ObjectSpec)
        : { ...spec, shape: shape as S, unknown: 'strip', unknown_message: undefined }
    super(full)
    for (const [name, f] of Object.entries(full.shape)) {
      for (const rule of f.spec.rules) {
        if (rule.references !== undefined && !Object.hasOwn(full.shape, rule.references))
          throw ERR_VALIDATION_UNKNOWN_FIELD(name, rule.references)
      }
    }
  }

  /** The declared fields. */
  get shape(): S {
    return this.spec.shape as S
  }

  /** Refuses keys the shape does not declare, each with `Unknown` and `message` (default `<key> is not allowed`). */
  strict(message?: string): this {
    return this.derive({ unknown: 'refuse', unknown_message: message } as Partial<ObjectSpec>)
  }

  /** @internal The whole-value check, where a value that is not an object is `NOT_AN_OBJECT` (field `''`). */
  override root(options: CompileOptions): Check {
    const check = this.compile('', options)
    return (raw, at, errors) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        errors.push(at === '' ? NOT_AN_OBJECT : { ...NOT_AN_OBJECT, field: at })
        return INVALID
      }
      return check(raw, at, errors)
    }
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    const declared = Object.entries(this.spec.shape).map(([key, type]) => ({ key, type }))
    const slots = declared.map(({ key, type }) => type.slot(key, options))
    const members: Member[] = declared.map(({ key }, i) => ({
      key,
      plain: key !== '__proto__',
      segment: child_path('', key),
      ...slots[i]!,
    }))
    const type_message = this.type_message(name, 'an object')
    const refuse =
      this.spec.unknown === 'refuse'
        ? unknown_keys(new Set(members.map((m) => m.key)), this.spec.unknown_message)
        : undefined
    const code = object_code(declared, slots, options, type_message, refuse)
    if (code !== undefined) return code
    return (raw, at, errors) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        errors.push({ field: at, code: ValidationErrorCode.Type, message: type_message })
        return INVALID
      }
      return validate_members(members, raw as Record<string, unknown>, at, errors, refuse)
    }
  }

  protected value_schema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {}
    const required: string[] = []
    for (const [key, f] of Object.entries(this.spec.shape)) {
      Object.defineProperty(properties, key, { value: f.json_schema(), enumerable: true })
      if (f.spec.required && !f.spec.has_default) required.push(key)
    }
    const out: JsonSchema = { type: 'object', properties }
    if (required.length > 0) out['required'] = required
    if (this.spec.unknown === 'refuse') out['additionalProperties'] = false
    return out
  }
}

function unknown_keys(known: ReadonlySet<string>, message: string | undefined): Refuse {
  return (obj, at, errors) => {
    for (const key of Object.keys(obj)) {
      // Each unknown key is an error: bounded like an array's, so a body of many keys costs a bounded answer.
      if (errors.length >= MAX_ERRORS) return
      if (!known.has(key))
        errors.push({
          field: child_path(at, key),
          code: ValidationErrorCode.Unknown,
          message: message ?? `${key} is not allowed`,
        })
    }
  }
}

/**
 * Checks every member (types, nested values), then each valid member's rules with its siblings' values at hand, so a
 * rule such as `equals` sees later fields too. Errors stay in shape order: a member has either its check's errors or
 * one rule's.
 */
function validate_members(
  members: readonly Member[],
  obj: Record<string, unknown>,
  at: string,
  errors: ValidationError[],
  refuse: Refuse | undefined,
): unknown {
  const start = errors.length
  const n = members.length
  const got: unknown[] = new Array(n)
  const marks: number[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const m = members[i]!
    marks[i] = errors.length
    got[i] = m.check(
      Object.hasOwn(obj, m.key) ? obj[m.key] : undefined,
      at === '' ? m.segment : `${at}/${m.segment}`,
      errors,
    )
  }
  let late: (ValidationError | undefined)[] | undefined
  let values: Record<string, unknown> | undefined
  for (let i = 0; i < n; i++) {
    const m = members[i]!
    const end = i + 1 < n ? marks[i + 1]! : errors.length
    if (m.rules.length === 0 || end > marks[i]!) continue
    // Rules see `undefined` for a sibling that is missing or invalid; the record is built only for members with rules.
    values ??= sibling_values(members, got)
    const error = first_failure(m.rules, got[i], values, child_path(at, m.key))
    if (error !== undefined) (late ??= [])[i] = error
  }
  if (late !== undefined) merge_in_order(errors, start, marks, late)
  refuse?.(obj, at, errors)
  if (errors.length > start) return INVALID
  const out: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) {
    const v = got[i]
    if (v === undefined) continue
    const m = members[i]!
    // defineProperty keeps a member named `__proto__` as data instead of changing the prototype.
    if (m.plain) out[m.key] = v
    else Object.defineProperty(out, m.key, { value: v, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function sibling_values(members: readonly Member[], got: readonly unknown[]): Record<string, unknown> {
  const values: Record<string, unknown> = Object.create(null)
  members.forEach((m, i) => (values[m.key] = got[i] === INVALID ? undefined : got[i]))
  return values
}

/** Inserts each member's rule error after the check errors of the members before it. */
function merge_in_order(
  errors: ValidationError[],
  start: number,
  marks: readonly number[],
  late: readonly (ValidationError | undefined)[],
): void {
  const checked = errors.splice(start)
  for (let i = 0; i < marks.length; i++) {
    const end = i + 1 < marks.length ? marks[i + 1]! : start + checked.length
    for (let j = marks[i]!; j < end; j++) errors.push(checked[j - start]!)
    const e = late[i]
    if (e !== undefined) errors.push(e)
  }
}

/**
 * Declares an object schema once, at startup. The value type is inferred from the fields.
 * @example
 * const LoginBody = schema({
 *   email: field.string().required('email is required').email('invalid email format'),
 *   password: field.string().required('password is required').min_length(8),
 * })
 * const result = LoginBody.validate(req.json().raw)
 * if (!result.ok) return void res.status(400).json(validation_body(result.errors))
 * result.value.email // string
 */
export function schema<S extends Shape>(shape: S): Schema<S> {
  return new Schema<S, true>(shape, { ...base_spec(undefined), required: true })
}
