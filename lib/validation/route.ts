// Route schemas: what a route declares of its input and answers, and the validation step that runs before its handler.
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Handler, Middleware } from '../compose.js'
import type { Request } from '../request.js'
import type { Response } from '../response.js'
import { ArrayType } from './array.js'
import { RecordType } from './record.js'
import { Schema, type Infer } from './schema.js'
import { Type, capped, child_path, run_check, type Check } from './type.js'
import { UnionType } from './union.js'
import { ERR_VALIDATION_BAD_OPTION, ERR_VALIDATION_FLAT_PART } from './errors.js'
import { is_thenable } from '../maybe-promise.js'
import { option_checker } from '../options.js'
import { validation_body, ValidationFailed } from './validation-body.js'
import { ValidationErrorCode, type ValidationError, type ValidationResult } from './validation-error.js'

/** A schema a route accepts: an fw type (usually `schema({...})`) or any Standard Schema (zod 4, valibot, arktype). */
export type AnySchema = Type<unknown, boolean> | StandardSchemaV1

/** The parts of a request a route can validate. */
export type InputPart = 'body' | 'query' | 'params' | 'headers'

/** One documented answer: a description and, optionally, the schema of its JSON body. */
export interface ResponseDoc {
  readonly description?: string
  readonly body?: AnySchema
}

/**
 * A route's `responses` as the document and the response check read them, once checked (`check_schema`): each declared
 * status with its description and body schema (a bare schema is the body), and the statuses it never answers (`false`).
 */
export function declared_responses(schema: RouteSchema | undefined): {
  answers: Map<number, ResponseDoc>
  never: Set<number>
} {
  const answers = new Map<number, ResponseDoc>()
  const never = new Set<number>()
  for (const [status, entry] of Object.entries(schema?.responses ?? {})) {
    if (entry === false) never.add(Number(status))
    else answers.set(Number(status), is_schema(entry) ? { body: entry } : entry)
  }
  return { answers, never }
}

/**
 * What a route declares besides its handler: middleware of its own, its input schemas (validated before the handler,
 * after all the route's middleware) and its documentation for the OpenAPI document.
 */
export interface RouteSchema {
  /**
   * Middleware of this route alone, run in order after the prefix middleware that covers it (`app.use`, a group's
   * `use`) and before validation: with `{ use: adapt_ctx(auth.jwt({ secret })), body: Order }`, a caller without a
   * token gets 401 before the body is read. The OpenAPI document describes them as it does prefix middleware.
   */
  readonly use?: Middleware | readonly Middleware[]
  readonly body?: AnySchema
  readonly query?: AnySchema
  readonly params?: AnySchema
  readonly headers?: AnySchema
  /**
   * The media type of the body (default `application/json`). A form (`application/x-www-form-urlencoded`,
   * `multipart/form-data`) is read by the handler (`req.form()`, `req.multipart()`): its `body` schema documents it, and
   * is not validated.
   */
  readonly body_type?: 'application/json' | 'application/x-www-form-urlencoded' | 'multipart/form-data'
  /**
   * Answers by status: a schema of the JSON body, or a description with an optional schema. `false` says the route never
   * answers that status, leaving out of the OpenAPI document an answer fw would list (the 400 of validation when an
   * `on_error` answers it with another status, say).
   */
  readonly responses?: Readonly<Record<number, AnySchema | ResponseDoc | false>>
  readonly summary?: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly operation_id?: string
  readonly deprecated?: boolean
  /**
   * The route's security in the OpenAPI document, when its handler checks credentials itself: a list of alternatives,
   * each naming the schemes that must all hold (`[{ bearer: { type: 'http', scheme: 'bearer' } }]`); `[]` says the route
   * is public. It replaces what the auth middleware on the route describe. Nothing is enforced by it.
   */
  readonly security?: readonly Readonly<Record<string, Readonly<Record<string, unknown>>>>[]
  /** Leaves the route out of the OpenAPI document (static files, the document itself). */
  readonly hide?: boolean
  /**
   * `false`: the schemas only document the route, and the handler validates itself (to keep answers a schema cannot
   * give).
   */
  readonly validate?: false
}

/** The validated values a route's schema gives its handler, by part. */
export type ValidOf<O> = { [K in keyof O & InputPart]: Infer<O[K]> }

type Validator = (value: unknown) => ValidationResult<unknown> | Promise<ValidationResult<unknown>>
/**
 * One part's validation: `check` when it is an fw type (synchronous, compiled), else a Standard Schema's `validate`.
 */
