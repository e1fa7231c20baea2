// The JSON Schema of a route schema: native for fw types, through Standard JSON Schema for libraries that emit it (zod
// 4).
import { logger } from '../log/index.js'
import { Type, type JsonSchema } from '../validation/type.js'
import type { AnySchema } from '../validation/route.js'

const log = logger('openapi')

type JsonSchemaConverter = { input: (options: { target: string }) => Record<string, unknown> }

/**
 * The JSON Schema (draft 2020-12) of `schema`, or `undefined` with a warning naming `where` when the library cannot
 * emit one: that part of the route is then documented without a schema.
 */
export function json_schema_of(schema: AnySchema, where: string): JsonSchema | undefined {
  if (schema instanceof Type) return schema.json_schema()
  const std = schema['~standard'] as { vendor: string; jsonSchema?: JsonSchemaConverter }
  if (typeof std.jsonSchema?.input !== 'function') {
    log.logf(
      'warn',
      'schema not documented',
      'where',
      where,
      'vendor',
      std.vendor,
      'why',
      'the library emits no JSON Schema (Standard JSON Schema)',
    )
    return undefined
  }
  try {
    const { $schema: _, ...out } = std.jsonSchema.input({ target: 'draft-2020-12' })
    return out
  } catch (err) {
    log.logf('warn', 'schema not documented', 'where', where, 'vendor', std.vendor, 'why', (err as Error).message)
    return undefined
  }
}
