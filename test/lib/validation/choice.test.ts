import t from 'tap'
import { expectTypeOf } from 'expect-type'
import { field, schema, type Infer } from '../../../lib/validation/index.js'

t.test('EnumType', async (t) => {
  const S = schema({ status: field.enum(['draft', 'published']).default('draft'), level: field.enum([1, 2, 3]) })
  expectTypeOf<Infer<typeof S>>().toEqualTypeOf<{ status: 'draft' | 'published'; level?: 1 | 2 | 3 }>()

  t.test('accepts a listed value and applies the default when missing', async (t) => {
    t.same(S.validate({ status: 'published', level: 2 }), { ok: true, value: { status: 'published', level: 2 } })
    t.same(S.validate({}), { ok: true, value: { status: 'draft' } })
  })

  t.test('refuses any other value with Enum', async (t) => {
    t.same(S.validate({ status: 'gone', level: '2' }), {
      ok: false,
      errors: [
        { field: 'status', code: 'Enum', message: 'status must be one of draft, published' },
        { field: 'level', code: 'Enum', message: 'level must be one of 1, 2, 3' },
      ],
    })
  })

  t.test('reads a query string value as the listed number', async (t) => {
    t.same(S.validate({ level: '2' }, { coerce: true }), { ok: true, value: { status: 'draft', level: 2 } })
  })

  t.test('describes itself as JSON Schema, a defaulted field optional', async (t) => {
    // A client may leave `status` out (the default fills it in), so the document must not require it.
    t.strictSame(S.json_schema(), {
      type: 'object',
      properties: { status: { enum: ['draft', 'published'], default: 'draft' }, level: { enum: [1, 2, 3] } },
    })
  })
})

t.test('LiteralType', async (t) => {
  const S = schema({ v: field.literal(1).required() })
  t.same(S.validate({ v: 1 }), { ok: true, value: { v: 1 } })
  t.same(S.validate({ v: 2 }), { ok: false, errors: [{ field: 'v', code: 'Enum', message: 'v must be 1' }] })
  t.same(S.json_schema(), { type: 'object', properties: { v: { const: 1 } }, required: ['v'] })
})
