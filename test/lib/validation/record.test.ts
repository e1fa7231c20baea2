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

  t.test('describes itself as JSON Schema', async (t) => {
    t.same(field.record(field.string()).json_schema(), { type: 'object', additionalProperties: { type: 'string' } })
  })
})
