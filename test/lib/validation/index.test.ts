import t from 'tap'
import * as validation from '../../../lib/validation/index.js'
import { import_graph } from '../../helpers/import-graph.js'

t.test('fw/validation', async (t) => {
  t.test('loads no package at all, so never fastify', async (t) => {
    const graph = import_graph('lib/validation/index.ts')
    t.same(graph.packages, [])
    t.ok(graph.files.includes('lib/errors.ts'), 'the walk follows imports out of the folder')
    t.ok(graph.files.includes('lib/validation/email.ts'), 'the walk follows re-exports')
  })

  t.test('exports the public surface', async (t) => {
    t.same(Object.keys(validation).sort(), [
      'ArrayType',
      'ERR_VALIDATION_BAD_LIMIT',
      'ERR_VALIDATION_BAD_OPTION',
      'ERR_VALIDATION_BAD_UNION',
      'ERR_VALIDATION_UNKNOWN_FIELD',
      'EnumType',
      'Field',
      'LazyType',
      'LiteralType',
      'NOT_AN_OBJECT',
      'NumberField',
      'RecordType',
      'Schema',
      'StringField',
      'Type',
      'UnionType',
      'ValidationErrorCode',
      'ValidationFailed',
      'code_point_length',
      'field',
      'is_date_time',
      'is_email',
      'is_uri',
      'is_uuid',
      'schema',
      'validation_body',
    ])
    t.same(Object.values(validation.ValidationErrorCode), [
      'Required',
      'Type',
      'Email',
      'MinLength',
      'MaxLength',
      'Min',
      'Max',
      'Custom',
      'Format',
      'Enum',
      'Unknown',
      'Depth',
    ])
  })
})
