// The HTTP answer to a failed validation: the house error shape plus the list of field errors.
import { httpCode } from '../errors.js'
import { HttpError } from '../http-error.js'
import type { ValidationError } from './validation-error.js'

const VALIDATION_FAILED = httpCode('validation_failed')

/**
 * The 400 body for invalid input: `{ok:false, error:'validation_failed', message, errors:[{field, code, message}]}`.
 */
export type ValidationBody = {
  ok: false
  error: typeof VALIDATION_FAILED
  message: string
  errors: { field: string; code: ValidationError['code']; message: string }[]
}

/**
 * Builds the 400 body for `errors`; `message` defaults to the first error's message (`Validation failed` when there is
 * none).
 * @example
 * const result = RegisterBody.validate(req.json().raw)
 * if (!result.ok) return void res.status(400).json(validation_body(result.errors))
 */
export function validation_body(errors: readonly ValidationError[], message?: string): ValidationBody {
  return {
    ok: false,
    error: VALIDATION_FAILED,
    message: message ?? errors[0]?.message ?? 'Validation failed',
    errors: errors.map(({ field, code, message }) => ({ field, code, message })),
  }
}

/**
 * A route's input failed its schema, as an error: what `app.on_error` receives for a failed `{ body, query, params,
 * headers }` schema when it covers the route, with every field's `errors`. Unanswered there, it answers 400 with
 * `validation_body(errors)`, as the route does without an `on_error`.
 * @example
 * app.on_error((err, _req, res) => {
 *   if (err instanceof ValidationFailed) res.status(422).json({ errors: { body: err.errors.map((e) => e.message) } })
 * })
 */
export class ValidationFailed extends HttpError {
  /** Every failing field, in schema order. */
  readonly errors: readonly ValidationError[]

  constructor(errors: readonly ValidationError[]) {
    const body = validation_body(errors)
    super(400, VALIDATION_FAILED, body.message, { details: body.errors })
    this.name = 'ValidationFailed'
    this.errors = errors
  }

  /** The 400 body of `validation_body`: `{ok:false, error:'validation_failed', message, errors}`. */
  override body(): ValidationBody {
    return validation_body(this.errors)
  }
}
