import t from 'tap'
import { field, schema } from '../../../lib/validation/index.js'

t.test('RecordType', async (t) => {
  const Stock = schema({ stock: field.record(field.integer().required().min(0)).required() })

  t.test('checks every value and names a failing one by its key', async (t) => {
    t.same(Stock.validate({ stock: { apples: 3, pears: -1 } }), {
      ok: false,
      errors: [{ field: 'stock/pears', code: 'Min', message: 'stock value must be at least 0' }],
    })
  })

  t.test("names a key holding '/' or '~' as a JSON Pointer does, apart from a nested path", async (t) => {
    const Nested = schema({ stock: field.record(field.record(field.integer().min(0))) })
    t.same(Nested.validate({ stock: { 'a/b': { c: -1 }, a: { 'b/c': -1 }, '~1': { x: -1 } } }), {
      ok: false,
      errors: [
        { field: 'stock/a~1b/c', code: 'Min', message: 'stock value value must be at least 0' },
        { field: 'stock/a/b~1c', code: 'Min', message: 'stock value value must be at least 0' },
        { field: 'stock/~01/x', code: 'Min', message: 'stock value value must be at least 0' },
      ],
    })
  })

  t.test('keeps __proto__ and constructor keys as plain data, never as a prototype', async (t) => {
    const input = JSON.parse('{"stock":{"__proto__":{"polluted":1},"constructor":2,"toString":3}}') as unknown
    const r = Stock.validate(input)
    t.equal(r.ok, false, 'the __proto__ value is an object, not an integer')
    const ok = Stock.validate(JSON.parse('{"stock":{"__proto__":1,"constructor":2}}'))
    t.ok(ok.ok)
    const value = ok.ok ? ok.value.stock : {}
    t.same(Object.keys(value), ['__proto__', 'constructor'])
    t.equal(Object.getPrototypeOf(value), null)
    t.equal(({} as Record<string, unknown>)['polluted'], undefined)
  })

  t.test('refuses a null value of a value type that is not nullable, as its JSON Schema does', async (t) => {
    // A value is never missing: `null` in a `Record<string, number>` was dropped, while `additionalProperties` refuses it.
    const Counts = schema({ counts: field.record(field.integer()) })
    t.strictSame(Counts.validate({ counts: { a: 1, b: null } }), {
      ok: false,
      errors: [{ field: 'counts/b', code: 'Required', message: 'counts value is required' }],
    })
    t.strictSame(field.record(field.string()).validate({ x: null }), {
      ok: false,
      errors: [{ field: 'x', code: 'Required', message: 'value value is required' }],
    })
    t.strictSame(Stock.validate({ stock: { apples: null } }), {
      ok: false,
      errors: [{ field: 'stock/apples', code: 'Required', message: 'stock value is required' }],
    })
    const Maps = schema({
      a: field.record(field.integer().nullable()),
      b: field.record(field.integer().default(0)),
      c: field.record(field.string()),
    })
    const r = Maps.validate({ a: { x: 1, y: null }, b: { x: 1, y: null }, c: { x: '' } })
    t.same(r, { ok: true, value: { a: { x: 1, y: null }, b: { x: 1, y: 0 }, c: { x: '' } } })
    t.same(r.ok && Object.keys(r.value.a!), ['x', 'y'])
    // A JavaScript `undefined` (not JSON) is still left out, as JSON.stringify leaves it out.
    const u = Counts.validate({ counts: { a: 1, b: undefined } })
    t.same(u.ok && Object.keys(u.value.counts!), ['a'])
  })

  t.test('describes itself as JSON Schema', async (t) => {
    t.same(field.record(field.string()).json_schema(), { type: 'object', additionalProperties: { type: 'string' } })
  })
})
