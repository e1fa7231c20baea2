import t from 'tap'
import { httpErrorCodes } from '../../../lib/errors.js'
import { field, schema, validation_body } from '../../../lib/validation/index.js'

const LoginBody = schema({
  email: field.string().required('email is required').email('invalid email format'),
  password: field.string().required('password is required').min_length(8),
})

t.test('validation_body', async (t) => {
  t.test('builds the 400 body with the first error as message', async (t) => {
    const result = LoginBody.validate({ password: 'short' })
    t.equal(result.ok, false)
    if (result.ok) return
    t.strictSame(validation_body(result.errors), {
      ok: false,
      error: 'validation_failed',
      message: 'email is required',
      errors: [
        { field: 'email', code: 'Required', message: 'email is required' },
        { field: 'password', code: 'MinLength', message: 'password must be at least 8 characters' },
      ],
    })
  })

  t.test('uses a given message', async (t) => {
    const body = validation_body([{ field: 'email', code: 'Email', message: 'invalid email format' }], 'Invalid input')
    t.equal(body.message, 'Invalid input')
    t.same(body.errors, [{ field: 'email', code: 'Email', message: 'invalid email format' }])
  })

  t.test('falls back to Validation failed without errors', async (t) => {
    t.strictSame(validation_body([]), {
      ok: false,
      error: 'validation_failed',
      message: 'Validation failed',
      errors: [],
    })
  })

  t.test('serialises keys in the documented order', async (t) => {
    const body = validation_body([{ field: '', code: 'Type', message: 'Expected JSON object' }])
    t.equal(
      JSON.stringify(body),
      '{"ok":false,"error":"validation_failed","message":"Expected JSON object","errors":[{"field":"","code":"Type","message":"Expected JSON object"}]}',
    )
  })

  t.test('records validation_failed as an HTTP error code', async (t) => {
    t.ok(httpErrorCodes().includes('validation_failed'))
  })
})
