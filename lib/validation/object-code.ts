// Objects compiled to specialised code once, as Ajv does: each key read as a named property, scalar fields checked
// inline, and no error path built until a field fails. Only keys and fixed codes are written into the source, each as a
// JSON string literal; every other value (messages, defaults, tests, nested checks) is handed in as a constant.
import { Field, type FieldKind } from './field.js'
import { ValidationErrorCode, type ValidationError } from './validation-error.js'
import {
  INVALID,
  child_path,
  null_is_missing,
  required_message_of,
  rule_plans,
  type Check,
  type CompileOptions,
  type Slot,
  type Type,
} from './type.js'

/** Pushes the errors of keys a strict object does not declare. */
export type Refuse = (obj: Record<string, unknown>, at: string, errors: ValidationError[]) => void

/** An object's members as declared: their keys and types. */
export type Members = ReadonlyArray<{ readonly key: string; readonly type: Type<unknown, boolean> }>

/** A string as a JSON literal that is safe anywhere in source, U+2028 and U+2029 included. */
export function literal(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

const TESTS = {
  string: (v: string) => `typeof ${v} === "string"`,
  integer: (v: string) => `isSafeInteger(${v})`,
  number: (v: string) => `isFinite(${v})`,
  boolean: (v: string) => `typeof ${v} === "boolean"`,
} as const

/** The source of one check function, with the constants its body names (`k0`, `k1`...). */
class Source {
  readonly #constants: unknown[] = []
  readonly #lines: string[] = []

  /** The name under which `value` is visible to the code. */
  constant(value: unknown): string {
    this.#constants.push(value)
    return `k${this.#constants.length - 1}`
  }

  add(...lines: string[]): void {
    this.#lines.push(...lines)
  }

  /** An expression pushing an error at `path` (source) with `code` and `message`. */
  error(path: string, code: ValidationErrorCode, message: string): string {
    return `errors.push({ field: ${path}, code: ${literal(code)}, message: ${this.constant(message)} })`
  }

  build(): Check {
    const head = this.#constants.map((_, i) => `const k${i} = k[${i}];`).join('\n')
    const body =
      `"use strict";\nconst { hasOwn } = Object, { isSafeInteger, isFinite } = Number;\n${head}\n` +
      `return function object_check(raw, at, errors) {\n${this.#lines.join('\n')}\n}`
    // The source holds keys and codes only as literals made by `literal()`.
    return new Function('k', 'INVALID', body)(this.#constants, INVALID) as Check
  }
}

/**
 * Compiles an object's member checks, the unknown-key refusal and the building of its value into one function, or
 * `undefined` when a member's rule reads its siblings (`equals`, `check`) or code generation is off: the general path
 * (`validate_members`) handles those.
 */
export function object_code(
  members: Members,
  slots: readonly Slot[],
  options: CompileOptions,
  type_message: string,
  refuse: Refuse | undefined,
): Check | undefined {
  if (slots.some((s) => s.rules.some((r) => r.reads_values))) return undefined
  const src = new Source()
  src.add(
    'if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {',
    `  ${src.error('at', ValidationErrorCode.Type, type_message)}; return INVALID`,
    '}',
    'const start = errors.length',
  )
  members.forEach((m, i) => member(src, i, m.key, m.type, slots[i]!, options))
  if (refuse !== undefined) src.add(`${src.constant(refuse)}(raw, at, errors)`)
  src.add('if (errors.length > start) return INVALID')
  // When every member has a value, one object literal builds the value at its final size and shape (a body with no
  // optional field left out, an object of required fields only): added key by key, it grows its property store
  // several times. A key named `__proto__` is written as a computed key there, which defines it instead of setting the
  // prototype.
  if (members.length > 0) {
    const all = members.map((_, i) => `v${i} !== undefined`).join(' && ')
    const keys = members.map((m, i) => `${m.key === '__proto__' ? `[${literal(m.key)}]` : literal(m.key)}: v${i}`)
    src.add(`if (${all}) return { ${keys.join(', ')} }`)
  }
  src.add('const out = {}')
  members.forEach((m, i) => {
    // A key named `__proto__` is defined, since assigning it would change the value's prototype.
    const set =
      m.key === '__proto__'
        ? `Object.defineProperty(out, "__proto__", { value: v${i}, enumerable: true, writable: true, configurable: true })`
        : `out[${literal(m.key)}] = v${i}`
    src.add(`if (v${i} !== undefined) ${set}`)
  })
  src.add('return out')
  try {
    return src.build()
  } catch (err) {
    // Code generation is off (`--disallow-code-generation-from-strings`): the general path validates the same way.
    if (err instanceof EvalError) return undefined
    throw err
  }
}

/** The code of member `i`: read its key, check presence and value (inline for scalar fields), then its rules. */
function member(
  src: Source,
  i: number,
  key: string,
  type: Type<unknown, boolean>,
  slot: Slot,
  options: CompileOptions,
): void {
  const v = `v${i}`
  const k = literal(key)
  // The key as a path segment, its `~` and `/` written `~0` and `~1` (`child_path`), settled here rather than per call.
  const segment = literal(child_path('', key))
  const path = `(at === "" ? ${segment} : at + "/" + ${segment})`
  src.add(`let ${v} = hasOwn(raw, ${k}) ? raw[${k}] : undefined`, `const e${i} = errors.length`)
  if (type instanceof Field) scalar(src, v, path, key, type, options)
  else src.add(`${v} = ${src.constant(slot.check)}(${v}, ${path}, errors)`)
  const rules = rule_plans(type.spec, key)
  if (rules.length === 0) return
  const none = src.constant(Object.freeze({}))
  src.add(`if (errors.length === e${i} && ${v} !== undefined && ${v} !== null && ${v} !== "") {`)
  rules.forEach((r, j) => {
    src.add(
      `  ${j === 0 ? '' : 'else '}if (!${src.constant(r.test)}(${v}, ${none})) { ${src.error(path, r.code, r.message)}; ${v} = INVALID }`,
    )
  })
  src.add('}')
}

/**
 * A scalar field's presence, JSON type, coercion, transforms and required-but-empty check, as `Type.slot` compiles
 * them.
 */
function scalar(
  src: Source,
  v: string,
  path: string,
  key: string,
  field: Field<FieldKind, boolean>,
  options: CompileOptions,
): void {
  const { required, nullable, has_default, default_value } = field.spec
  const plan = field.scalar(key, options)
  const missing = has_default
    ? `${v} = ${src.constant(default_value)}`
    : required
      ? `${src.error(path, ValidationErrorCode.Required, required_message_of(field.spec, key))}; ${v} = INVALID`
      : `${v} = undefined`
  // In a coerced part an empty value (`?page=`) of a number or boolean is missing, as `Type.slot` has it.
  if (plan.coerce !== undefined) src.add(`if (${v} === "") ${v} = undefined`)
  src.add(
    `if (${v} === undefined${null_is_missing(field.spec) ? ` || ${v} === null` : ''}) { ${missing} }`,
    `else${nullable ? ` if (${v} !== null)` : ''} {`,
  )
  if (plan.coerce !== undefined) src.add(`  if (typeof ${v} === "string") ${v} = ${src.constant(plan.coerce)}(${v})`)
  src.add(
    `  if (!(${TESTS[plan.kind](v)})) { ${src.error(path, ValidationErrorCode.Type, plan.type_message)}; ${v} = INVALID }`,
  )
  const after = plan.transforms.map((t) => `${v} = ${src.constant(t)}(${v});`)
  if (required && plan.kind === 'string') {
    after.push(
      `if (${v} === "") { ${src.error(path, ValidationErrorCode.Required, required_message_of(field.spec, key))}; ${v} = INVALID }`,
    )
  }
  if (after.length > 0) src.add(`  else { ${after.join(' ')} }`)
  src.add('}')
}
