// A schema: fields declared once at startup, compiled, then used to validate each request body into a typed value.
import { ERR_VALIDATION_UNKNOWN_FIELD } from './errors.js'
import { is_empty, type Field, type FieldKind, type FieldPlan, type FieldValues, type KindValue } from './field.js'
import { ValidationErrorCode, type ValidationError, type ValidationResult } from './validation-error.js'

/** The fields of a schema, by name. */
export type Shape = Readonly<Record<string, Field<FieldKind, boolean>>>

type ValueOf<F> = F extends Field<infer K, boolean> ? KindValue<K> : never
type RequiredKeys<S extends Shape> = { [N in keyof S]: S[N] extends Field<FieldKind, true> ? N : never }[keyof S]
type Flatten<T> = { [N in keyof T]: T[N] }

/** The value a schema's `validate` returns on success: required fields always present, optional ones possibly absent. */
export type Output<S extends Shape> = Flatten<
  { [N in RequiredKeys<S>]: ValueOf<S[N]> } & { [N in Exclude<keyof S, RequiredKeys<S>>]?: ValueOf<S[N]> }
>

/**
 * The value type of a schema.
 * @example
 * type RegisterBody = Infer<typeof RegisterBody> // { email: string; password: string; confirm: string }
 */
export type Infer<T> = T extends Schema<infer S> ? Output<S> : never

/** The error for a body that is not a JSON object (an array, `null`, a string, a number, or no body at all). */
export const NOT_AN_OBJECT: ValidationError = Object.freeze({ field: '', code: ValidationErrorCode.Type, message: 'Expected JSON object' })

const NOT_AN_OBJECT_RESULT = Object.freeze({ ok: false, errors: Object.freeze([NOT_AN_OBJECT]) } as const)

type Normalised = { readonly error: ValidationError } | { readonly value: unknown }

/**
 * A compiled schema. `validate` reports every failing field (in schema order), each with its first failing rule.
 * Keys the schema does not declare are ignored and left out of the value; only own properties of the body are read.
 */
export class Schema<S extends Shape> {
  readonly #plans: readonly FieldPlan[]

  /** Compiles `shape`; throws `FW_ERR_VALIDATION_UNKNOWN_FIELD` when an `equals` names an undeclared field. */
  constructor(shape: S) {
    this.#plans = Object.entries(shape).map(([name, f]) => f.plan(name))
    for (const plan of this.#plans) {
      for (const rule of plan.rules) {
        if (rule.references !== undefined && !Object.hasOwn(shape, rule.references)) {
          throw ERR_VALIDATION_UNKNOWN_FIELD(plan.name, rule.references)
        }
      }
    }
  }

  /** Validates a parsed JSON body (anything: an object, an array, `null`, `undefined` for no body). */
  validate(input: unknown): ValidationResult<Output<S>> {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return NOT_AN_OBJECT_RESULT
    const body = input as Record<string, unknown>
    const normalised = this.#plans.map((plan) => normalise(plan, Object.hasOwn(body, plan.name) ? body[plan.name] : undefined))
    const values: Record<string, unknown> = Object.create(null)
    normalised.forEach((n, i) => {
      if ('value' in n) values[this.#plans[i]!.name] = n.value
    })
    const errors: ValidationError[] = []
    const entries: [string, unknown][] = []
    this.#plans.forEach((plan, i) => {
      const n = normalised[i]!
      if ('error' in n) return void errors.push(n.error)
      const error = first_failure(plan, n.value, values)
      if (error !== undefined) errors.push(error)
      else if (n.value !== undefined) entries.push([plan.name, n.value])
    })
    if (errors.length > 0) return { ok: false, errors }
    return { ok: true, value: Object.fromEntries(entries) as Output<S> }
  }
}

/** Type check, transforms, then emptiness: the steps before the field's own rules. */
function normalise(plan: FieldPlan, raw: unknown): Normalised {
  if (raw === undefined || raw === null) {
    return plan.required ? { error: failure(plan, ValidationErrorCode.Required, plan.required_message) } : { value: undefined }
  }
  if (!plan.accepts(raw)) return { error: failure(plan, ValidationErrorCode.Type, plan.type_message) }
  let value = raw
  for (const transform of plan.transforms) value = transform(value as string)
  if (value === '' && plan.required) return { error: failure(plan, ValidationErrorCode.Required, plan.required_message) }
  return { value }
}

/** The field's first failing rule; an optional field left empty runs none. */
function first_failure(plan: FieldPlan, value: unknown, values: FieldValues): ValidationError | undefined {
  if (is_empty(value)) return undefined
  for (const rule of plan.rules) {
    if (!rule.test(value as never, values)) return failure(plan, rule.code, rule.message)
  }
  return undefined
}

function failure(plan: FieldPlan, code: ValidationErrorCode, message: string): ValidationError {
  return { field: plan.name, code, message }
}

/**
 * Declares a schema once, at startup. The value type is inferred from the fields.
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
  return new Schema(shape)
}
