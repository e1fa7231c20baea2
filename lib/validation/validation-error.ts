// What a failed validation reports: one error per failing field, with a stable code and a readable message.

/**
 * The code of a validation error, as the spec's `ValidationErrorCode`. `Required`: missing, `null` or empty; `Type`:
 * wrong JSON type (or the body is not an object); `Email`, `MinLength`, `MaxLength`, `Min`, `Max`: the rule of that
 * name; `Custom`: an `equals` or `check` rule; `Format`: `uuid`, `uri` or `date_time`; `Enum`: not one of an enum's or
 * literal's values; `Unknown`: a key a strict object refuses; `Depth`: a recursive (`field.lazy`) value nested deeper
 * than its `max_depth`.
 */
export const ValidationErrorCode = {
  Required: 'Required',
  Type: 'Type',
  Email: 'Email',
  MinLength: 'MinLength',
  MaxLength: 'MaxLength',
  Min: 'Min',
  Max: 'Max',
  Custom: 'Custom',
  Format: 'Format',
  Enum: 'Enum',
  Unknown: 'Unknown',
  Depth: 'Depth',
} as const

/** One of the `ValidationErrorCode` values. */
export type ValidationErrorCode = (typeof ValidationErrorCode)[keyof typeof ValidationErrorCode]

/**
 * One failing field: its name (`''` for the body itself), the code of its first failing rule, and that rule's message.
 */
export interface ValidationError {
  readonly field: string
  readonly code: ValidationErrorCode
  readonly message: string
}

/** The outcome of `Schema.validate`: the typed value, or every field's error in schema order. */
export type ValidationResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ValidationError[] }