export interface PartCheck {
  readonly part: InputPart
  readonly validate: Validator
  readonly check: Check | undefined
  readonly prefix: string
}

/** A part's check with what it reads of the request. */
interface RouteCheck extends PartCheck {
  readonly read: (req: Request) => unknown
}

const PARTS: readonly InputPart[] = ['body', 'query', 'params', 'headers']

const read_body = (req: Request): unknown => req.json().raw
const read_query = (req: Request): unknown => req.query()
const read_params = (req: Request): unknown => req.raw.params
const read_headers = (req: Request): unknown => req.raw.headers

/**
 * What the check of `part` reads. Header names arrive lowercased (Node), and compare case-insensitively: a field an fw
 * schema names `X-Count` reads the `x-count` header, under its declared name. A header an fw schema declares as an array
 * is a comma-separated list (RFC 9110 list syntax, OpenAPI's `simple` style): Node has already joined a repeated header
 * with `", "`, so its values are split on commas, trimmed of spaces and tabs, and empty ones ignored. A path parameter
 * an fw schema declares as an array is a comma-separated list too (`params_reader`).
 */
function reader(part: InputPart, schema: AnySchema): (req: Request) => unknown {
  if (part === 'params') return params_reader(schema)
  if (part !== 'headers') return part === 'body' ? read_body : read_query
  const shape = shape_of(schema)
  const spelled = Object.keys(shape).filter((n) => n !== n.toLowerCase())
  const lists = array_fields(shape)
  if (spelled.length === 0 && lists.length === 0) return read_headers
  return (req) => {
    const headers = req.raw.headers
    const view: Record<string, unknown> = { ...headers }
    for (const name of lists) {
      const lower = name.toLowerCase()
      // A list of no element (`X-Tag: ,`) names no value: the field is missing, as an empty query value is.
      if (Object.hasOwn(headers, lower)) view[lower] = list_items(headers[lower])
    }
    for (const name of spelled) {
      const lower = name.toLowerCase()
      if (!Object.hasOwn(headers, lower)) continue
      view[name] = view[lower]
      delete view[lower]
    }
    return view
  }
}

/** The fields of an fw schema (none for a Standard Schema, which reads the parts as they come). */
const shape_of = (schema: AnySchema): Record<string, Type<unknown, boolean>> =>
  schema instanceof Schema ? (schema.shape as Record<string, Type<unknown, boolean>>) : {}

/** The names of the fields declared as arrays. */
const array_fields = (shape: Record<string, Type<unknown, boolean>>): string[] =>
  Object.keys(shape).filter((n) => shape[n] instanceof ArrayType)

/**
 * What the check of `params` reads: the router's parameters, a field an fw schema declares as an array split on its
 * commas (OpenAPI's default style for a path parameter, `simple`: `/items/1,2` is `['1', '2']`), empty items ignored.
 * The router has decoded the value, so a comma sent as `%2C` separates items too: an item cannot hold a comma.
 */
function params_reader(schema: AnySchema): (req: Request) => unknown {
  const lists = array_fields(shape_of(schema))
  if (lists.length === 0) return read_params
  return (req) => {
    const view: Record<string, unknown> = { ...(req.raw.params as Record<string, unknown>) }
    for (const name of lists) {
      const value = view[name]
      if (typeof value !== 'string') continue
      const items = value.split(',').filter((item) => item !== '')
      view[name] = items.length === 0 ? undefined : items
    }
    return view
  }
}

/**
 * The elements of a list header, joined by Node or sent as one comma-separated value: `"a, b,,c"` is `a`, `b`, `c`.
 * Quoted strings are not parsed: a comma inside quotes separates too, as OpenAPI's `simple` style has it.
 */
function list_items(value: string | string[] | undefined): string[] | undefined {
  const items: string[] = []
  for (const line of typeof value === 'string' ? [value] : (value ?? []))
    for (const item of line.split(',')) {
      // Optional whitespace (RFC 9110): spaces and tabs, trimmed by index rather than by a backtracking pattern.
      let start = 0
      let end = item.length
      while (start < end && (item[start] === ' ' || item[start] === '\t')) start++
      while (end > start && (item[end - 1] === ' ' || item[end - 1] === '\t')) end--
      if (end > start) items.push(item.slice(start, end))
    }
  return items.length === 0 ? undefined : items
}

/**
 * The parts of `schema` that are validated before the handler: those it declares, except a form's `body`, which the
 * handler reads (`body_type`). `validate: false` is not considered here.
 */
