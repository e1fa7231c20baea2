import { spawnSync } from 'node:child_process'
import t from 'tap'
import { field, schema } from '../../../lib/validation/index.js'
import { literal } from '../../../lib/validation/object-code.js'

/** A test name for `key` that keeps TAP's line-based output intact. */
const name = (key: string): string => `key ${[...key].map((c) => c.charCodeAt(0).toString(16)).join(' ')}`

/**
 * Keys and values that would break out of a string literal, a comment or a template if written into source unescaped.
 */
const NASTY = [
  'a"b',
  "a'b",
  'a\\b',
  'a\\',
  '*/x/*',
  '${process.exit(1)}',
  'line\nbreak',
  'cr\rx',
  'ls\u2028ps\u2029',
  '`tick`',
  '</script>',
  '__proto__',
  'constructor',
  '',
]

t.test('literal', async (t) => {
  t.test('reads back as the same string and contains no raw line terminator', async (t) => {
    for (const key of NASTY) {
      const source = literal(key)
      t.notMatch(source, /[\n\r\u2028\u2029]/, name(key))
      t.equal(new Function(`return ${source}`)(), key, name(key))
    }
  })
})

t.test('object_code', async (t) => {
  const shape = Object.fromEntries(
    NASTY.map((key, i) => [key, i % 2 === 0 ? field.string().required() : field.enum([key, `${key}2`]).required()]),
  )
  const S = schema(shape).strict()

  t.test(
    'validates keys that hold quotes, backslashes, comment ends, template openers and line terminators',
    async (t) => {
      const value = Object.fromEntries(NASTY.map((key) => [key, key]))
      const input = JSON.parse(JSON.stringify(value)) as Record<string, unknown>
      // JSON.parse keeps `__proto__` as an own key, as a request body would.
      const result = S.validate(input)
      t.equal(result.ok, true)
      if (!result.ok) return
      t.same(Object.keys(result.value), NASTY)
      for (const key of NASTY) t.equal(Object.getOwnPropertyDescriptor(result.value, key)?.value, key, name(key))
      t.equal(Object.getPrototypeOf(result.value), Object.prototype)
    },
  )

  t.test(
    'builds the same value, in declaration order, whether every member has a value or some are missing',
    async (t) => {
      const P = schema({
        b: field.string().required(),
        ['__proto__']: field.string(),
        a: field.integer().default(7),
        note: field.string(),
      })
      // Every member present (one object literal), and with `note` missing (key by key).
      for (const [text, expected] of [
        ['{"note":"n","a":1,"__proto__":"p","b":"x","extra":true}', ['b', '__proto__', 'a', 'note']],
        ['{"a":1,"__proto__":"p","b":"x"}', ['b', '__proto__', 'a']],
        ['{"b":"x","note":"n"}', ['b', 'a', 'note']],
      ] as const) {
        const input = JSON.parse(text) as Record<string, unknown>
        const result = P.validate(input)
        t.equal(result.ok, true, text)
        if (!result.ok) continue
        const value = result.value as Record<string, unknown>
        t.same(Object.keys(value), expected, text)
        t.equal(Object.getPrototypeOf(value), Object.prototype, text)
        t.not(value, input, 'a new object, never the input')
        for (const key of expected) {
          t.same(
            Object.getOwnPropertyDescriptor(value, key),
            {
              value: key === 'a' && !('a' in input) ? 7 : input[key],
              writable: true,
              enumerable: true,
              configurable: true,
            },
            `${text}: ${key}`,
          )
        }
      }
      const first = P.validate(JSON.parse('{"b":"x","a":1,"note":"n"}'))
      const second = P.validate(JSON.parse('{"b":"x","a":1,"note":"n"}'))
      t.ok(first.ok && second.ok && first.value !== second.value, 'each call its own value')
    },
  )

  t.test('names each failing key verbatim in its message and, `~` and `/` escaped, in its path', async (t) => {
    const result = S.validate({ 'a"b': 1, 'x\u2028y': 3 })
    t.equal(result.ok, false)
    if (result.ok) return
    const by_field = new Map(result.errors.map((e) => [e.field, e]))
    t.same(by_field.get('a"b'), { field: 'a"b', code: 'Type', message: 'a"b must be a string' })
    t.same(by_field.get('${process.exit(1)}'), {
      field: '${process.exit(1)}',
      code: 'Required',
      message: '${process.exit(1)} is required',
    })
    // A path segment writes the key's `/` as `~1` (RFC 6901), so `*/x/*` is one key, not three.
    t.same(by_field.get('*~1x~1*'), { field: '*~1x~1*', code: 'Required', message: '*/x/* is required' })
    t.same(by_field.get('x\u2028y'), { field: 'x\u2028y', code: 'Unknown', message: 'x\u2028y is not allowed' })
  })

  t.test('refuses an enum value that differs only by an escape', async (t) => {
    const E = schema({ 'k"': field.enum(['a"b', 'a\\b']).required() })
    t.same(E.validate({ 'k"': 'a"b' }), { ok: true, value: { 'k"': 'a"b' } })
    t.same(E.validate({ 'k"': 'a\\"b' }), {
      ok: false,
      errors: [{ field: 'k"', code: 'Enum', message: 'k" must be one of a"b, a\\b' }],
    })
  })
})

t.test('object_code without code generation', async (t) => {
  t.test('validates through the general path when the process forbids code from strings', async (t) => {
    const script = `import { field, schema } from './lib/validation/index.js'
const S = schema({ a: field.integer().required(), b: field.string() })
console.log(JSON.stringify([S.validate({ a: 'x' }), S.validate({ a: 1, b: 'y', c: 2 })]))`
    const run = spawnSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    )
    t.equal(run.status, 0, run.stderr)
    t.same(JSON.parse(run.stdout), [
      { ok: false, errors: [{ field: 'a', code: 'Type', message: 'a must be an integer' }] },
      { ok: true, value: { a: 1, b: 'y' } },
    ])
  })
})
