import fc from 'fast-check'
import t from 'tap'
import { parse_form, type FormFields } from '../../../lib/body/form.js'

/** What URLSearchParams gives for `text`, in parse_form's shape: the reference a form within its limit must match. */
function reference(text: string): { form: FormFields; count: number } {
  const form = Object.create(null) as FormFields
  let count = 0
  for (const [name, value] of new URLSearchParams(text)) {
    count++
    const prev = form[name]
    if (prev === undefined) form[name] = value
    else if (typeof prev === 'string') form[name] = [prev, value]
    else prev.push(value)
  }
  return { form, count }
}

const OVER = { code: 'FW_ERR_BODY_OVER_LIMIT', message: 'too many form fields: the limit is 3' }

t.test('parse_form decodes as URLSearchParams does', async (t) => {
  const cases = [
    '',
    '&',
    '&&&',
    'a',
    'a=',
    '=',
    '=v',
    '==',
    'a==b',
    'a=1&a=2&a=3',
    'a+b=c+d',
    '%2B=%2b&%26=%3D',
    'e=%C3%A9&bad=%E9&half=%C3&pct=%&pct2=%4&pct3=%zz',
    '&&a=1&&b=2&&',
    '__proto__=p&constructor=c&toString=t&hasOwnProperty=h',
    'é=ü&%F0%9F%98%80=😀',
    'a=1;b=2',
    '\uFEFFa=1',
    '?',
    '?a=1',
    '??a',
    '?&',
    'a=\r\n&b=\u0000',
  ]
  for (const text of cases) t.same(parse_form(text, 1000), reference(text).form, JSON.stringify(text))
})

t.test('parse_form matches URLSearchParams on any body, and refuses exactly the bodies over the limit', async (t) => {
  const piece = fc.oneof(
    fc.constantFrom(
      '&',
      '?',
      '=',
      '+',
      '%',
      '%2',
      '%20',
      '%3D',
      '%26',
      '%2B',
      '%C3%A9',
      '%E9',
      '%zz',
      'a',
      'b',
      'é',
      '😀',
      '',
    ),
    fc.string({ maxLength: 4 }),
  )
  const body = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''))
  fc.assert(
    fc.property(body, fc.integer({ min: 0, max: 12 }), (text, max) => {
      const ref = reference(text)
      if (ref.count > max) {
        t.throws(() => parse_form(text, max), { code: 'FW_ERR_BODY_OVER_LIMIT' })
        return
      }
      t.same(parse_form(text, max), ref.form)
    }),
    { numRuns: 2000 },
  )
})

t.test('a body of exactly the limit passes; one field more is refused', async (t) => {
  t.same(parse_form('a=1&&b=2&a=3&', 3), reference('a=1&&b=2&a=3&').form)
  t.throws(() => parse_form('a=1&&b=2&a=3&c', 3), OVER)
  t.throws(() => parse_form('a&b&c&d', 3), OVER)
  // URLSearchParams drops a leading `?`: a body of it alone has no field, even under a limit of 0.
  t.same(parse_form('?', 0), reference('?').form)
  t.throws(() => parse_form('??', 0), { code: 'FW_ERR_BODY_OVER_LIMIT' })
})

t.test('refuses a body over the field limit before parsing it', async (t) => {
  const original = globalThis.URLSearchParams
  let parsed = 0
  globalThis.URLSearchParams = class extends original {
    constructor(...args: ConstructorParameters<typeof URLSearchParams>) {
      super(...args)
      parsed++
    }
  }
  t.teardown(() => void (globalThis.URLSearchParams = original))
  t.throws(() => parse_form('a&'.repeat(512 * 1024), 1000), {
    code: 'FW_ERR_BODY_OVER_LIMIT',
    message: 'too many form fields: the limit is 1000',
  })
  t.equal(parsed, 0, 'the 1 MiB body was not handed to URLSearchParams')
})
