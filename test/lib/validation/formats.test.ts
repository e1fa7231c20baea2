import t from 'tap'
import { field, is_date_time, is_uri, is_uuid, schema } from '../../../lib/validation/index.js'

t.test('is_uuid', async (t) => {
  t.ok(is_uuid('123e4567-e89b-12d3-a456-426614174000'))
  for (const bad of ['123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400g', ''])
    t.notOk(is_uuid(bad), bad)
})

t.test('is_uri', async (t) => {
  for (const good of ['https://example.com/x?y=1', 'urn:isbn:0451450523', 'mailto:ada@example.com'])
    t.ok(is_uri(good), good)
  for (const bad of ['example.com', '/relative', 'http://exa mple.com', '']) t.notOk(is_uri(bad), bad)
})

t.test('is_date_time', async (t) => {
  for (const good of ['2026-11-25T02:30:00Z', '2026-02-28T23:59:60.123+01:00', '2024-02-29T00:00:00z'])
    t.ok(is_date_time(good), good)
  for (const bad of [
    '2026-11-25',
    '2026-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-25T24:00:00Z',
    '2026-11-25T02:30:00',
  ])
    t.notOk(is_date_time(bad), bad)
})

t.test('is_date_time takes any number of fractional-second digits, and at least one', async (t) => {
  // RFC 3339 section 5.6: time-secfrac = "." 1*DIGIT.
  for (const good of [
    '2024-01-02T03:04:05.1Z',
    '2024-01-02T03:04:05.123456789Z',
    '2024-01-02T03:04:05.1234567891Z',
    '2024-01-02T03:04:05.123456789123456789+01:00',
  ])
    t.equal(is_date_time(good), true, good)
  t.equal(is_date_time(`2024-01-02T03:04:05.${'9'.repeat(1000)}z`), true, 'a fraction of 1,000 digits')
  for (const bad of [
    '2024-01-02T03:04:05.Z',
    '2024-01-02T03:04:05.+01:00',
    '2024-01-02T03:04:05.',
    '2024-01-02T03:04:05.1234567891',
    '2024-01-02T03:04:05.12345678x1Z',
    '2024-01-02T03:04:05.1234567891Z ',
    '2024-01-02T03:04:05.1234567891+24:00',
  ])
    t.equal(is_date_time(bad), false, bad)
  // The handler gets the string as sent; `new Date` reads it, extra digits and all.
  const at = '2024-01-02T03:04:05.1234567891Z'
  const S = schema({ at: field.string().date_time().required() })
  t.strictSame(S.validate({ at }), { ok: true, value: { at } })
  t.equal(new Date(at).toISOString(), '2024-01-02T03:04:05.123Z')
  t.strictSame(S.validate({ at: '2024-01-02T03:04:05.Z' }), {
    ok: false,
    errors: [{ field: 'at', code: 'Format', message: 'at must be a valid date-time' }],
  })
})

t.test('StringField formats', async (t) => {
  const S = schema({ id: field.string().uuid(), site: field.string().uri('bad site'), at: field.string().date_time() })
  t.same(S.validate({ id: 'x', site: 'y', at: 'z' }), {
    ok: false,
    errors: [
      { field: 'id', code: 'Format', message: 'id must be a valid uuid' },
      { field: 'site', code: 'Format', message: 'bad site' },
      { field: 'at', code: 'Format', message: 'at must be a valid date-time' },
    ],
  })
  t.same(S.json_schema(), {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      site: { type: 'string', format: 'uri' },
      at: { type: 'string', format: 'date-time' },
    },
  })
})

t.test('StringField.uri({ schemes }) accepts only the listed schemes, in any case', async (t) => {
  const Link = schema({ href: field.string().uri({ schemes: ['http', 'https'] }) })
  for (const good of ['https://example.com/a', 'HTTP://example.com', 'Https://example.com:8443/x?y#z'])
    t.same(Link.validate({ href: good }), { ok: true, value: { href: good } }, good)
  const refused = { field: 'href', code: 'Format', message: 'href must be a valid uri (scheme http or https)' }
  for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', 'ftp://example.com', 'https//x'])
    t.same(Link.validate({ href: bad }), { ok: false, errors: [refused] }, bad)
  t.same(
    field
      .string()
      .uri({ schemes: ['https'], message: 'https only' })
      .validate('http://a.example'),
    {
      ok: false,
      errors: [{ field: '', code: 'Format', message: 'https only' }],
    },
  )
  t.same(Link.json_schema().properties, {
    href: { type: 'string', format: 'uri', pattern: '^(?:[Hh][Tt][Tt][Pp]|[Hh][Tt][Tt][Pp][Ss]):' },
  })
  const pattern = field
    .string()
    .uri({ schemes: ['git+ssh', 'x-1.a'] })
    .json_schema()['pattern'] as string
  t.equal(pattern, '^(?:[Gg][Ii][Tt][+][Ss][Ss][Hh]|[Xx][-]1[.][Aa]):')
  t.ok(
    new RegExp(pattern, 'u').test('GIT+SSH://host/x') && !new RegExp(pattern, 'u').test('gitXssh:'),
    'a valid u-mode pattern',
  )
  t.same(field.string().uri().validate('javascript:alert(1)').ok, true, 'without schemes any scheme is a uri')
  for (const schemes of [[], ['http:'], ['1http'], 'http'])
    t.throws(() => field.string().uri({ schemes: schemes as string[] }), { code: 'FW_ERR_VALIDATION_BAD_LIMIT' })
})
