// Recursive types: a type resolved when first used, so a tree or a comment thread can refer to itself.
import { ERR_VALIDATION_BAD_LIMIT } from './errors.js'
import { count_limit } from './limits.js'
import { ValidationErrorCode } from './validation-error.js'
import { Type, base_spec, fail, type Check, type CompileOptions, type JsonSchema, type TypeSpec } from './type.js'

type OutOf<X> = X extends Type<infer T, boolean> ? T : never

/** What a lazy type declares. */
export interface LazySpec extends TypeSpec {
  readonly get: () => Type<unknown, boolean>
  /** The name of the type in the OpenAPI document (`components/schemas/<name>`). */
  readonly name: string
  readonly max_depth: number
}

/** Options of `field.lazy()`. */
export interface LazyOptions {
  /** The name of the type in the OpenAPI document, which refers to it as `#/components/schemas/<name>`. */
  readonly name: string
  /** How many lazy types deep a value may nest before it fails with `Depth` (default 1,000). */
  readonly max_depth?: number
}

/** The components met while a document is built (`with_components`): name to JSON Schema. */
let components: Map<string, JsonSchema> | undefined

/**
 * The component name of each lazy type met while a document is built, keyed both by the type its getter returns and by
 * the getter: every `field.lazy` of one type (and every copy `required()` or `describe()` makes) shares one component.
 */
let named: Map<unknown, string> | undefined

/**
 * Runs `build` (which makes JSON Schemas) and returns what it returns with the JSON Schema of every lazy type met on
 * the way, by name, each built once even when it refers to itself. `reserved` names the document's own components,
 * which no other schema may take. A lazy type whose name another schema already has gets `<name>_2`, `<name>_3`...
 */
export function with_components<T>(
  build: () => T,
  reserved: Readonly<Record<string, JsonSchema>> = {},
): { value: T; components: Record<string, JsonSchema> } {
  const outer = { components, named }
  components = new Map(Object.entries(reserved))
  named = new Map()
  try {
    const value = build()
    return { value, components: Object.fromEntries(components) }
  } finally {
    ;({ components, named } = outer)
  }
}

/** @internal The components of the document being built (`with_components`), or `undefined` outside of one. */
export function document_components(): Map<string, JsonSchema> | undefined {
  return components
}

/**
 * How many lazy levels the value being validated is in; validation is synchronous, so one counter serves every check.
 */
let depth = 0

/** What V8 says when the stack runs out. */
const STACK_OVERFLOW = 'Maximum call stack size exceeded'

/**
 * How much stack (in 8-byte slots: 128 KiB) must be left where a lazy level catches a stack overflow for it to be one
 * of a refinement's own (an endless recursion of its own, thrown with the stack still deep) rather than the nesting's.
 * The level that catches the nesting's overflow sits at most one level above the throw, where next to nothing is left
 * (measured: under 1 KiB), with room to spare for a throw V8 makes with some KiB still free.
 */
const PROBE_SLOTS = 16384

/** The arguments of the probe call, made on the first stack overflow. */
let probe_args: number[] | undefined

/** The errors already judged not the nesting's, so that the levels above re-throw them unprobed. */
const not_ours = new WeakSet<object>()

/**
 * Whether `err`, caught by a lazy level, is the stack running out under it: V8's own `RangeError`, and so little stack
 * left here that a call with `PROBE_SLOTS` arguments (pushed on the stack) overflows too. A `RangeError` a refinement
 * throws (`new Array(-1)`, or one with V8's message), or its own endless recursion, is thrown to the caller as before:
 * 500, logged. Runs only when a check under a lazy level throws.
 */
function out_of_stack(err: unknown): boolean {
  if (!(err instanceof RangeError) || err.message !== STACK_OVERFLOW || not_ours.has(err)) return false
  probe_args ??= new Array<number>(PROBE_SLOTS).fill(0)
  try {
    Reflect.apply(Math.max, undefined, probe_args)
  } catch {
    return true
  }
  not_ours.add(err)
  return false
}

