import t from 'tap'
import { expectTypeOf } from 'expect-type'
import { field, schema, type Infer } from '../../../lib/validation/index.js'

const Payment = schema({
  method: field
    .union('type', [
      field.object({ type: field.literal('card').required(), last4: field.string().required().length(4, 4) }),
      field.object({ type: field.literal('iban').required(), iban: field.string().required() }),
    ])
    .required(),
})

t.test('UnionType', async (t) => {
  expectTypeOf<Infer<typeof Payment>['method']>().toEqualTypeOf<
    { type: 'card'; last4: string } | { type: 'iban'; iban: string }
  >()

  t.test('validates the option its tag names', async (t) => {
    t.same(Payment.validate({ method: { type: 'iban', iban: 'DE89', last4: 'x' } }), {
      ok: true,
      value: { method: { type: 'iban', iban: 'DE89' } },
    })
    t.same(Payment.validate({ method: { type: 'card', last4: '12' } }), {
      ok: false,
      errors: [{ field: 'method/last4', code: 'MinLength', message: 'last4 must be 4 to 4 characters' }],
    })
  })

  t.test('refuses an unknown tag on the tag field', async (t) => {
    t.same(Payment.validate({ method: { type: 'cash' } }), {
      ok: false,
      errors: [{ field: 'method/type', code: 'Enum', message: 'type must be one of card, iban' }],
    })
    t.same(Payment.validate({ method: [] }), {
      ok: false,
      errors: [{ field: 'method', code: 'Type', message: 'method must be an object' }],
    })
  })

  t.test('refuses options without a literal tag, or with a repeated one, at declaration', async (t) => {
    t.throws(() => field.union('type', [field.object({ type: field.string() })]), {
      code: 'FW_ERR_VALIDATION_BAD_UNION',
    })
    const a = field.object({ type: field.literal('a') })
    t.throws(() => field.union('type', [a, a]), { code: 'FW_ERR_VALIDATION_BAD_UNION', message: /"a" appears twice/ })
  })

  t.test('describes itself as oneOf with a discriminator', async (t) => {
    const s = Payment.shape.method.json_schema()
    t.same(s['discriminator'], { propertyName: 'type' })
    t.equal((s['oneOf'] as unknown[]).length, 2)
  })

  t.test(
    'its JSON Schema requires the tag in every option, as the check does, even when the literal is optional',
    async (t) => {
      const U = field.union('type', [
        field.object({ type: field.literal('a'), x: field.integer() }),
        field.object({ type: field.literal('b').required(), y: field.integer().required() }),
      ])
      t.same(U.validate({}), {
        ok: false,
        errors: [{ field: 'type', code: 'Enum', message: 'type must be one of a, b' }],
      })
      const options = (U.json_schema()['oneOf'] as Record<string, unknown>[]).map((o) => o['required'])
      t.same(options, [['type'], ['type', 'y']])
    },
  )
})