export function validated_parts(schema: RouteSchema): InputPart[] {
  const form = schema.body_type !== undefined && schema.body_type !== 'application/json'
  return PARTS.filter((p) => schema[p] !== undefined && !(form && p === 'body'))
}

/**
 * Whether `value` is a Standard Schema that is not an fw type: any object or function (arktype's types are functions)
 * whose `~standard` has a `validate` function.
 */
function is_standard(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || !('~standard' in value))
    return false
  const std = value['~standard'] as { validate?: unknown } | null
  return typeof std === 'object' && std !== null && typeof std.validate === 'function'
}

/** The parts whose values are text: a query string's keys are flat, a path parameter and a header one string each. */
const FLAT_PARTS = ['query', 'params', 'headers'] as const
const WHY_FLAT: Readonly<Record<(typeof FLAT_PARTS)[number], string>> = {
  query: 'no query string gives (it is flat: `?a[b]=1` is the key "a[b]")',
  params: 'no path parameter gives (it is one string)',
  headers: 'no header gives (it is one string)',
}

/**
 * What a field of a text part is when no text can give it, else `undefined`: an object (`field.object`), a record or a
 * union, or an array of one of them. A `field.lazy` is not resolved here (it may refer to a type not declared yet).
 */
function nested_kind(type: Type<unknown, boolean>, item = false): string | undefined {
  const of = item ? 'an array of ' : ''
  if (type instanceof Schema) return item ? `${of}objects` : 'an object'
  if (type instanceof RecordType) return item ? `${of}records` : 'a record'
  if (type instanceof UnionType) return item ? `${of}unions` : 'a union'
  if (type instanceof ArrayType && !item) return nested_kind(type.spec.item, true)
  return undefined
}

const A_SCHEMA = 'an fw schema or a Standard Schema (a value whose "~standard" has a validate function)'

/**
 * Refuses, at registration, a part or an answer of `schema` that no validator or document could read (a plain JSON
 * Schema object, a string), naming the route `where` and the key; and a field of a query, params or headers schema
 * that no request could give (an object: the query string is not parsed into nested objects).
 */
function check_schema(schema: RouteSchema, where: string): void {
  const check = option_checker(ERR_VALIDATION_BAD_OPTION, where)
  for (const part of PARTS) {
    const s = schema[part]
    if (s !== undefined && !is_schema(s)) check.fail(part, A_SCHEMA, s)
  }
  for (const part of FLAT_PARTS) {
    const s = schema[part]
    if (!(s instanceof Schema)) continue
    for (const [name, type] of Object.entries(s.shape as Record<string, Type<unknown, boolean>>)) {
      const kind = nested_kind(type)
      if (kind !== undefined) throw ERR_VALIDATION_FLAT_PART(where, part, name, kind, WHY_FLAT[part])
    }
  }
  for (const [status, entry] of Object.entries(schema.responses ?? {})) {
    if (entry === false) continue
    const body: unknown = is_schema(entry) || typeof entry !== 'object' || entry === null ? entry : entry.body
    if (body !== undefined && !is_schema(body))
      check.fail(`responses[${status}]`, `${A_SCHEMA}, { description, body? }, or false`, body)
  }
}

/**
 * Compiles one part's validator at startup. Body errors name their field (`items/2/qty`); other parts are prefixed with
 * the part (`query/page`). Query strings, path parameters and headers are coerced (see `docs/validation.md`). Answers'
 * bodies are compiled as a `body` (`response-check.ts`).
 */
export function compile_part(part: InputPart, schema: AnySchema): PartCheck {
  const prefix = part === 'body' ? '' : part
  if (schema instanceof Type) {
    const options = { coerce: part !== 'body' }
    const check = schema.root(options, part)
    return { part, prefix, check, validate: (value) => run_check(check, value, prefix) }
  }
  const std = (schema as StandardSchemaV1)['~standard']
  const to_result = (r: StandardSchemaV1.Result<unknown>): ValidationResult<unknown> =>
    r.issues === undefined
      ? { ok: true, value: r.value }
      : { ok: false, errors: r.issues.map((i) => issue_error(prefix, i)) }
  // A result that comes later may be any thenable (a promise library's, another realm's), not only a native Promise:
  // told apart by its callable `then` and adopted into a native promise, which the callers below wait for.
  const validate: Validator = (value) => {
    const r = std.validate(value)
    return is_thenable(r) ? Promise.resolve(r).then(to_result) : to_result(r)
  }
  return { part, prefix, check: undefined, validate }
}

/**
 * A Standard Schema issue as an error entry, its path written as fw writes its own (`child_path`): a key's `~` and `/`
 * become `~0` and `~1`, so a record key `a/b` is `tags/a~1b` whichever library checked it.
 */
