import t from 'tap'
import { field, schema, type Field, type FieldKind, type ValidationResult } from '../../../lib/validation/index.js'

function one(f: Field<FieldKind, boolean>, value: unknown): ValidationResult<{ v?: unknown }> {
  return schema({ v: f }).validate(value === undefined ? {} : { v: value })
}

t.test('Field.required', async (t) => {
  t.test('refuses missing, null and empty string with the given message', async (t) => {
    const f = field.string().required('v please')
    for (const value of [undefined, null, '']) {
      t.same(
        one(f, value),
        { ok: false, errors: [{ field: 'v', code: 'Required', message: 'v please' }] },
        String(value),
      )
    }
  })

  t.test('uses <field> is required by default', async (t) => {
    t.same(one(field.integer().required(), null), {
      ok: false,
      errors: [{ field: 'v', code: 'Required', message: 'v is required' }],
    })
  })

  t.test('reports Required before Type and before any rule', async (t) => {
    const f = field.string().email().required()
    t.same(one(f, undefined), { ok: false, errors: [{ field: 'v', code: 'Required', message: 'v is required' }] })
    t.same(one(f, 3), { ok: false, errors: [{ field: 'v', code: 'Type', message: 'v must be a string' }] })
  })

  t.test('keeps false, which is not empty', async (t) => {
    t.same(one(field.boolean().required(), false), { ok: true, value: { v: false } })
  })

  t.test('leaves an optional field absent when it is missing', async (t) => {
    t.same(one(field.string().email(), undefined), { ok: true, value: {} })
  })
})

t.test('Field.equals', async (t) => {
  const Pair = schema({
    password: field.string().min_length(8),
    confirm: field.string().equals('password', 'passwords do not match'),
  })

  t.test('passes when both values are equal', async (t) => {
    t.same(Pair.validate({ password: 'abcdefgh', confirm: 'abcdefgh' }), {
      ok: true,
      value: { password: 'abcdefgh', confirm: 'abcdefgh' },
    })
  })

  t.test('fails on its own field with Custom when both are non-empty and differ', async (t) => {
    t.same(Pair.validate({ password: 'abcdefgh', confirm: 'abcdefgH' }), {
      ok: false,
      errors: [{ field: 'confirm', code: 'Custom', message: 'passwords do not match' }],
    })
  })

  t.test('is not checked when either side is empty, null or of the wrong type', async (t) => {
    for (const body of [
      { password: '', confirm: 'x' },
      { password: 'abcdefgh', confirm: '' },
    ]) {
      t.equal(Pair.validate(body).ok, true, JSON.stringify(body))
    }
    // An optional field refuses `null` as a wrong type (only a nullable one takes it); confirm is not compared.
    for (const password of [12345678, null]) {
      t.same(Pair.validate({ password, confirm: 'x' }), {
        ok: false,
        errors: [{ field: 'password', code: 'Type', message: 'password must be a string' }],
      })
    }
  })

  t.test('compares the values after transforms', async (t) => {
    const Emails = schema({
      email: field.string().trim().lowercase(),
      again: field.string().trim().lowercase().equals('email'),
    })
    t.same(Emails.validate({ email: 'A@B.CO', again: ' a@b.co ' }), {
      ok: true,
      value: { email: 'a@b.co', again: 'a@b.co' },
    })
    t.same(Emails.validate({ email: 'a@b.co', again: 'c@b.co' }), {
      ok: false,
      errors: [{ field: 'again', code: 'Custom', message: 'again must match email' }],
    })
  })
})

t.test('Field.check', async (t) => {
  t.test('fails with Custom and the given message when the predicate is false', async (t) => {
    const f = field.string().check((v) => v !== 'admin', 'name is reserved')
    t.same(one(f, 'admin'), { ok: false, errors: [{ field: 'v', code: 'Custom', message: 'name is reserved' }] })
    t.same(one(f, 'ada'), { ok: true, value: { v: 'ada' } })
  })

  t.test('sees the other fields of the body, normalised', async (t) => {
    const Range = schema({
      from: field.integer().required(),
      to: field
        .integer()
        .required()
        .check((to, values) => to >= (values['from'] as number), 'to must not precede from'),
    })
    t.same(Range.validate({ from: 5, to: 4 }), {
      ok: false,
      errors: [{ field: 'to', code: 'Custom', message: 'to must not precede from' }],
    })
    t.same(Range.validate({ from: 5, to: 5 }), { ok: true, value: { from: 5, to: 5 } })
  })

  t.test('receives the value with the field type', async (t) => {
    const f = field.boolean().check((v) => v, 'terms must be accepted')
    t.same(one(f, false), { ok: false, errors: [{ field: 'v', code: 'Custom', message: 'terms must be accepted' }] })
  })
})

t.test('Field messages', async (t) => {
  t.test('settles default messages under the field name', async (t) => {
    const S = schema({ nick: field.string().required().max_length(3) })
    t.same(S.validate({}), { ok: false, errors: [{ field: 'nick', code: 'Required', message: 'nick is required' }] })
    t.same(S.validate({ nick: 1 }), {
      ok: false,
      errors: [{ field: 'nick', code: 'Type', message: 'nick must be a string' }],
    })
    t.same(S.validate({ nick: 'abcd' }), {
      ok: false,
      errors: [{ field: 'nick', code: 'MaxLength', message: 'nick must be at most 3 characters' }],
    })
  })
})
