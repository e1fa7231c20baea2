import t from 'tap'
import { FwError } from '../../../lib/errors.js'
import { field, schema, type StringField, type ValidationResult } from '../../../lib/validation/index.js'

function one(f: StringField<boolean>, value: unknown): ValidationResult<{ v?: string }> {
  return schema({ v: f }).validate({ v: value })
}

t.test('StringField.trim', async (t) => {
  t.test('removes surrounding whitespace before every rule', async (t) => {
    t.same(one(field.string().email().trim(), '  ada@example.com\n'), { ok: true, value: { v: 'ada@example.com' } })
  })

  t.test('makes a blank value count as missing', async (t) => {
    t.same(one(field.string().trim().required(), ' \t '), {
      ok: false,
      errors: [{ field: 'v', code: 'Required', message: 'v is required' }],
    })
  })

  t.test('is opt-in: without it whitespace is kept and checked', async (t) => {
    t.same(one(field.string().email(), ' ada@example.com'), {
      ok: false,
      errors: [{ field: 'v', code: 'Email', message: 'v must be a valid email address' }],
    })
    t.same(one(field.string().required(), '  '), { ok: true, value: { v: '  ' } })
  })
})

t.test('StringField.lowercase', async (t) => {
  t.test('lowercases the value', async (t) => {
    t.same(one(field.string().trim().lowercase().email(), ' Ada@Example.COM '), {
      ok: true,
      value: { v: 'ada@example.com' },
    })
  })

  t.test('returns a new field and leaves the original unchanged', async (t) => {
    const plain = field.string()
    const lower = plain.lowercase()
    t.not(lower, plain)
    t.same(one(plain, 'ABC'), { ok: true, value: { v: 'ABC' } })
    t.same(one(lower, 'ABC'), { ok: true, value: { v: 'abc' } })
  })
})

t.test('StringField.email', async (t) => {
  t.test('uses the given message or a default one', async (t) => {
    t.same(one(field.string().email('invalid email format'), 'nope'), {
      ok: false,
      errors: [{ field: 'v', code: 'Email', message: 'invalid email format' }],
    })
    t.same(one(field.string().email(), 'nope'), {
      ok: false,
      errors: [{ field: 'v', code: 'Email', message: 'v must be a valid email address' }],
    })
  })

  t.test('refuses a long adversarial input', async (t) => {
    const evil = `${'a.'.repeat(50_000)}@${'a-'.repeat(50_000)}`
    t.same(one(field.string().email(), evil), {
      ok: false,
      errors: [{ field: 'v', code: 'Email', message: 'v must be a valid email address' }],
    })
  })
})

t.test('StringField.min_length', async (t) => {
  t.test('counts code points, so an emoji is one character', async (t) => {
    const f = field.string().min_length(3)
    t.equal('ab😀'.length, 4)
    t.same(one(f, 'a😀'), {
      ok: false,
      errors: [{ field: 'v', code: 'MinLength', message: 'v must be at least 3 characters' }],
    })
    t.same(one(f, 'ab😀'), { ok: true, value: { v: 'ab😀' } })
  })

  t.test('reads no code point when the UTF-16 length decides, and counts them when it does not', async (t) => {
    const f = field.string().min_length(3)
    const iterator = Object.getOwnPropertyDescriptor(String.prototype, Symbol.iterator)!
    let walked = 0
    Object.defineProperty(String.prototype, Symbol.iterator, {
      ...iterator,
      value: function (this: string) {
        walked++
        return (iterator.value as (this: string) => Iterator<string>).call(this)
      },
    })
    try {
      t.same(one(f, 'x'.repeat(100_000)).ok, true, 'at least 2 * min units are at least min code points')
      t.same(one(f, 'ab').ok, false, 'fewer than min units are fewer than min code points')
      t.equal(walked, 0)
      // Between min and 2 * min units, only the count tells: 4 units are 2 emoji or 4 letters.
      t.same(one(f, '😀😀').ok, false)
      t.same(one(f, '😀ab').ok, true)
      t.same(one(f, '😀😀😀').ok, true)
      t.same(one(f, '\ud800\ud800a').ok, true, 'a lone surrogate is one code point')
    } finally {
      Object.defineProperty(String.prototype, Symbol.iterator, iterator)
    }
  })

  t.test('uses the given message', async (t) => {
    t.same(one(field.string().min_length(2, 'too short'), 'a'), {
      ok: false,
      errors: [{ field: 'v', code: 'MinLength', message: 'too short' }],
    })
  })

  t.test('does not run on an empty optional value', async (t) => {
    t.same(one(field.string().min_length(2), ''), { ok: true, value: { v: '' } })
  })

  t.test('throws FW_ERR_VALIDATION_BAD_LIMIT for a negative or fractional length', async (t) => {
    t.throws(() => field.string().min_length(-1), {
      constructor: FwError,
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'min_length(-1): expected a whole number >= 0',
    })
    t.throws(() => field.string().min_length(1.5), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'min_length(1.5): expected a whole number >= 0',
    })
  })
})

