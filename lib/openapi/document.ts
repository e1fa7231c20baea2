// The OpenAPI 3.1 document of an app, generated from its routes: operations, parameters, bodies, answers and security.
import type { RouteInfo } from '../app.js'
import type { Middleware } from '../compose.js'
import { Type, type JsonSchema } from '../validation/type.js'
import { declared_responses, validated_parts, type AnySchema, type RouteSchema } from '../validation/route.js'
import { with_components } from '../validation/lazy.js'
import { logger } from '../log/index.js'
import { json_schema_of } from './json-schema.js'
import { doc_of, type MiddlewareDoc, type SecurityScheme } from './middleware-doc.js'

/** The `info` object of the document: OpenAPI's Info object, copied as given. */
export interface OpenApiInfo {
  readonly title: string
  readonly version: string
  readonly summary?: string
  readonly description?: string
  readonly termsOfService?: string
  readonly contact?: { readonly name?: string; readonly url?: string; readonly email?: string }
  readonly license?: { readonly name: string; readonly identifier?: string; readonly url?: string }
}

/** A security requirement: scheme names, each with its scopes (`{ bearer_jwt: [] }`). */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>

/** What the document says beyond the routes. */
export interface DocumentOptions {
  readonly info: OpenApiInfo
  /** Where the API is reached; none or `[]` documents `[{ url: '/' }]`, OpenAPI's own default, said explicitly. */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[]
  /**
   * The security of every operation that says none of its own (no auth middleware, no route `security`): `[]` says
   * such routes are public.
   */
  readonly security?: readonly SecurityRequirement[]
  /** Descriptions of tags (a group's prefix is its routes' tag), listed in this order before the others. */
  readonly tags?: readonly { readonly name: string; readonly description?: string }[]
}

type Json = Record<string, unknown>

const log = logger('openapi')

const ERROR_SCHEMA = {
  type: 'object',
  properties: { ok: { const: false }, error: { type: 'string' }, message: { type: 'string' } },
  required: ['ok', 'error'],
}
const VALIDATION_SCHEMA = {
  type: 'object',
  properties: {
    ok: { const: false },
    error: { const: 'validation_failed' },
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'code', 'message'],
      },
    },
  },
  required: ['ok', 'error', 'message', 'errors'],
}

/** The document's own components, which no route's schema may take. */
const OWN_SCHEMAS = { Error: ERROR_SCHEMA, ValidationFailed: VALIDATION_SCHEMA }

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/**
 * Builds the document. Routes marked `hide` are left out, as are the automatic `HEAD` and `OPTIONS` answers (never
 * registered as routes). A Standard Schema that emits no JSON Schema leaves its part undescribed, with a warning.
 */
export function openapi_document(routes: readonly RouteInfo[], options: DocumentOptions): Json {
  // Recursive types (`field.lazy`) are described once each, under `components/schemas`, and referred to from the
  // routes.
  const { value: doc, components } = with_components(() => document_of(routes, options), OWN_SCHEMAS)
  const c = doc['components'] as { schemas: Record<string, unknown> }
  c.schemas = { ...components, ...c.schemas }
  return doc
}

function document_of(routes: readonly RouteInfo[], options: DocumentOptions): Json {
  const paths: Record<string, Record<string, Json>> = {}
  const schemes: Record<string, SecurityScheme> = {}
  const tags = new Set<string>()
  const shown = routes.filter((route) => route.schema?.hide !== true)
  const ids = operation_ids(shown)
  shown.forEach((route, i) => {
    const docs = route.middleware.map((m: Middleware) => doc_of(m)).filter((d): d is MiddlewareDoc => d !== undefined)
    for (const d of docs) Object.assign(schemes, d.security?.schemes)
    for (const alternative of route.schema?.security ?? []) Object.assign(schemes, alternative)
    const op = operation(route, docs, ids[i]!)
    for (const tag of (op['tags'] as string[] | undefined) ?? []) tags.add(tag)
    ;(paths[documented_path(route.path)] ??= {})[route.method.toLowerCase()] = op
  })
  const doc: Json = { openapi: '3.1.0', info: structuredClone(options.info) }
  // An empty or missing list means `/` (OpenAPI 3.1, Server Object); saying so keeps linters and generators from guessing.
  const servers = options.servers === undefined || options.servers.length === 0 ? [{ url: '/' }] : options.servers
  doc['servers'] = servers.map((s) => ({ ...s }))
  if (options.security !== undefined) doc['security'] = options.security.map((r) => structuredClone(r))
  const described = (options.tags ?? []).map((tag) => ({ ...tag }))
  for (const name of tags) if (!described.some((d) => d.name === name)) described.push({ name })
  if (described.length > 0) doc['tags'] = described
  doc['paths'] = paths
  doc['components'] = {
    schemas: { ...OWN_SCHEMAS },
    ...(Object.keys(schemes).length > 0 ? { securitySchemes: schemes } : {}),
  }
  return doc
}

