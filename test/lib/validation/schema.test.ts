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
    t.same(LoginBody.validate({ email: good.email, password: '12345678' }), {
      ok: true,
      value: { email: good.email, password: '12345678' },
    })
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
    t.same(errors_of(s.validate(inherited)), [
      { field: 'constructor', code: 'Required', message: 'constructor is required' },
    ])
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

  t.test('omits optional fields that are missing and keeps an empty string', async (t) => {
    const s = schema({ nick: field.string().min_length(3), bio: field.string(), age: field.integer() })
    t.strictSame(s.validate({ bio: '' }), { ok: true, value: { bio: '' } })
  })

  t.test('refuses null in an optional field that is not nullable, as a value of the wrong type', async (t) => {
    const s = schema({ nick: field.string().min_length(3), bio: field.string(), age: field.integer() })
    t.strictSame(s.validate({ nick: null, bio: '' }), {
      ok: false,
      errors: [{ field: 'nick', code: 'Type', message: 'nick must be a string' }],
    })
    t.strictSame(field.string().validate(null), {
      ok: false,
      errors: [{ field: '', code: 'Type', message: 'value must be a string' }],
    })
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

t.test('Schema nested', async (t) => {
  const Address = field.object({ city: field.string().required(), zip: field.string().length(5, 5) })
  const User = schema({ name: field.string().required(), address: Address.required() })

  t.test('names nested fields by their path', async (t) => {
    t.same(User.validate({ name: 'Ada', address: { zip: '123' } }), {
      ok: false,
      errors: [
        { field: 'address/city', code: 'Required', message: 'city is required' },
        { field: 'address/zip', code: 'MinLength', message: 'zip must be 5 to 5 characters' },
      ],
    })
    t.same(User.validate({ name: 'Ada', address: 'x' }), {
      ok: false,
      errors: [{ field: 'address', code: 'Type', message: 'address must be an object' }],
    })
  })

  t.test("escapes a declared key's '/' and '~' in its path, compiled or not, as a record's key is", async (t) => {
    // `a/b` as the path would name the field `b` of an object `a`; RFC 6901 writes the key as `a~1b`.
    const shape = {
      'a/b': field.string().required(),
      n: field.object({ 'x~y': field.integer().required() }).required(),
    }
    const expected = {
      ok: false,
      errors: [
        { field: 'a~1b', code: 'Required', message: 'a/b is required' },
        { field: 'n/x~0y', code: 'Required', message: 'x~y is required' },
      ],
    }
    t.same(schema(shape).validate({ n: {} }), expected, 'compiled object code')
    // A rule that reads its siblings sends the object down the general path.
    const general = schema({ ...shape, c: field.string().check(() => true, 'never') })
    t.same(general.validate({ n: {} }), expected, 'the general path')
    t.same(
      schema(shape)['~standard'].validate({ n: {} }),
      {
        issues: [
          { message: 'a/b is required', path: ['a/b'] },
          { message: 'x~y is required', path: ['n', 'x~y'] },
        ],
      },
      "a Standard Schema issue's path gives the keys as declared",
    )
  })

  t.test('strict refuses unknown keys at their path; the default strips them', async (t) => {
    const Strict = schema({ a: field.object({ b: field.integer() }).strict() }).strict('not allowed here')
    t.same(Strict.validate({ a: { b: 1, c: 2 }, d: 3 }), {
      ok: false,
      errors: [
        { field: 'a/c', code: 'Unknown', message: 'c is not allowed' },
        { field: 'd', code: 'Unknown', message: 'not allowed here' },
      ],
    })
    t.same(User.validate({ name: 'Ada', x: 1, address: { city: 'Paris', y: 2 } }), {
      ok: true,
      value: { name: 'Ada', address: { city: 'Paris' } },
    })
  })

  t.test('strict collects at most 100 unknown keys, so a body of many keys costs a bounded answer', async (t) => {
    const body: Record<string, number> = {}
    for (let i = 0; i < 10_000; i++) body[`k${i}`] = 0
    const r = schema({ a: field.integer() }).strict().validate(body)
    t.equal(r.ok, false)
    const errors = r.ok ? [] : r.errors
    t.equal(errors.length, 100)
    t.same(errors[99], { field: 'k99', code: 'Unknown', message: 'k99 is not allowed' })
    const nested = schema({ a: field.integer().required(), o: field.object({}).strict() }).validate({ o: body })
    t.equal(nested.ok ? 0 : nested.errors.length, 100, 'the cap counts the errors before the unknown keys')
    t.same(nested.ok ? undefined : nested.errors[0], { field: 'a', code: 'Required', message: 'a is required' })
  })

  t.test('__proto__ and constructor keys at every level never reach a prototype', async (t) => {
    let body: unknown = { leaf: 1 }
    for (let i = 0; i < 5; i++)
      body = JSON.parse(
        `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"next":${JSON.stringify(body)}}`,
      )
    const Node = (depth: number): ReturnType<typeof field.object> =>
      depth === 0 ? field.object({ leaf: field.integer() }) : field.object({ next: Node(depth - 1) })
    const S = schema({ next: Node(4) })
    const r = S.validate(body)
    t.ok(r.ok)
    t.equal(({} as Record<string, unknown>)['polluted'], undefined)
    t.equal(Object.getPrototypeOf(r.ok ? r.value : null), Object.prototype)
    t.same(
      schema({ constructor: field.integer() }).validate({}),
      { ok: true, value: {} },
      'an inherited constructor is not read',
    )
  })

  t.test('a body nested 1,000 deep answers with the first level, without recursion into it', async (t) => {
    const deep = JSON.parse('{"a":'.repeat(1000) + '1' + '}'.repeat(1000)) as unknown
    t.same(schema({ a: field.integer() }).validate(deep), {
      ok: false,
      errors: [{ field: 'a', code: 'Type', message: 'a must be an integer' }],
    })
  })

  t.test(
    'query coercion reads integers, numbers and booleans from strings, and refuses repeated scalar keys',
    async (t) => {
      const Q = schema({ page: field.integer().min(1), ratio: field.number(), on: field.boolean() })
      t.same(Q.validate({ page: '2', ratio: '0.5', on: 'true' }, { coerce: true }), {
        ok: true,
        value: { page: 2, ratio: 0.5, on: true },
      })
      t.same(Q.validate({ page: '2.5', on: 'yes' }, { coerce: true }), {
        ok: false,
        errors: [
          { field: 'page', code: 'Type', message: 'page must be an integer' },
          { field: 'on', code: 'Type', message: 'on must be a boolean' },
        ],
      })
      t.same(Q.validate({ page: Array.from({ length: 10_000 }, () => '1') }, { coerce: true }), {
        ok: false,
        errors: [{ field: 'page', code: 'Type', message: 'page must be an integer' }],
      })
      t.same(Q.validate({ page: 2 }, { coerce: true }), { ok: true, value: { page: 2 } }, 'a number stays a number')
      t.same(
        Q.validate({ page: '2' }),
        { ok: false, errors: [{ field: 'page', code: 'Type', message: 'page must be an integer' }] },
        'bodies are not coerced',
      )
    },
  )

  t.test(
    'an empty query value (`?page=`) of a number, boolean or enum counts as missing, not as a wrong type',
    async (t) => {
      const Q = schema({
        page: field.integer().min(1).default(1),
        ratio: field.number(),
        on: field.boolean(),
        sort: field.enum(['new', 'old']).default('new'),
        n: field.integer().required(),
      })
      t.same(Q.validate({ page: '', ratio: '', on: '', sort: '', n: '' }, { coerce: true }), {
        ok: false,
        errors: [{ field: 'n', code: 'Required', message: 'n is required' }],
      })
      t.same(Q.validate({ page: '', ratio: '', on: '', sort: '', n: '3' }, { coerce: true }), {
        ok: true,
        value: { page: 1, sort: 'new', n: 3 },
      })
      t.same(
        schema({ ids: field.array(field.integer()) }).validate({ ids: ['1', ''] }, { coerce: true }),
        { ok: false, errors: [{ field: 'ids/1', code: 'Required', message: 'ids item is required' }] },
        'an empty item of a repeated key is a missing item',
      )
      t.same(
        schema({ e: field.enum(['', 'a']) }).validate({ e: '' }, { coerce: true }),
        { ok: true, value: { e: '' } },
        'an enum that lists the empty string keeps it',
      )
      t.same(
        Q.validate({ n: '' }),
        { ok: false, errors: [{ field: 'n', code: 'Type', message: 'n must be an integer' }] },
        'bodies are not coerced: "" is a string',
      )
    },
  )
})
