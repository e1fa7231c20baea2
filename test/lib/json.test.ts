import t from 'tap'
import { ERR_JSON_BAD_KEY, ERR_JSON_ODD_PAIRS, Json, json, pairs_to_object } from '../../lib/json.js'

t.test('pairs_to_object', async (t) => {
  t.test('keeps the insertion order of alternating keys and values', async (t) => {
    const o = pairs_to_object(['z', 1, 'a', 2, 'm', 3])
    t.same(Object.keys(o), ['z', 'a', 'm'])
    t.equal(JSON.stringify(o), '{"z":1,"a":2,"m":3}')
  })

  t.test('stores a __proto__ key as data without touching the prototype', async (t) => {
    const o = pairs_to_object(['__proto__', { polluted: 1 }])
    t.equal(Object.getPrototypeOf(o), Object.prototype)
    t.equal(JSON.stringify(o), '{"__proto__":{"polluted":1}}')
    t.equal((o as { polluted?: number }).polluted, undefined)
  })

  t.test('rejects an odd count and a non-string key at run time', async (t) => {
    t.throws(() => pairs_to_object(['a', 1, 'b']), {
      code: ERR_JSON_ODD_PAIRS.code,
      message: 'json() takes a value or alternating key/value arguments; got 3 arguments',
    })
    t.throws(() => pairs_to_object([7, 1]), {
      code: ERR_JSON_BAD_KEY.code,
      message: 'json() keys must be strings; got 7',
    })
  })
})

t.test('json.o', async (t) => {
  t.test('builds nested objects and arrays in order', async (t) => {
    const v = json.o(
      'id',
      7,
      'tags',
      json.array('a', 'b'),
      'empty',
      json.o(),
      'list',
      json.array(),
      'mixed',
      json.array(1, 'b', null),
    )
    t.equal(JSON.stringify(v), '{"id":7,"tags":["a","b"],"empty":{},"list":[],"mixed":[1,"b",null]}')
  })

  t.test('makes an odd count or a non-string key a type error', async (t) => {
    // @ts-expect-error the value of the last key is missing
    t.throws(() => json.o('id', 7, 'name'), { code: 'FW_ERR_JSON_ODD_PAIRS' })
    // @ts-expect-error keys are strings
    t.throws(() => json.o(1, 2), { code: 'FW_ERR_JSON_BAD_KEY' })
  })
})

t.test('Json', async (t) => {
  t.test('parses an object body', async (t) => {
    const j = new Json('{"name":"Ada","n":2}')
    t.equal(j.is_valid(), true)
    t.equal(j.is_object(), true)
    t.equal(j.is_array(), false)
    t.same(j.raw, { name: 'Ada', n: 2 })
  })

  t.test('treats malformed, empty, array, null and scalar bodies as not an object, never throwing', async (t) => {
    const cases: Array<[string, boolean, boolean, unknown]> = [
      ['{"a":', false, false, undefined],
      ['', false, false, undefined],
      ['[1,2]', true, true, [1, 2]],
      ['null', true, false, null],
      ['"text"', true, false, 'text'],
      ['42', true, false, 42],
    ]
    for (const [text, valid, array, raw] of cases) {
      const j = new Json(text)
      t.equal(j.is_object(), false, `${text} is not an object`)
      t.equal(j.is_valid(), valid, `${text} validity`)
      t.equal(j.is_array(), array, `${text} array`)
      t.same(j.raw, raw, `${text} raw`)
      t.equal(j.value('a', 'fallback'), 'fallback', `${text} value`)
    }
  })

  t.test('drops __proto__ and constructor.prototype keys without polluting Object.prototype', async (t) => {
    const a = new Json('{"__proto__":{"x":1},"a":2}')
    t.same(a.raw, { a: 2 })
    t.equal(a.value('x', 'none'), 'none')
    t.equal(a.value('__proto__', 'none'), 'none')
    const b = new Json('{"constructor":{"prototype":{"x":1}},"b":3}')
    t.equal(b.value('b', 0), 3)
    t.equal(b.value('x', 'none'), 'none')
    t.equal(({} as { x?: unknown }).x, undefined)
  })

  t.test('value returns the fallback when the field is missing or of another type', async (t) => {
    const j = new Json('{"s":"5","n":5,"b":true,"arr":[1],"obj":{"k":1},"nil":null,"zero":0,"empty":""}')
    t.equal(j.value('s', 'x'), '5')
    t.equal(j.value('s', 0), 0)
    t.equal(j.value('n', 0), 5)
    t.equal(j.value('n', ''), '')
    t.equal(j.value('b', false), true)
    t.equal(j.value('b', 'no'), 'no')
    t.same(j.value('arr', [] as number[]), [1])
    t.same(j.value('arr', {}), {})
    t.same(j.value('obj', {}), { k: 1 })
    t.same(j.value('obj', [] as unknown[]), [])
    t.equal(j.value('nil', 'x'), 'x')
    t.equal(j.value('zero', 9), 0)
    t.equal(j.value('empty', 'x'), '')
    t.equal(j.value('missing', 'x'), 'x')
    t.equal(j.value('toString', 'x'), 'x')
    t.equal(j.value('nil', null), null)
  })
})
