import t from 'tap'
import { field, schema } from '../../../lib/validation/index.js'

t.test('field', async (t) => {
  t.test('builds an optional field of each JSON type with its default type message', async (t) => {
    const s = schema({ s: field.string(), i: field.integer(), n: field.number(), b: field.boolean() })
    t.same(s.validate({}), { ok: true, value: {} })
    t.same(s.validate({ s: 1, i: 'x', n: 'x', b: 'true' }), {
      ok: false,
      errors: [
        { field: 's', code: 'Type', message: 's must be a string' },
        { field: 'i', code: 'Type', message: 'i must be an integer' },
        { field: 'n', code: 'Type', message: 'n must be a number' },
        { field: 'b', code: 'Type', message: 'b must be a boolean' },
      ],
    })
  })

  t.test('uses a given type message', async (t) => {
    const s = schema({ age: field.integer('age must be a whole number') })
    t.same(s.validate({ age: 1.5 }), {
      ok: false,
      errors: [{ field: 'age', code: 'Type', message: 'age must be a whole number' }],
    })
  })

  t.test('returns values of each type unchanged', async (t) => {
    const s = schema({ s: field.string(), i: field.integer(), n: field.number(), b: field.boolean() })
    t.same(s.validate({ s: 'x', i: 2, n: 2.5, b: true }), { ok: true, value: { s: 'x', i: 2, n: 2.5, b: true } })
  })

  t.test('offers only the rules of the type', async (t) => {
    // @ts-expect-error email is a string rule
    t.throws(() => field.integer().email(), TypeError)
    // @ts-expect-error min_length is a string rule
    t.throws(() => field.boolean().min_length(1), TypeError)
    // @ts-expect-error min is a number rule
    t.throws(() => field.string().min(1), TypeError)
  })
})