/** A JSON Schema name: letters, digits, `.`, `-`, `_` (what OpenAPI allows as a component key). */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/

/** @internal `text` as a component name: each run of characters `COMPONENT_NAME` does not allow becomes `_`. */
export function component_name(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_')
}

/**
 * The type `get()` returns, looked up when the schema is first used (by then the declaration that refers to itself is
 * initialised). Nesting is bounded by `max_depth`, so a hostile body fails with 400 `Depth` instead of exhausting the
 * stack.
 * @example
 * interface Comment { text: string; replies?: Comment[] }
 * const Comment: Type<Comment, true> = schema({
 *   text: field.string().required(),
 *   replies: field.array(field.lazy(() => Comment, { name: 'Comment' })),
 * })
 */
export class LazyType<X extends Type<unknown, boolean>, R extends boolean> extends Type<OutOf<X>, R> {
  declare readonly spec: LazySpec
  readonly #checks = new Map<string, Check>()

  /** Prefer `field.lazy()`. */
  constructor(spec: LazySpec) {
    super(spec)
  }

  /** Prefer `field.lazy()`; throws `FW_ERR_VALIDATION_BAD_LIMIT` for a bad name or `max_depth`. */
  static of<X extends Type<unknown, boolean>>(get: () => X, options: LazyOptions): LazyType<X, false> {
    if (typeof options?.name !== 'string' || !COMPONENT_NAME.test(options.name)) {
      throw ERR_VALIDATION_BAD_LIMIT(
        `lazy(${JSON.stringify(options?.name)})`,
        'expected a name of letters, digits, ".", "-" or "_"',
      )
    }
    const max_depth = count_limit(`lazy(max_depth: ${options.max_depth})`, options.max_depth ?? 1000)
    return new LazyType<X, false>({ ...base_spec(undefined), get, name: options.name, max_depth })
  }

  /** The type the getter returns. */
  get target(): X {
    return this.spec.get() as X
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    const key = `${options.coerce}:${name}`
    const cached = this.#checks.get(key)
    if (cached !== undefined) return cached
    const { max_depth } = this.spec
    const message = `${name} is nested deeper than ${max_depth} levels`
    let check: Check | undefined
    // Stored before the target compiles, so the target's own reference to this type finds it instead of recursing.
    const lazy: Check = (raw, at, errors) => {
      if (depth >= max_depth) return fail(errors, at, ValidationErrorCode.Depth, message)
      check ??= this.spec.get().compile(name, options)
      depth++
      try {
        return check(raw, at, errors)
      } catch (err) {
        // The stack ran out before max_depth (a level of many containers, little stack left): the value is refused as
        // one nested too deep, at the level whose check could not finish, counting the levels entered above it.
        if (!out_of_stack(err)) throw err
        return fail(errors, at, ValidationErrorCode.Depth, `${name} is nested deeper than ${depth - 1} levels`)
      } finally {
        depth--
      }
    }
    this.#checks.set(key, lazy)
    return lazy
  }

  /**
   * A reference to the named component; the OpenAPI document defines it once (see `docs/openapi.md`), under `<name>_2`,
   * `<name>_3`... when a different schema already has the name.
   */
  protected value_schema(): JsonSchema {
    const { get, name } = this.spec
    if (components === undefined || named === undefined) return { $ref: `#/components/schemas/${name}` }
    let taken = named.get(get)
    if (taken === undefined) {
      const target = get()
      taken = named.get(target)
      if (taken === undefined) {
        taken = name
        for (let n = 2; components.has(taken); n++) taken = `${name}_${n}`
        // Marked before the target is described, so its reference to itself stops here, through the same getter too
        // (a function declaration that builds its type anew on each call).
        named.set(target, taken).set(get, taken)
        components.set(taken, {})
        components.set(taken, target.json_schema())
      } else named.set(get, taken)
    }
    return { $ref: `#/components/schemas/${taken}` }
  }
}