t.test('StringField.max_length', async (t) => {
  t.test('counts code points, so two emoji fit a limit of 2', async (t) => {
    const f = field.string().max_length(2)
    t.same(one(f, '😀😀'), { ok: true, value: { v: '😀😀' } })
    t.same(one(f, '😀😀x'), {
      ok: false,
      errors: [{ field: 'v', code: 'MaxLength', message: 'v must be at most 2 characters' }],
    })
  })

  t.test('throws FW_ERR_VALIDATION_BAD_LIMIT for a length that is not finite', async (t) => {
    t.throws(() => field.string().max_length(Infinity), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'max_length(Infinity): expected a whole number >= 0',
    })
  })
})

t.test('StringField.length', async (t) => {
  t.test('fails below min with MinLength and above max with MaxLength, with one message', async (t) => {
    const f = field.string().length(2, 3, 'two or three')
    t.same(one(f, 'a'), { ok: false, errors: [{ field: 'v', code: 'MinLength', message: 'two or three' }] })
    t.same(one(f, 'abcd'), { ok: false, errors: [{ field: 'v', code: 'MaxLength', message: 'two or three' }] })
    t.same(one(f, '😀😀😀'), { ok: true, value: { v: '😀😀😀' } })
  })

  t.test('throws FW_ERR_VALIDATION_BAD_LIMIT when min exceeds max', async (t) => {
    t.throws(() => field.string().length(5, 4), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'length(5, 4): min must not exceed max',
    })
    t.throws(() => field.string().length(-2, 4), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'length(-2, 4): expected a whole number >= 0',
    })
  })
})

t.test('StringField', async (t) => {
  t.test('runs rules in the order declared and reports the first failure', async (t) => {
    const short_first = field.string().min_length(10).email()
    const email_first = field.string().email().min_length(10)
    t.same(one(short_first, 'x'), {
      ok: false,
      errors: [{ field: 'v', code: 'MinLength', message: 'v must be at least 10 characters' }],
    })
    t.same(one(email_first, 'x'), {
      ok: false,
      errors: [{ field: 'v', code: 'Email', message: 'v must be a valid email address' }],
    })
  })

  t.test('refuses numbers, booleans, arrays and objects with Type', async (t) => {
    for (const value of [1, false, ['a'], { a: 'b' }]) {
      t.same(
        one(field.string(), value),
        { ok: false, errors: [{ field: 'v', code: 'Type', message: 'v must be a string' }] },
        JSON.stringify(value),
      )
    }
  })
})

t.test('StringField.required', async (t) => {
  t.test("says in its JSON Schema that '' is refused, as the check refuses it (minLength 1)", async (t) => {
    const f = field.string().required()
    t.same(one(f, ''), { ok: false, errors: [{ field: 'v', code: 'Required', message: 'v is required' }] })
    t.strictSame(f.json_schema(), { type: 'string', minLength: 1 })
    t.strictSame(field.string().required().email().json_schema(), { type: 'string', format: 'email', minLength: 1 })
    t.strictSame(field.string().required().min_length(3).json_schema(), { type: 'string', minLength: 3 })
    t.strictSame(field.string().required().min_length(0).json_schema(), { type: 'string', minLength: 1 })
    t.strictSame(field.string().required().nullable().json_schema(), {
      anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }],
    })
    // A required field with a default still refuses '' (the default fills a missing value only).
    const d = field.string().required().default('x')
    t.same(one(d, ''), { ok: false, errors: [{ field: 'v', code: 'Required', message: 'v is required' }] })
    t.strictSame(d.json_schema(), { type: 'string', minLength: 1, default: 'x' })
  })

  t.test("leaves an optional field's JSON Schema as it was: '' is a value there", async (t) => {
    t.same(one(field.string(), ''), { ok: true, value: { v: '' } })
    t.strictSame(field.string().json_schema(), { type: 'string' })
    t.strictSame(field.string().default('x').json_schema(), { type: 'string', default: 'x' })
  })
})
