import t from 'tap'
import { FwError } from '../../../lib/errors.js'
import { field, schema, type Infer, type ValidationResult } from '../../../lib/validation/index.js'

// The spec's RegisterBody and LoginBody, rule for rule.
const RegisterBody = schema({
  email: field.string().required('email is required').email('invalid email format').max_length(120),
  password: field.string().required('password is required').length(8, 64),
  confirm: field.string().required('confirm is required').equals('password', 'passwords do not match'),
})

const LoginBody = schema({
  email: field.string().required('email is required').email('invalid email format'),
  password: field.string().required('password is required').min_length(8),
})

const good = { email: 'ada@example.com', password: 'correct horse', confirm: 'correct horse' }

function errors_of<T>(result: ValidationResult<T>): unknown {
  return result.ok ? result.value : result.errors
}

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false

t.test('Schema.validate', async (t) => {
  t.test('returns the typed value of a valid RegisterBody', async (t) => {
    t.same(RegisterBody.validate(good), { ok: true, value: good })
  })

  t.test('infers the value type from the fields', async (t) => {
    const register: Equal<Infer<typeof RegisterBody>, { email: string; password: string; confirm: string }> = true
    const mixed = schema({ id: field.integer().required(), nick: field.string(), admin: field.boolean() })
    const optional: Equal<Infer<typeof mixed>, { id: number; nick?: string; admin?: boolean }> = true
    t.equal(register && optional, true)
    t.same(mixed.validate({ id: 1, admin: false }), { ok: true, value: { id: 1, admin: false } })
  })

  t.test('reports every missing field of an empty object with the spec messages', async (t) => {
    t.same(errors_of(RegisterBody.validate({})), [
      { field: 'email', code: 'Required', message: 'email is required' },
      { field: 'password', code: 'Required', message: 'password is required' },
      { field: 'confirm', code: 'Required', message: 'confirm is required' },
    ])
  })

  t.test('treats empty strings and null as missing', async (t) => {
    t.same(errors_of(RegisterBody.validate({ email: '', password: null, confirm: '' })), [
      { field: 'email', code: 'Required', message: 'email is required' },
      { field: 'password', code: 'Required', message: 'password is required' },
      { field: 'confirm', code: 'Required', message: 'confirm is required' },
    ])
  })

  t.test('reports an invalid email format', async (t) => {
    t.same(errors_of(RegisterBody.validate({ ...good, email: 'ada.example.com' })), [
      { field: 'email', code: 'Email', message: 'invalid email format' },
    ])
  })

  t.test('accepts a 120-character email and refuses 121 characters', async (t) => {
    // 64 is the longest local part, 63 the longest domain label: spread the length over both.
    const email = (n: number): string => `${'a'.repeat(60)}@${'b'.repeat(50)}.${'c'.repeat(n - 112)}`
    t.equal(RegisterBody.validate({ ...good, email: email(120) }).ok, true)
    t.same(errors_of(RegisterBody.validate({ ...good, email: email(121) })), [
      { field: 'email', code: 'MaxLength', message: 'email must be at most 120 characters' },
    ])
  })

  t.test('holds a register password to 8 to 64 characters', async (t) => {
    for (const n of [8, 64]) {
      const password = 'p'.repeat(n)
      t.equal(RegisterBody.validate({ ...good, password, confirm: password }).ok, true, `${n} passes`)
    }
    t.same(errors_of(RegisterBody.validate({ ...good, password: 'p'.repeat(7), confirm: 'p'.repeat(7) })), [
      { field: 'password', code: 'MinLength', message: 'password must be 8 to 64 characters' },
    ])
    t.same(errors_of(RegisterBody.validate({ ...good, password: 'p'.repeat(65), confirm: 'p'.repeat(65) })), [
      { field: 'password', code: 'MaxLength', message: 'password must be 8 to 64 characters' },
    ])
  })

  t.test('reports passwords that do not match on confirm with code Custom', async (t) => {
    t.same(errors_of(RegisterBody.validate({ ...good, confirm: 'correct horse!' })), [
      { field: 'confirm', code: 'Custom', message: 'passwords do not match' },
    ])
  })

  t.test('compares password and confirm even when the password fails its own rule', async (t) => {
    t.same(errors_of(RegisterBody.validate({ ...good, password: 'short', confirm: 'shorter' })), [
      { field: 'password', code: 'MinLength', message: 'password must be 8 to 64 characters' },
      { field: 'confirm', code: 'Custom', message: 'passwords do not match' },
    ])
  })

  t.test('skips the match rule when the password is missing', async (t) => {
    t.same(errors_of(RegisterBody.validate({ email: good.email, confirm: 'whatever1' })), [
      { field: 'password', code: 'Required', message: 'password is required' },
    ])
  })

  t.test('reports a number where the email belongs as a type error', async (t) => {
    t.same(errors_of(RegisterBody.validate({ ...good, email: 42 })), [
      { field: 'email', code: 'Type', message: 'email must be a string' },
    ])
  })

  t.test('reports each field with its first failing rule only', async (t) => {
    t.same(errors_of(RegisterBody.validate({ email: 'x'.repeat(200), password: 7, confirm: '' })), [
      { field: 'email', code: 'Email', message: 'invalid email format' },
      { field: 'password', code: 'Type', message: 'password must be a string' },
      { field: 'confirm', code: 'Required', message: 'confirm is required' },
    ])
  })

  t.test('holds a login password to at least 8 characters', async (t) => {
    t.same(LoginBody.validate({ email: good.email, password: '12345678' }), { ok: true, value: { email: good.email, password: '12345678' } })
    t.same(errors_of(LoginBody.validate({ email: 'nope', password: '1234567' })), [
      { field: 'email', code: 'Email', message: 'invalid email format' },
      { field: 'password', code: 'MinLength', message: 'password must be at least 8 characters' },
    ])
  })

  t.test('answers a body that is not an object with one Type error', async (t) => {
    const expected = [{ field: '', code: 'Type', message: 'Expected JSON object' }]
    for (const body of [undefined, null, [], [good], 'text', 42, true]) {
      t.same(errors_of(RegisterBody.validate(body)), expected, JSON.stringify(body) ?? 'no body')
    }
  })

  t.test('leaves keys the schema does not declare out of the value', async (t) => {
    t.same(LoginBody.validate({ email: good.email, password: good.password, role: 'admin' }), {
      ok: true,
      value: { email: good.email, password: good.password },
    })
  })

  t.test('reads only own properties of the body', async (t) => {
    const s = schema({ constructor: field.string().required(), toString: field.string() })
    t.same(errors_of(s.validate({})), [{ field: 'constructor', code: 'Required', message: 'constructor is required' }])
    const inherited = Object.create({ constructor: 'from prototype' }) as object
    t.same(errors_of(s.validate(inherited)), [{ field: 'constructor', code: 'Required', message: 'constructor is required' }])
  })

  t.test('keeps a __proto__ field as plain data in the value', async (t) => {
    const s = schema({ ['__proto__']: field.string().required() })
    const body = JSON.parse('{"__proto__":"x"}') as unknown
    const result = s.validate(body)
    t.ok(result.ok)
    if (result.ok) {
      t.equal(Object.getPrototypeOf(result.value), Object.prototype)
      t.same(Object.getOwnPropertyDescriptor(result.value, '__proto__')?.value, 'x')
    }
  })

  t.test('omits optional fields that are missing or null and keeps an empty string', async (t) => {
    const s = schema({ nick: field.string().min_length(3), bio: field.string(), age: field.integer() })
    t.same(s.validate({ nick: null, bio: '' }), { ok: true, value: { bio: '' } })
  })

  t.test('returns SQL- and HTML-looking text verbatim', async (t) => {
    const password = `' OR 1=1; --<script>alert(1)</script>`
    const result = RegisterBody.validate({ ...good, password, confirm: password })
    t.same(result, { ok: true, value: { ...good, password, confirm: password } })
  })
})

t.test('schema', async (t) => {
  t.test('throws FW_ERR_VALIDATION_UNKNOWN_FIELD when equals names an undeclared field', async (t) => {
    t.throws(() => schema({ confirm: field.string().equals('pasword') }), {
      constructor: FwError,
      code: 'FW_ERR_VALIDATION_UNKNOWN_FIELD',
      message: 'field "confirm" must equal "pasword", which the schema does not declare',
    })
  })

  t.test('lets one field serve in several schemas', async (t) => {
    const email = field.string().required('email is required').email('invalid email format')
    const a = schema({ email })
    const b = schema({ login: email })
    t.same(errors_of(a.validate({ email: 'x' })), [{ field: 'email', code: 'Email', message: 'invalid email format' }])
    t.same(errors_of(b.validate({ login: 'x' })), [{ field: 'login', code: 'Email', message: 'invalid email format' }])
  })
})
