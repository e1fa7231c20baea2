import { request } from 'node:http'
import { PassThrough } from 'node:stream'
import t from 'tap'
import {
  MAX_VALUE_CHARS,
  cap,
  field_text,
  first_error,
  format_message,
  json_safe,
  set_field,
  text_of,
} from '../../../lib/log/values.js'
import { hostile, throwing } from './hostile.js'

t.test('cap', async (t) => {
  t.test('keeps text up to 8192 characters as it is', async (t) => {
    t.equal(MAX_VALUE_CHARS, 8192)
    const text = 'a'.repeat(8192)
    t.equal(cap(text), text)
  })

  t.test('cuts longer text and says how many characters were cut', async (t) => {
    t.equal(cap('b'.repeat(10_000)), `${'b'.repeat(8192)}...[truncated 1808 chars]`)
  })

  t.test('never cuts a surrogate pair in half', async (t) => {
    const text = `${'c'.repeat(8191)}😀tail`
    t.equal(cap(text), `${'c'.repeat(8191)}...[truncated 6 chars]`)
  })

  t.test('leaves text it cut already as it is, so the count stays that of the original', async (t) => {
    const once = cap('b'.repeat(10_000))
    t.equal(cap(once), once)
    const pair = cap(`${'c'.repeat(8191)}😀tail`)
    t.equal(cap(pair), pair)
    const longer = `${'d'.repeat(8192)}...[truncated 5 chars] and more`
    t.equal(cap(longer), `${'d'.repeat(8192)}...[truncated 31 chars]`)
  })
})

t.test('format_message', async (t) => {
  t.test('replaces each {} with the next argument', async (t) => {
    t.equal(format_message('user {} signed in from {}', [42, '10.0.0.1']), 'user 42 signed in from 10.0.0.1')
    t.equal(format_message('{}{}', ['a', 'b']), 'ab')
  })

  t.test('leaves placeholders without an argument as written and ignores extra arguments', async (t) => {
    t.equal(format_message('a {} b {}', [1]), 'a 1 b {}')
    t.equal(format_message('no placeholder', [1, 2]), 'no placeholder')
    t.equal(format_message('kept {}', []), 'kept {}')
    t.equal(format_message('{ } and {x} are text', [1]), '{ } and {x} are text')
  })

  t.test('renders every kind of argument as text', async (t) => {
    const f = function named(): void {}
    const args = [undefined, null, true, 10n, Symbol('s'), { a: [1, 'x'] }, new TypeError('bad'), f, () => 0]
    t.equal(
      format_message('{} {} {} {} {} {} {} {} {}', args),
      'undefined null true 10 Symbol(s) {"a":[1,"x"]} TypeError: bad [Function named] [Function anonymous]',
    )
  })

  t.test('caps the finished message', async (t) => {
    t.equal(format_message('{}', ['d'.repeat(9000)]), `${'d'.repeat(8192)}...[truncated 808 chars]`)
  })

  t.test('renders a format that is not a string', async (t) => {
    t.equal(format_message({ a: 1 } as unknown as string, []), '{"a":1}')
  })
})

t.test('first_error', async (t) => {
  t.test('finds the first Error among the arguments', async (t) => {
    const a = new Error('a')
    t.equal(first_error([1, 'x', a, new Error('b')]), a)
    t.equal(first_error([1, { message: 'not an error' }]), undefined)
  })
})

t.test('text_of', async (t) => {
  t.test('shows strings as they are and objects as compact JSON', async (t) => {
    t.equal(text_of('a b'), 'a b')
    t.equal(text_of({ n: 1, s: 'x y', u: undefined }), '{"n":1,"s":"x y"}')
    t.equal(text_of([1, undefined]), '[1,null]')
  })
})

t.test('field_text', async (t) => {
  t.test('shows an error by its stack, followed by its causes', async (t) => {
    const root = new Error('disk full')
    const err = new Error('save failed', { cause: root })
    t.equal(field_text(err), `${err.stack}\ncaused by: ${root.stack}`)
    const plain = new RangeError('no stack')
    plain.stack = ''
    t.equal(field_text(plain), 'RangeError: no stack')
    t.equal(
      field_text(new Error('x', { cause: 'a string' }))
        .split('\n')
        .at(-1),
      'caused by: a string',
    )
  })

  t.test("shows an AggregateError's errors after its own stack, as JSON lines keep them", async (t) => {
    const one = new Error('primary down')
    const two = new TypeError('replica refused')
    const agg = new AggregateError([one, two, 'a reason'], 'every replica failed')
    t.equal(field_text(agg), `${agg.stack}\nerror 0: ${one.stack}\nerror 1: ${two.stack}\nerror 2: a reason`)
    const many = new AggregateError(
      Array.from({ length: 12 }, (_, i) => `r${i}`),
      'many',
    )
    t.equal(
      field_text(many)
        .split('\n')
        .filter((l) => l.startsWith('error ')).length,
      10,
      'the first 10 of them',
    )
    t.match(field_text(many), /\n\.\.\. 2 more errors$/)
  })

  t.test('caps long values', async (t) => {
    t.equal(field_text('e'.repeat(8200)), `${'e'.repeat(8192)}...[truncated 8 chars]`)
  })
})

