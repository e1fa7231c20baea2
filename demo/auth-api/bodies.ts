// The spec's RegisterBody and LoginBody, rule for rule, with the email trimmed and lowercased on both.
import { field, schema, type Infer } from '../../lib/validation/index.js'

// Trimmed and lowercased before any check, so ' Ada@Example.com ' registers, collides and logs in as 'ada@example.com'.
const email = field.string().required('email is required').trim().lowercase().email('invalid email format')

/** The request body of `POST /auth/register`. */
export const RegisterBody = schema({
  email: email.max_length(120),
  password: field.string().required('password is required').length(8, 64),
  confirm: field.string().required('confirm is required').equals('password', 'passwords do not match'),
})

/** The validated register body. */
export type RegisterBody = Infer<typeof RegisterBody>

/** The request body of `POST /auth/login`. */
export const LoginBody = schema({
  email,
  password: field.string().required('password is required').min_length(8),
})

/** The validated login body. */
export type LoginBody = Infer<typeof LoginBody>

/**
 * An email as both bodies see it: trimmed and lowercased (for keys computed before validation, such as rate limits).
 */
export function normalise_email(email: string): string {
  return email.trim().toLowerCase()
}
