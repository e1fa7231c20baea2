// The HTTP answer to a failed validation: the house error shape plus the list of field errors.
import { httpCode } from '../errors.js'
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