t.test('json_safe', async (t) => {
  t.test('keeps JSON values and makes the rest representable', async (t) => {
    t.same(json_safe({ s: 's', n: 1.5, b: false, z: null }), { s: 's', n: 1.5, b: false, z: null })
    t.equal(json_safe(undefined), null)
    t.equal(json_safe(NaN), 'NaN')
    t.equal(json_safe(-Infinity), '-Infinity')
    t.equal(json_safe(12345678901234567890n), '12345678901234567890')
    t.equal(json_safe(Symbol.iterator), 'Symbol(Symbol.iterator)')
    t.same(json_safe({ u: undefined, a: [undefined] }), { a: [null] })
    t.equal(json_safe(new Date(0)), '1970-01-01T00:00:00.000Z')
    t.same(
      json_safe(
        new Map<unknown, unknown>([
          [1, 'one'],
          ['k', new Set([1, 2])],
        ]),
      ),
      { 1: 'one', k: [1, 2] },
    )
  })

  t.test('marks cycles and cuts deep nesting', async (t) => {
    const a: Record<string, unknown> = { name: 'a' }
    a.self = a
    t.same(json_safe(a), { name: 'a', self: '[Circular]' })
    const shared = { x: 1 }
    t.same(json_safe({ p: shared, q: shared }), { p: { x: 1 }, q: { x: 1 } })
    const deep = { l1: { l2: { l3: { l4: { l5: { l6: { l7: 1 } } } } } } }
    t.same(json_safe(deep), { l1: { l2: { l3: { l4: { l5: { l6: '[Object]' } } } } } })
  })

  t.test('keeps at most 100 items or keys per level', async (t) => {
    const list = json_safe(Array.from({ length: 105 }, (_, i) => i)) as unknown[]
    t.equal(list.length, 101)
    t.equal(list[100], '...[5 more items]')
    const obj = json_safe(Object.fromEntries(Array.from({ length: 102 }, (_, i) => [`k${i}`, i]))) as Record<
      string,
      unknown
    >
    t.equal(Object.keys(obj).length, 101)
    t.equal(obj['...'], '2 more keys')
  })

  t.test('turns an error into type, message, stack, its own fields and its cause', async (t) => {
    const cause = new Error('inner')
    const err = Object.assign(new TypeError('outer', { cause }), { code: 'E_OUTER', status: 502 })
    t.same(json_safe(err), {
      type: 'TypeError',
      message: 'outer',
      stack: err.stack,
      code: 'E_OUTER',
      status: 502,
      cause: { type: 'Error', message: 'inner', stack: cause.stack },
    })
    const agg = json_safe(new AggregateError([new Error('one')], 'many')) as { errors: Array<{ message: string }> }
    t.equal(agg.errors[0]!.message, 'one')
  })

  t.test('never throws on a getter or toJSON that throws', async (t) => {
    const bad = {
      toJSON: () => {
        throw new Error('no')
      },
    }
    const getter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('no')
      },
    })
    t.same(json_safe({ bad, getter, ok: 1 }), { bad: '[Unserializable]', getter: '[Unserializable]', ok: 1 })
  })

  t.test("writes a credential header's value inside an error's own fields as [redacted], at any depth", async (t) => {
    const cause = { headers: { cookie: 'sid=1' } }
    const err = Object.assign(new Error('Request failed with status code 401', { cause }), {
      authorization: 'Bearer top',
      config: {
        headers: { Authorization: 'Bearer tok', 'X-API-KEY': 'k-1', Accept: 'application/json' },
        data: { password: 'pw' },
        // An axios error's headers are an AxiosHeaders, which gives them through toJSON.
        nested: { toJSON: () => ({ 'Proxy-Authorization': 'Basic eA==', 'set-cookie': ['a=1', 'b=2'] }) },
        list: [new Map([['Cookie', 'c=2']])],
      },
    })
    const copy = json_safe(err) as Record<string, unknown>
    t.same(copy.config, {
      headers: { Authorization: '[redacted]', 'X-API-KEY': '[redacted]', Accept: 'application/json' },
      data: { password: 'pw' },
      nested: { 'Proxy-Authorization': '[redacted]', 'set-cookie': '[redacted]' },
      list: [{ Cookie: '[redacted]' }],
    })
    t.equal(copy.authorization, '[redacted]')
    t.same(copy.cause, { headers: { cookie: '[redacted]' } })
    t.same(
      json_safe({ err, headers: { authorization: 'kept' } }),
      { err: copy, headers: { authorization: 'kept' } },
      'outside an error a value is written as logged (redact_headers is for that)',
    )
    t.equal(err.config.headers.Authorization, 'Bearer tok', 'the error itself is not changed')
    t.notMatch(field_text(new Error('x', { cause })), /sid=1/, 'nor in the stack text of a KV field')
  })

  t.test('caps long strings inside objects', async (t) => {
    t.same(json_safe({ s: 'f'.repeat(8193) }), { s: `${'f'.repeat(8192)}...[truncated 1 chars]` })
  })

  t.test('keeps a __proto__ key as data', async (t) => {
    const input = JSON.parse('{"__proto__":{"polluted":true}}') as object
    const out = json_safe(input) as Record<string, unknown>
    t.equal(Object.getPrototypeOf(out), Object.prototype)
    t.equal(JSON.stringify(out), '{"__proto__":{"polluted":true}}')
  })
})

