import { readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import * as validation from '../../../lib/validation/index.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..')
const SPECIFIER = /(?:from|import)\s*\(?\s*'([^']+)'/g
/** Type-only imports are erased from the JavaScript, so they load nothing. */
const TYPE_ONLY = /^import type [^;\n]*?from '[^']+'$/gm

/** Every module `entry` reaches through static imports and re-exports: the files read, and the package names imported. */
function module_graph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const [, spec] of readFileSync(file, 'utf8').replace(TYPE_ONLY, '').matchAll(SPECIFIER)) {
      if (spec === undefined) continue
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')))
      else packages.add(spec)
    }
  }
  visit(join(root, entry))
  return { files: [...files].map((f) => relative(root, f)).sort(), packages: [...packages].sort() }
}

t.test('fw/validation', async (t) => {
  t.test('loads no package at all, so never fastify', async (t) => {
    const graph = module_graph('lib/validation/index.ts')
    t.same(graph.packages, [])
    t.ok(graph.files.includes('lib/errors.ts'), 'the walk follows imports out of the folder')
    t.ok(graph.files.includes('lib/validation/email.ts'), 'the walk follows re-exports')
  })

  t.test('exports the public surface', async (t) => {
    t.same(Object.keys(validation).sort(), [
      'ArrayType',
      'ERR_VALIDATION_BAD_LIMIT',
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
      'code_point_length',
      'field',
      'is_date_time',
      'is_email',
      'is_schema',
      'is_uri',
      'is_uuid',
      'schema',
      'validated',
      'validation_body',
    ])
    t.same(Object.values(validation.ValidationErrorCode), [
      'Required', 'Type', 'Email', 'MinLength', 'MaxLength', 'Min', 'Max', 'Custom', 'Format', 'Enum', 'Unknown', 'Depth',
    ])
  })
})
