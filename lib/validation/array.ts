// Arrays: every item checked by the item type, with bounds on the count; iterative, so a huge array costs no stack.
import { ERR_VALIDATION_BAD_LIMIT } from './errors.js'
import { count_limit } from './limits.js'
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

type ItemOf<I> = I extends Type<infer T, boolean> ? T : never

/** What an array declares. */
export interface ArraySpec extends TypeSpec {
  readonly item: Type<unknown, boolean>
  readonly min_items: { readonly n: number; readonly message: string | undefined } | undefined
  readonly max_items: { readonly n: number; readonly message: string | undefined } | undefined
}

/**
 * An array of `item`. Errors name the item (`items/2/qty`); at most 100 are collected. In a query string a single value
 * is an array of one, and a repeated key (`?tag=a&tag=b`) an array of each.
 * @example
 * field
 *   .array(field.object({ sku: field.string().required(), qty: field.integer().required().min(1) }))
 *   .required()
 *   .max_items(100)
 */
export class ArrayType<I extends Type<unknown, boolean>, R extends boolean> extends Type<ItemOf<I>[], R> {
  declare readonly '~presence': { readonly required: ArrayType<I, true>; readonly optional: ArrayType<I, false> }
  declare readonly spec: ArraySpec

  /** Prefer the `field.*` builders. */
  constructor(spec: ArraySpec) {
    super(spec)
  }

  /** Fails with `MinLength` below `n` items (default message `<field> must have at least <n> items`). */
  min_items(n: number, message?: string): this {
    this.#bounds({ n: count_limit(`min_items(${n})`, n), message }, this.spec.max_items, `min_items(${n})`)
    return this.derive({ min_items: { n, message } } as Partial<ArraySpec>)
  }

  /** Fails with `MaxLength` above `n` items (default message `<field> must have at most <n> items`). */
  max_items(n: number, message?: string): this {
    this.#bounds(this.spec.min_items, { n: count_limit(`max_items(${n})`, n), message }, `max_items(${n})`)
    return this.derive({ max_items: { n, message } } as Partial<ArraySpec>)
  }

  #bounds(min: ArraySpec['min_items'], max: ArraySpec['max_items'], call: string): void {
    if (min !== undefined && max !== undefined && min.n > max.n)
      throw ERR_VALIDATION_BAD_LIMIT(call, 'min_items must not exceed max_items')
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    const item = this.spec.item.compile(`${name} item`, options)
    // A `null` item is refused with `Required` unless its type takes it (`null_item_refused`).
    const required_message = required_message_of(this.spec.item.spec, `${name} item`)
    const null_refused = null_item_refused(this.spec.item.spec)
    const type_message = this.type_message(name, 'an array')
    const { min_items: min, max_items: max } = this.spec
    const min_message = min?.message ?? `${name} must have at least ${min?.n} items`
    const max_message = max?.message ?? `${name} must have at most ${max?.n} items`
    const wrap = options.coerce
    const path = item_paths()
    return (raw, at, errors) => {
      const list = Array.isArray(raw) ? raw : wrap && typeof raw === 'string' ? [raw] : undefined
      if (list === undefined) return fail(errors, at, ValidationErrorCode.Type, type_message)
      if (min !== undefined && list.length < min.n) return fail(errors, at, ValidationErrorCode.MinLength, min_message)
      if (max !== undefined && list.length > max.n) return fail(errors, at, ValidationErrorCode.MaxLength, max_message)
      const start = errors.length
      const out: unknown[] = new Array(list.length)
      for (let i = 0; i < list.length && errors.length < MAX_ERRORS; i++) {
        const item_at = path(at, i)
        const given = list[i]
        const v =
          given === null && null_refused
            ? fail(errors, item_at, ValidationErrorCode.Required, required_message)
            : item(given, item_at, errors)
        if (v === undefined) fail(errors, item_at, ValidationErrorCode.Required, required_message)
        out[i] = v
      }
      return errors.length > start ? INVALID : out
    }
  }

  protected value_schema(): JsonSchema {
    const out: JsonSchema = { type: 'array', items: this.spec.item.json_schema() }
    if (this.spec.min_items !== undefined) out['minItems'] = this.spec.min_items.n
    if (this.spec.max_items !== undefined) out['maxItems'] = this.spec.max_items.n
    return out
  }
}

/** How many item paths an array's check keeps (`items/0` to `items/63`). */
const KEPT_PATHS = 64

/**
 * The path of item `i` under `at` (`items/2`), for one array's check. Every item's check is handed its path, yet almost
 * all are valid and never use it: a path built per item (two strings, about 48 B) cost a 3-item body more than its
 * items' values. The first parent path the check meets keeps its first item paths; an array at a varying path (inside
 * another array) builds them as before.
 */
function item_paths(): (at: string, i: number) => string {
  let kept_at: string | undefined
  const kept: string[] = []
  return (at, i) => {
    kept_at ??= at
    if (at !== kept_at || i >= KEPT_PATHS) return child_path(at, i)
    return (kept[i] ??= child_path(at, i))
  }
}
