import t from 'tap'
import { FwError } from '../../../lib/errors.js'
import { field, schema, type NumberField, type ValidationResult } from '../../../lib/validation/index.js'

function one(f: NumberField<'integer' | 'number', boolean>, value: unknown): ValidationResult<{ v?: number }> {
  return schema({ v: f }).validate({ v: value })
}

t.test('NumberField.min', async (t) => {
  t.test('accepts the bound itself and refuses below it', async (t) => {
    const f = field.integer().min(1)
    t.same(one(f, 1), { ok: true, value: { v: 1 } })
    t.same(one(f, 0), { ok: false, errors: [{ field: 'v', code: 'Min', message: 'v must be at least 1' }] })
  })

  t.test('uses the given message', async (t) => {
    t.same(one(field.number().min(0.5, 'too small'), 0.25), {
      ok: false,
      errors: [{ field: 'v', code: 'Min', message: 'too small' }],
    })
  })

  t.test('throws FW_ERR_VALIDATION_BAD_LIMIT for a bound that is not finite', async (t) => {
    t.throws(() => field.integer().min(Number.NaN), {
      constructor: FwError,
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'min(NaN): expected a finite number',
    })
  })
})

t.test('NumberField.max', async (t) => {
  t.test('accepts the bound itself and refuses above it', async (t) => {
    const f = field.number().max(2.5)
    t.same(one(f, 2.5), { ok: true, value: { v: 2.5 } })
    t.same(one(f, 2.75), { ok: false, errors: [{ field: 'v', code: 'Max', message: 'v must be at most 2.5' }] })
  })

  t.test('runs after min in declaration order', async (t) => {
    t.same(one(field.integer().max(5, 'too big').min(1, 'too small'), 9), {
      ok: false,
      errors: [{ field: 'v', code: 'Max', message: 'too big' }],
    })
  })

  t.test('throws FW_ERR_VALIDATION_BAD_LIMIT for a bound that is not finite', async (t) => {
    t.throws(() => field.number().max(-Infinity), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'max(-Infinity): expected a finite number',
    })
  })
})

t.test('NumberField', async (t) => {
  t.test('accepts integers within the safe range and refuses fractions and unsafe integers', async (t) => {
    const f = field.integer()
    t.same(one(f, -7), { ok: true, value: { v: -7 } })
    t.same(one(f, Number.MAX_SAFE_INTEGER), { ok: true, value: { v: Number.MAX_SAFE_INTEGER } })
    for (const value of [1.5, 2 ** 53, Number.NaN]) {
      t.same(
        one(f, value),
        { ok: false, errors: [{ field: 'v', code: 'Type', message: 'v must be an integer' }] },
        String(value),
      )
    }
  })

  t.test('accepts any finite number and refuses NaN and infinities', async (t) => {
    const f = field.number()
    t.same(one(f, 0.1), { ok: true, value: { v: 0.1 } })
    for (const value of [Number.NaN, Infinity]) {
      t.same(
        one(f, value),
        { ok: false, errors: [{ field: 'v', code: 'Type', message: 'v must be a number' }] },
        String(value),
      )
    }
  })

  t.test('does not coerce numeric strings or booleans', async (t) => {
    for (const value of ['42', '', true]) {
      t.same(
        one(field.integer(), value),
        { ok: false, errors: [{ field: 'v', code: 'Type', message: 'v must be an integer' }] },
        JSON.stringify(value),
      )
    }
  })

  t.test('keeps zero, which is not empty', async (t) => {
    t.same(one(field.integer().required().min(0), 0), { ok: true, value: { v: 0 } })
  })
})
