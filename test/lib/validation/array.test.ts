import t from 'tap'
import { field, schema } from '../../../lib/validation/index.js'
import { Rows, empty_rows } from './rows.js'

const Order = schema({
  items: field
    .array(field.object({ sku: field.string().required(), qty: field.integer().required().min(1) }).required())
    .required()
    .max_items(50),
})

/** The paths of a result's errors. */
function errors_of(r: { ok: boolean; errors?: ReadonlyArray<{ field: string }> }): string[] {
  return r.ok ? [] : r.errors!.map((e) => e.field)
}

t.test('ArrayType', async (t) => {
  t.test('names a failing item field by its path', async (t) => {
    const r = Order.validate({
      items: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 2 },
        { sku: 'c', qty: '3' },
      ],
    })
    t.same(r, { ok: false, errors: [{ field: 'items/2/qty', code: 'Type', message: 'qty must be an integer' }] })
  })

  t.test('returns the items, nested objects stripped of unknown keys', async (t) => {
    t.same(Order.validate({ items: [{ sku: 'a', qty: 1, extra: true }] }), {
      ok: true,
      value: { items: [{ sku: 'a', qty: 1 }] },
    })
  })

  t.test('refuses a value that is not an array, and counts outside the bounds', async (t) => {
    t.same(Order.validate({ items: { 0: 1 } }).ok ? 'ok' : Order.validate({ items: { 0: 1 } }), {
      ok: false,
      errors: [{ field: 'items', code: 'Type', message: 'items must be an array' }],
    })
    const many = Array.from({ length: 51 }, () => ({ sku: 'a', qty: 1 }))
    t.same(Order.validate({ items: many }), {
      ok: false,
      errors: [{ field: 'items', code: 'MaxLength', message: 'items must have at most 50 items' }],
    })
    const Tags = schema({ tags: field.array(field.string()).min_items(2, 'two tags at least') })
    t.same(Tags.validate({ tags: ['a'] }), {
      ok: false,
      errors: [{ field: 'tags', code: 'MinLength', message: 'two tags at least' }],
    })
  })

  t.test('checks a huge array without a stack overflow and keeps at most 100 errors', async (t) => {
    const Numbers = schema({ n: field.array(field.integer().required()).required() })
    const big = Array.from({ length: 1_000_000 }, (_, i) => i)
    const ok = Numbers.validate({ n: big })
    t.equal(ok.ok && ok.value.n.length, 1_000_000)
    const bad = Numbers.validate({ n: big.map(String) })
    t.equal(!bad.ok && bad.errors.length, 100)
    t.same(!bad.ok && bad.errors[99], { field: 'n/99', code: 'Type', message: 'n item must be an integer' })
  })

  t.test('keeps at most 100 errors when each item fails several fields, or a schema declares more', async (t) => {
    const rows = Rows.validate(empty_rows())
    t.equal(rows.ok ? 0 : rows.errors.length, 100)
    t.same(rows.ok ? undefined : rows.errors[99], { field: 'rows/33/a', code: 'Required', message: 'a is required' })
    const Wide = schema(
      Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, field.integer().required()])),
    )
    const wide = Wide.validate({})
    t.equal(wide.ok ? 0 : wide.errors.length, 100)
    const issues = Wide['~standard'].validate({}) as { issues: unknown[] }
    t.equal(issues.issues.length, 100, 'its Standard Schema issues alike')
  })

  t.test(
    'names item paths right in every call: after valid ones, past the kept paths, and under varying parents',
    async (t) => {
      const items = (n: number, bad: number): unknown[] =>
        Array.from({ length: n }, (_, i) => ({ sku: `s${i}`, qty: i === bad ? 0 : 1 }))
      // Valid bodies first: the check keeps the item paths it built for them.
      t.equal(Order.validate({ items: items(50, -1) }).ok, true)
      t.equal(Order.validate({ items: items(50, -1) }).ok, true)
      const min = (field: string) => ({
        ok: false,
        errors: [{ field, code: 'Min', message: 'qty must be at least 1' }],
      })
      t.same(Order.validate({ items: items(3, 2) }), min('items/2/qty'))
      t.same(Order.validate({ items: items(3, 0) }), min('items/0/qty'))
      const Long = schema({ items: field.array(field.object({ qty: field.integer().required().min(1) })).required() })
      t.same(Long.validate({ items: items(100, 70) }), min('items/70/qty'))
      t.same(Long.validate({ items: items(100, 63) }), min('items/63/qty'))
      t.same(Long.validate({ items: items(100, 64) }), min('items/64/qty'))
      // One array check under a path that changes with each outer item.
      const Groups = schema({ groups: field.array(field.object({ tags: field.array(field.integer()) })).required() })
      t.same(errors_of(Groups.validate({ groups: [{ tags: [1, 'x'] }, { tags: ['y'] }] })), [
        'groups/0/tags/1',
        'groups/1/tags/0',
      ])
      t.same(errors_of(Groups.validate({ groups: [{ tags: ['z'] }, { tags: [1, 2, 'w'] }] })), [
        'groups/0/tags/0',
        'groups/1/tags/2',
      ])
      // The same array under two fields, and an array at the root of a whole value.
      const Tags = field.array(field.integer())
      t.same(errors_of(schema({ a: Tags, b: Tags }).validate({ a: [1, 'x'], b: ['y'] })), ['a/1', 'b/0'])
      t.same(errors_of(Tags.validate([1, 2, 'x'])), ['2'])
    },
  )

  t.test('refuses item bounds that contradict each other at declaration', async (t) => {
    t.throws(() => field.array(field.string()).min_items(3).max_items(2), { code: 'FW_ERR_VALIDATION_BAD_LIMIT' })
    t.throws(() => field.array(field.string()).min_items(-1), { code: 'FW_ERR_VALIDATION_BAD_LIMIT' })
  })

  t.test('wraps a single query value into an array when coercing', async (t) => {
    const Q = schema({ tag: field.array(field.string()), n: field.array(field.integer()) })
    t.same(Q.validate({ tag: 'a', n: ['1', '2'] }, { coerce: true }), { ok: true, value: { tag: ['a'], n: [1, 2] } })
    t.same(Q.validate({ tag: 'a' }), {
      ok: false,
      errors: [{ field: 'tag', code: 'Type', message: 'tag must be an array' }],
    })
  })

  t.test('refuses a null item of an item type that is not nullable, as its JSON Schema does', async (t) => {
    // An item is never missing: `null` inside a `string[]` would reach the handler as `undefined`.
    const Tags = schema({ tags: field.array(field.string()) })
    t.strictSame(Tags.validate({ tags: ['a', null] }), {
      ok: false,
      errors: [{ field: 'tags/1', code: 'Required', message: 'tags item is required' }],
    })
    t.strictSame(Tags.validate({ tags: ['a', ''] }), { ok: true, value: { tags: ['a', ''] } })
    const Lists = schema({
      a: field.array(field.integer().nullable()),
      b: field.array(field.integer().default(0)),
      c: field.array(field.integer(), 'c must be a list'),
    })
    t.strictSame(Lists.validate({ a: [1, null], b: [1, null] }), { ok: true, value: { a: [1, null], b: [1, 0] } })
    t.strictSame(field.array(field.string()).validate([null]), {
      ok: false,
      errors: [{ field: '0', code: 'Required', message: 'value item is required' }],
    })
  })

  t.test('describes itself as JSON Schema', async (t) => {
    t.same(field.array(field.string().max_length(3)).min_items(1).json_schema(), {
      type: 'array',
      items: { type: 'string', maxLength: 3 },
      minItems: 1,
    })
  })
})