/** A route's path as the document writes it: a trailing `/*` is the `{wildcard}` parameter. */
function documented_path(path: string): string {
  return path.replace(/\/\*$/, '/{wildcard}')
}

/**
 * Each route's `operationId`, unique as OpenAPI requires: its `operation_id`, else `<method>_<path>` from the
 * documented path (`get_users_id`, `get_files_wildcard`), with `_2`, `_3`... when another route already has that id
 * (`/users/{id}` and `/users/id`).
 */
function operation_ids(routes: readonly RouteInfo[]): string[] {
  const taken = new Set(routes.flatMap((r) => (r.schema?.operation_id === undefined ? [] : [r.schema.operation_id])))
  return routes.map((route) => {
    if (route.schema?.operation_id !== undefined) return route.schema.operation_id
    const base = `${route.method.toLowerCase()}${documented_path(route.path).replace(/[^A-Za-z0-9]+/g, '_')}`.replace(
      /_$/,
      '',
    )
    let id = base
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`
    taken.add(id)
    return id
  })
}

function operation(route: RouteInfo, docs: readonly MiddlewareDoc[], operation_id: string): Json {
  const s: RouteSchema = route.schema ?? {}
  const where = `${route.method} ${route.path}`
  const op: Json = {}
  const tags = s.tags ?? (route.group === '' ? undefined : [route.group.replace(/^\//, '')])
  if (tags !== undefined) op['tags'] = [...tags]
  // Every operation gets a summary (linters require one); the method and path say what a route does not.
  op['summary'] = s.summary ?? `${route.method} ${route.path}`
  if (s.description !== undefined) op['description'] = s.description
  op['operationId'] = operation_id
  if (s.deprecated === true) op['deprecated'] = true
  const parameters = [
    ...path_parameters(route, s.params),
    ...named_parameters('query', s.query, where),
    ...named_parameters('header', s.headers, where),
  ]
  if (parameters.length > 0) op['parameters'] = parameters
  if (s.body !== undefined) {
    const schema = json_schema_of(s.body, `${where} body`)
    op['requestBody'] = { required: true, content: { [s.body_type ?? 'application/json']: { schema: schema ?? {} } } }
  }
  op['responses'] = responses(s, docs, where)
  const security =
    s.security === undefined
      ? security_of(docs)
      : s.security.map((alternative) => Object.fromEntries(Object.keys(alternative).map((n) => [n, []])))
  if (security !== undefined) op['security'] = security
  return op
}

function path_parameters(route: RouteInfo, params: AnySchema | undefined): Json[] {
  const described = params === undefined ? {} : properties(params, `${route.method} ${route.path} params`).props
  // Each documented name with the key its value has in `params`: the wildcard is `{wildcard}` in the document, `*` in
  // the request (`req.param('*')`), so a params schema describes it under `*`.
  const names = [...route.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => [m[1]!, m[1]!] as const)
  if (route.path.endsWith('/*')) names.push(['wildcard', '*'])
  // Own properties only: a parameter named `constructor` must not find Object.prototype's.
  return names.map(([name, key]) => ({
    name,
    in: 'path',
    required: true,
    schema: (Object.hasOwn(described, key) ? described[key] : undefined) ?? { type: 'string' },
  }))
}

function named_parameters(where_in: 'query' | 'header', schema: AnySchema | undefined, where: string): Json[] {
  if (schema === undefined) return []
  const { props, required } = properties(schema, `${where} ${where_in}`)
  return Object.entries(props).flatMap(([name, s]) => {
    // OpenAPI ignores a header parameter named Authorization: credentials are a security scheme (`security`).
    if (where_in === 'header' && name.toLowerCase() === 'authorization') {
      log.logf('warn', 'parameter not documented', 'where', where, 'name', name, 'why', 'declare it as security')
      return []
    }
    const p: Json = { name, in: where_in, schema: s }
    if (required.includes(name)) p['required'] = true
    if (typeof s['description'] === 'string') p['description'] = s['description']
    return [p]
  })
}

/** The properties of an object schema, with the names it requires. */
function properties(schema: AnySchema, where: string): { props: Record<string, JsonSchema>; required: string[] } {
  const s = json_schema_of(schema, where)
  const props = (s?.['properties'] ?? {}) as Record<string, JsonSchema>
  return { props, required: (s?.['required'] ?? []) as string[] }
}

function responses(s: RouteSchema, docs: readonly MiddlewareDoc[], where: string): Json {
  const out: Record<string, Json> = {}
  // `never`: statuses the route says it never answers, left out even where fw would list them.
  const { answers, never } = declared_responses(s)
  for (const [status, { description, body }] of answers) {
    const r: Json = {
      description:
        description ?? (body instanceof Type ? body.spec.description : undefined) ?? REASONS[status] ?? 'Response',
    }
    const schema = body === undefined ? undefined : json_schema_of(body, `${where} response ${status}`)
    if (schema !== undefined) r['content'] = { 'application/json': { schema } }
    out[status] = r
  }
  const errors = new Map<number, Set<string>>()
  const add = (status: number, code: string): void =>
    void (errors.get(status) ?? errors.set(status, new Set()).get(status)!).add(code)
  // A form's body is read by the handler, not validated: a route with nothing else to validate never answers 400.
  if (validated_parts(s).length > 0) add(400, 'validation_failed')
  if (s.body !== undefined) add(413, 'payload_too_large')
  for (const d of docs)
    for (const [status, codes] of Object.entries(d.responses ?? {})) for (const c of codes) add(Number(status), c)
  for (const [status, codes] of [...errors].sort((a, b) => a[0] - b[0])) {
    if (out[status] !== undefined || never.has(status)) continue
    const only_validation = status === 400 && codes.size === 1 && codes.has('validation_failed')
    out[status] = {
      description: `${REASONS[status] ?? 'Error'}: ${[...codes].join(', ')}`,
      content: {
        'application/json': {
          schema: { $ref: only_validation ? '#/components/schemas/ValidationFailed' : '#/components/schemas/Error' },
        },
      },
    }
  }
  // Without a declared success the route may answer 200, 201 or 204 (a DELETE that sends nothing): promise only a 2XX.
  if (Object.keys(out).every((k) => Number(k) >= 400)) out['2XX'] = { description: 'Success' }
  return out
}

/** A middleware's requirement objects: its `requirements` (schemes together), else each scheme alone. */
function alternatives_of(d: MiddlewareDoc): Json[] {
  const sec = d.security!
  const lists = sec.requirements ?? Object.keys(sec.schemes).map((n) => [n])
  return lists.map((names) => Object.fromEntries(names.map((n) => [n, []])))
}

/**
 * Every refusing middleware's schemes must hold together; an optional one also lets requests without credentials in.
 */
function security_of(docs: readonly MiddlewareDoc[]): Json[] | undefined {
  const required = docs.filter((d) => d.security !== undefined && !d.security.optional)
  const optional = docs.filter((d) => d.security?.optional === true)
  if (required.length === 0 && optional.length === 0) return undefined
  let requirements: Json[] = [{}]
  for (const d of required) {
    const alternatives = alternatives_of(d)
    requirements = requirements.flatMap((r) => alternatives.map((a) => ({ ...r, ...a })))
  }
  for (const d of optional) requirements.push(...alternatives_of(d))
  if (required.length === 0) requirements = [...requirements.slice(1), {}]
  return requirements
}
