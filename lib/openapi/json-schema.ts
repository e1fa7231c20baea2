// The JSON Schema of a route schema: native for fw types, through Standard JSON Schema for libraries that emit it (zod
// 4).
import { logger } from '../log/index.js'
import { set_field } from '../log/values.js'
import { Type, type JsonSchema } from '../validation/type.js'
import { component_name, document_components } from '../validation/lazy.js'
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
    return hoist_definitions(out, where)
  } catch (err) {
    log.logf('warn', 'schema not documented', 'where', where, 'vendor', std.vendor, 'why', (err as Error).message)
    return undefined
  }
}

const COMPONENTS = '#/components/schemas/'

/**
 * Moves a library's `$defs` (zod's named and recursive schemas) into the document's `components/schemas`, and the
 * schema itself when it refers to itself (`$ref: "#"`), named after `where`: inside the document, `#` is the document,
 * so those references would point nowhere. A name another schema already has gets `_2`, `_3`... Outside a document the
 * schema is self-contained and is left as it is.
 */
function hoist_definitions(schema: JsonSchema, where: string): JsonSchema {
  const components = document_components()
  if (components === undefined || !has_ref(schema, '#', true)) return schema
  const { $defs, ...root } = schema
  const defs = Object.entries(($defs ?? {}) as Record<string, JsonSchema>)
  const root_base = component_name(where)
  // Names are settled before anything is rewritten, since definitions refer to each other and to themselves.
  const as_named = (ref: string): string | undefined =>
    ref === '#' ? COMPONENTS + root_base : def_ref(ref, (name) => component_name(name))
  const names = new Map<string, string>()
  for (const [name, def] of defs) names.set(name, claim(components, component_name(name), rewrite(def, as_named)))
  const self = has_ref(schema, '#') ? claim(components, root_base, rewrite(root, as_named)) : undefined
  const final = (ref: string): string | undefined =>
    ref === '#' ? COMPONENTS + self : def_ref(ref, (name) => names.get(name))
  for (const [name, def] of defs) components.set(names.get(name)!, rewrite(def, final) as JsonSchema)
  const out = rewrite(root, final) as JsonSchema
  if (self === undefined) return out
  components.set(self, out)
  return { $ref: COMPONENTS + self }
}

/** `base`, or `base_2`, `base_3`... : the first name free or already holding `schema`, reserved for it. */
function claim(components: Map<string, JsonSchema>, base: string, schema: unknown): string {
  const text = JSON.stringify(schema)
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}_${n}`
    const held = components.get(name)
    if (held === undefined) {
      components.set(name, {})
      return name
    }
    if (JSON.stringify(held) === text) return name
  }
}

/** `#/$defs/<name>...` pointed at the component `to(name)` names, or `undefined` for any other reference. */
function def_ref(ref: string, to: (name: string) => string | undefined): string | undefined {
  const m = /^#\/\$defs\/([^/]+)(.*)$/.exec(ref)
  if (m === null) return undefined
  const name = to(m[1]!.replace(/~1/g, '/').replace(/~0/g, '~'))
  return name === undefined ? undefined : COMPONENTS + name + m[2]!
}

/** A copy of `value` with each `$ref` that `map` knows replaced. */
function rewrite(value: unknown, map: (ref: string) => string | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, map))
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    const ref = key === '$ref' && typeof v === 'string' ? map(v) : undefined
    set_field(out, key, ref ?? rewrite(v, map))
  }
  return out
}

/** Whether `value` holds the `$ref` `ref` (or, with `prefix`, one starting with it). */
function has_ref(value: unknown, ref: string, prefix = false): boolean {
  if (typeof value !== 'object' || value === null) return false
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string' && (prefix ? v.startsWith(ref) : v === ref)) return true
    if (has_ref(v, ref, prefix)) return true
  }
  return false
}
