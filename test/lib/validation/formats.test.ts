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
