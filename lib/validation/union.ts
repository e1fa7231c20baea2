// Discriminated unions: one of several objects, chosen by the literal value of one key, so only that object is checked.
import { defineError } from '../errors.js'
import { LiteralType } from './choice.js'
import type { Schema, Shape } from './schema.js'
import { ValidationErrorCode } from './validation-error.js'
import {
  Type,
  base_spec,
  child_path,
  fail,
  type Check,
  type CompileOptions,
  type JsonSchema,
  type TypeSpec,
} from './type.js'

/** A union option without a literal at the key, or two options with the same literal. */
export const ERR_VALIDATION_BAD_UNION = defineError(
  'FW_ERR_VALIDATION_BAD_UNION',
  (key: string, why: string) => `union on ${JSON.stringify(key)}: ${why}`,
)

type OutOf<O> = O extends Type<infer T, boolean> ? T : never

/** What a union declares. */
export interface UnionSpec extends TypeSpec {
  readonly key: string
  readonly options: readonly Schema<Shape, boolean>[]
}

/**
 * One of `options`, told apart by the literal at `key`: an unknown tag fails with `Enum` on `<field>/<key>`.
 * @example
 * field.union('type', [
 *   field.object({ type: field.literal('card').required(), last4: field.string().required() }),
 *   field.object({ type: field.literal('iban').required(), iban: field.string().required() }),
 * ]).required()
 */
export class UnionType<O extends Schema<Shape, boolean>, R extends boolean> extends Type<OutOf<O>, R> {
  declare readonly '~presence': { readonly required: UnionType<O, true>; readonly optional: UnionType<O, false> }
  declare readonly spec: UnionSpec

  /** Prefer the `field.*` builders. */
  constructor(spec: UnionSpec) {
    super(spec)
  }

  /**
   * Prefer `field.union()`; throws `FW_ERR_VALIDATION_BAD_UNION` when an option has no literal at `key` or repeats one.
   */
  static of<O extends Schema<Shape, boolean>>(
    key: string,
    options: readonly Schema<Shape, boolean>[],
    message?: string,
  ): UnionType<O, false> {
    const seen = new Set<unknown>()
    for (const o of options) {
      const tag = o.shape[key]
      if (!(tag instanceof LiteralType))
        throw ERR_VALIDATION_BAD_UNION(key, 'every option must declare it as field.literal()')
      if (seen.has(tag.value)) throw ERR_VALIDATION_BAD_UNION(key, `the tag ${JSON.stringify(tag.value)} appears twice`)
      seen.add(tag.value)
    }
    return new UnionType<O, false>({ ...base_spec(message), key, options: [...options] })
  }

  protected compile_value(name: string, options: CompileOptions): Check {
    const { key } = this.spec
    const by_tag = new Map<unknown, Check>()
    for (const o of this.spec.options)
      by_tag.set((o.shape[key] as LiteralType<string, boolean>).value, o.compile(name, options))
    const type_message = this.type_message(name, 'an object')
    const tags = [...by_tag.keys()].map(String).join(', ')
    const tag_message = `${key} must be one of ${tags}`
    return (raw, at, errors) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        return fail(errors, at, ValidationErrorCode.Type, type_message)
      const tag = Object.hasOwn(raw, key) ? (raw as Record<string, unknown>)[key] : undefined
      const option = by_tag.get(tag)
      if (option === undefined) return fail(errors, child_path(at, key), ValidationErrorCode.Enum, tag_message)
      return option(raw, at, errors)
    }
  }

  protected value_schema(): JsonSchema {
    const { key } = this.spec
    // The check refuses an object without its tag, whatever the literal's own presence: every option requires it.
    const options = this.spec.options.map((o) => {
      const s = o.json_schema()
      const required = (s['required'] ?? []) as string[]
      if (s['type'] === 'object' && !required.includes(key)) s['required'] = [key, ...required]
      return s
    })
    return { oneOf: options, discriminator: { propertyName: key } }
  }
}