/** A revoked Proxy: even Array.isArray throws on it. */
function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

t.test("json_safe writes a Node stream as its class name: an HTTP client error's request holds its head", async (t) => {
  const req = request({ host: '127.0.0.1', port: 9, headers: { authorization: 'Bearer tok-secret' } })
  req.on('error', () => {})
  req.end()
  t.teardown(() => req.destroy())
  t.match(req.getHeader('authorization'), 'Bearer tok-secret', 'the request carries the credential')
  const err = Object.assign(new Error('Request failed with status code 401'), {
    request: req,
    stream: new PassThrough(),
  })
  const copy = json_safe(err) as Record<string, unknown>
  t.same([copy.request, copy.stream], ['[ClientRequest]', '[PassThrough]'])
  t.notMatch(JSON.stringify(json_safe({ err, plain: req })), /tok-secret/)
})

t.test('a value that throws when read', async (t) => {
  const U = '[Unserializable]'
  const nameless = Object.defineProperty(function f() {}, 'name', {
    get: () => {
      throw new Error('no name')
    },
  })
  const values = [throwing('message'), throwing('name'), hostile(), revoked(), nameless]

  t.test('is the placeholder in a message, never a throw', async (t) => {
    for (const v of values) {
      t.equal(text_of(v), U)
      t.equal(format_message('a {} b', [v]), `a ${U} b`)
      t.equal(format_message(v as unknown as string, []), U, 'as the format itself')
    }
  })

  t.test('is no error for first_error unless it is one', async (t) => {
    t.equal(first_error([hostile(), revoked()]), undefined)
    const err = throwing('message')
    t.equal(first_error([hostile(), err]), err)
  })

  t.test('is the placeholder as a KV field and as a JSON value, at any depth', async (t) => {
    for (const v of [throwing('message'), throwing('stack'), hostile(), revoked()]) t.equal(json_safe(v), U)
    t.match(json_safe(throwing('name')), { type: 'Error', message: 'hidden' }, 'an error is written as far as it reads')
    for (const v of [hostile(), revoked(), throwing('stack')]) t.equal(field_text(v), U)
    const err = throwing('message')
    // Its stack was formatted before `message` began to throw (Node 24 keeps it behind an accessor, not as a value).
    t.equal(field_text(err), err.stack, 'a KV field shows a stack it can read')
    const deep = { l1: { l2: { l3: { l4: { l5: { l6: revoked() } } } } } }
    t.same(json_safe(deep), { l1: { l2: { l3: { l4: { l5: { l6: U } } } } } })
  })
})

t.test('set_field', async (t) => {
  t.test('sets ordinary keys and a __proto__ key as own data', async (t) => {
    const target: Record<string, unknown> = {}
    set_field(target, 'a', 1)
    set_field(target, '__proto__', { evil: 1 })
    t.equal(Object.getPrototypeOf(target), Object.prototype)
    t.equal(JSON.stringify(target), '{"a":1,"__proto__":{"evil":1}}')
  })
})
