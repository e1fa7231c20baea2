// Number fields (`integer` and `number`): inclusive lower and upper bounds.
import { Field } from './field.js'
import { bound_limit } from './limits.js'
import { ValidationErrorCode } from './validation-error.js'

/**
 * An integer or number field. JSON numbers only: the string `"42"` fails with `Type`.
 * @example
 * field.integer().required().min(1).max(100)
 */
export class NumberField<K extends 'integer' | 'number', R extends boolean> extends Field<K, R> {
  declare readonly '~presence': { readonly required: NumberField<K, true>; readonly optional: NumberField<K, false> }
  /** Fails with `Min` when the value is below `min` (default message `<field> must be at least <min>`). */
  min(min: number, message?: string): NumberField<K, R> {
    bound_limit(`min(${min})`, min)
    return this.#bound(
      ValidationErrorCode.Min,
      message,
      (name) => `${name} must be at least ${min}`,
      (value) => value >= min,
      { minimum: min },
    )
  }

  /** Fails with `Max` when the value is above `max` (default message `<field> must be at most <max>`). */
  max(max: number, message?: string): NumberField<K, R> {
    bound_limit(`max(${max})`, max)
    return this.#bound(
      ValidationErrorCode.Max,
      message,
      (name) => `${name} must be at most ${max}`,
      (value) => value <= max,
      { maximum: max },
    )
  }

  #bound(
    code: ValidationErrorCode,
    message: string | undefined,
    default_message: (name: string) => string,
    test: (value: number) => boolean,
    keywords: Record<string, number>,
  ): NumberField<K, R> {
    return this.with_rule<NumberField<K, R>>({ code, message, default_message, test, references: undefined, keywords })
  }
}