function issue_error(prefix: string, issue: StandardSchemaV1.Issue): ValidationError {
  let field = prefix
  for (const segment of issue.path ?? []) {
    const k = typeof segment === 'object' ? segment.key : segment
    field = child_path(field, typeof k === 'number' ? k : String(k))
  }
  return {
    field,
    code: ValidationErrorCode.Custom,
    message: issue.message,
  }
}

/** Whether an `on_error` covers the request: then a failed validation is thrown to it as a `ValidationFailed`. */
export type Mapped = (req: Request) => boolean

const NEVER_MAPPED: Mapped = () => false

/**
 * Wraps `handler` with the validation of every part `schema` declares: an invalid request answers 400
 * `validation_failed` with every part's errors (or, when `mapped(req)`, throws them as a `ValidationFailed` for the
 * App's `on_error`), and the handler never runs; a valid one reaches it with `req.valid(part)` set. A refinement that
 * throws fails the request like a throwing handler (500, logged). A part or answer that is not a schema fails here, at
 * registration, with `FW_ERR_VALIDATION_BAD_OPTION` naming the route `where`.
 */
export function validated(
  schema: RouteSchema,
  handler: Handler,
  where: string,
  mapped: Mapped = NEVER_MAPPED,
): Handler {
  check_schema(schema, where)
  if (schema.validate === false) return handler
  const checks: RouteCheck[] = validated_parts(schema).map((part) => ({
    ...compile_part(part, schema[part]!),
    read: reader(part, schema[part]!),
  }))
  if (checks.length === 0) return handler
  if (checks.every((c) => c.check !== undefined)) return compiled_then_handle(checks, handler, mapped)
  return function validate_then_handle(req, res) {
    const results = new Array<ValidationResult<unknown> | Promise<ValidationResult<unknown>>>(checks.length)
    let waiting = false
    for (let i = 0; i < checks.length; i++) {
      const c = checks[i]!
      const r = (results[i] = c.validate(c.read(req)))
      if (is_thenable(r)) waiting = true
    }
    if (waiting) return Promise.all(results).then((done) => finish(checks, done, req, res, handler, mapped))
    return finish(checks, results as ValidationResult<unknown>[], req, res, handler, mapped)
  }
}

/** The validation step of a route whose every part is an fw type: synchronous, and no result objects on success. */
function compiled_then_handle(checks: readonly RouteCheck[], handler: Handler, mapped: Mapped): Handler {
  const n = checks.length
  return function validate_then_handle(req, res) {
    const values = new Array<unknown>(n)
    let errors: ValidationError[] | undefined
    for (let i = 0; i < n; i++) {
      const c = checks[i]!
      // Each part collects its own errors, so the cap on collected errors applies per part.
      const part_errors: ValidationError[] = []
      values[i] = c.check!(c.read(req), c.prefix, part_errors)
      if (part_errors.length > 0)
        errors = errors === undefined ? capped(part_errors) : errors.concat(capped(part_errors))
    }
    if (errors !== undefined) return refuse(errors, req, res, mapped)
    for (let i = 0; i < n; i++) req.set_valid(checks[i]!.part, values[i])
    return handler(req, res)
  }
}

/** Answers 400 with every part's errors, or stores each part's valid value and runs the handler. */
function finish(
  checks: readonly PartCheck[],
  done: readonly ValidationResult<unknown>[],
  req: Request,
  res: Response,
  handler: Handler,
  mapped: Mapped,
): unknown {
  let errors: ValidationError[] | undefined
  for (const r of done) if (!r.ok) (errors ??= []).push(...r.errors)
  if (errors !== undefined) return refuse(errors, req, res, mapped)
  for (let i = 0; i < done.length; i++) {
    const r = done[i]!
    if (r.ok) req.set_valid(checks[i]!.part, r.value)
  }
  return handler(req, res)
}

/**
 * Refuses invalid input: in place with 400 `validation_failed`, as the route always has, or thrown to the `on_error`
 * that covers the request, so that it can answer in a shape of its own.
 */
function refuse(errors: readonly ValidationError[], req: Request, res: Response, mapped: Mapped): void {
  if (mapped(req)) throw new ValidationFailed(errors)
  res.status(400).json(validation_body(errors))
}

/**
 * Whether `value` is a schema a route accepts (for documentation: a response entry may be a schema or a `ResponseDoc`).
 */
export function is_schema(value: unknown): value is AnySchema {
  return value instanceof Type || is_standard(value)
}
