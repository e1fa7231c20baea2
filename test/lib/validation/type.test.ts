import t from 'tap'
import { expectTypeOf } from 'expect-type'
import {
  field,
  schema,
  type ArrayType,
  type EnumType,
  type Field,
  type Infer,
  type NumberField,
  type RecordType,
  type Schema,
  type StringField,
  type Type,
} from '../../../lib/validation/index.js'

t.test('Type presence', async (t) => {
  const S = schema({
    note: field.string().nullable(),
    size: field.integer().default(10).describe('page size'),
    name: field.string().required().optional(),
  })
  expectTypeOf<Infer<typeof S>>().toEqualTypeOf<{ size: number; note?: string | null; name?: string }>()

  t.test('required, optional and default keep the class of the type, with its presence', async (t) => {
    const Item = schema({ sku: field.string() })
    expectTypeOf(field.string().required()).toEqualTypeOf<StringField<true>>()
    expectTypeOf(field.string().required().optional()).toEqualTypeOf<StringField<false>>()
    expectTypeOf(field.integer().default(1)).toEqualTypeOf<NumberField<'integer', true>>()
    expectTypeOf(field.boolean().required()).toEqualTypeOf<Field<'boolean', true>>()
    expectTypeOf(field.string().required().equals('other')).toEqualTypeOf<StringField<true>>()
    expectTypeOf(Item.optional()).toEqualTypeOf<Schema<{ sku: StringField<false> }, false>>()
    expectTypeOf(field.array(field.string()).required()).toEqualTypeOf<ArrayType<StringField<false>, true>>()
    expectTypeOf(field.enum(['a', 'b']).required()).toEqualTypeOf<EnumType<'a' | 'b', true>>()
    expectTypeOf(field.record(field.integer()).required()).toEqualTypeOf<
      RecordType<NumberField<'integer', false>, true>
    >()
    expectTypeOf(field.lazy(() => Item, { name: 'Item' }).required()).toEqualTypeOf<Type<{ sku?: string }, true>>()
    t.pass('checked by the type checker')
  })

  t.test('nullable keeps null as a value; default fills a missing field', async (t) => {
    t.same(S.validate({ note: null }), { ok: true, value: { note: null, size: 10 } })
    t.same(S.validate({ note: 'x', size: 3 }), { ok: true, value: { note: 'x', size: 3 } })
  })

  t.test('each value gets its own copy of an object or array default', async (t) => {
    const D = schema({ tags: field.array(field.string()).default([]), meta: field.record(field.string()).default({}) })
    for (const coerce of [false, true]) {
      const first = D.validate({}, { coerce })
      t.ok(first.ok)
      if (first.ok) {
        first.value.tags.push('changed')
        first.value.meta['k'] = 'changed'
      }
      t.same(D.validate({}, { coerce }), { ok: true, value: { tags: [], meta: {} } }, `coerce: ${coerce}`)
    }
    const Strict = schema({ tags: field.array(field.string()).default(['a']), same: field.string().equals('tags') })
    const a = Strict.validate({})
    if (a.ok) a.value.tags.push('b')
    t.same(Strict.validate({}), { ok: true, value: { tags: ['a'] } }, 'on the closure path too')
    t.strictSame(D.json_schema(), {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, default: [] },
        meta: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
      },
    })
  })

  t.test('optional undoes required', async (t) => {
    t.same(S.validate({}), { ok: true, value: { size: 10 } })
  })

  t.test('the JSON Schema carries nullable, default and description; a defaulted field is not required', async (t) => {
    t.strictSame(S.json_schema(), {
      type: 'object',
      properties: {
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        size: { type: 'integer', description: 'page size', default: 10 },
        name: { type: 'string' },
      },
    })
  })
})

t.test('Type.check', async (t) => {
  t.test('a refinement that throws lets the error through to the caller', async (t) => {
    const S = schema({
      n: field.integer().check(() => {
        throw new Error('boom')
      }, 'never'),
    })
    t.throws(() => S.validate({ n: 1 }), { message: 'boom' })
  })
})

t.test("Type['~standard']", async (t) => {
  t.test('is a Standard Schema v1 of vendor fw', async (t) => {
    const S = schema({ items: field.array(field.object({ qty: field.integer().required() })).required() })
    const std = S['~standard']
    t.equal(std.version, 1)
    t.equal(std.vendor, 'fw')
    t.same(std.validate({ items: [{ qty: 1 }] }), { value: { items: [{ qty: 1 }] } })
    t.same(std.validate({ items: [{ qty: 'x' }] }), {
      issues: [{ message: 'qty must be an integer', path: ['items', '0', 'qty'] }],
    })
  })

  t.test("gives a key holding '/' or '~' whole in the issue's path", async (t) => {
    const std = schema({ m: field.record(field.integer()) })['~standard']
    t.same(std.validate({ m: { 'a/b': 'x', '~1': 'y' } }), {
      issues: [
        { message: 'm value must be an integer', path: ['m', 'a/b'] },
        { message: 'm value must be an integer', path: ['m', '~1'] },
      ],
    })
  })
})
