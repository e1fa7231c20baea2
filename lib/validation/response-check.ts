// Response checking (the App's `check_responses`): a route's buffered answer checked against the schema its `responses`
// declare for the status, so the OpenAPI document cannot drift from what the server sends unseen.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { clear_for_error } from '../error-answer.js'
import { httpCode } from '../errors.js'
import { is_thenable } from '../maybe-promise.js'
import type { Response } from '../response.js'
import { compile_part, declared_responses, type RouteSchema } from './route.js'
import type { ValidationResult } from './validation-error.js'

export const CODE_RESPONSE_INVALID = httpCode('response_invalid')

/** What the log line of a contradicting answer names: the route, the status sent, the first failing field and why. */
export interface ResponseMismatch {
  readonly route: string
  readonly status: number
  /** The field's path in the body (`user/email`), or `(body)` for the body itself. */
  readonly field: string
  readonly why: string
}

/**
 * A route's answer check, run where the answer is committed: an answer that contradicts the schema declared for its
 * status is replaced by 500 `response_invalid`, and the mismatch is returned for the log line (see `mismatch_pairs`).
 * A Standard Schema that validates asynchronously makes it a promise.
 */
export type ResponseCheck = (res: Response) => ResponseMismatch | undefined | Promise<ResponseMismatch | undefined>

type BodyCheck = (value: unknown) => ValidationResult<unknown> | Promise<ValidationResult<unknown>>

const decoders: Readonly<Record<string, (bytes: Buffer) => Buffer>> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
}

/** Marks a body that is not checked: an encoding no decoder reads. */
const UNREAD = Symbol('unread')
/** Marks a body that is not JSON. */
const NOT_JSON = Symbol('not json')

/**
 * Compiles, once per route, the check of its answers against the body schemas of its `responses` (`route` is `GET
 * /users/{id}`), or `undefined` when it declares none: such a route pays nothing. Statuses without a declared body
 * schema, files, streams and server-sent events pass untouched.
 */
export function response_check(route: string, schema: RouteSchema | undefined): ResponseCheck | undefined {
  const checks = new Map<number, BodyCheck>()
  for (const [status, { body }] of declared_responses(schema).answers) {
    if (body !== undefined) checks.set(status, compile_part('body', body).validate)
  }
  if (checks.size === 0) return undefined
  return function check_response(res) {
    const status = res.status_code
    const check = checks.get(status)
    if (check === undefined || res.kind === 'file' || res.streamed !== undefined) return undefined
    const value = body_value(res)
    if (value === UNREAD) return undefined
    if (value === NOT_JSON) return refuse(res, { route, status, field: '(body)', why: 'the body is empty or not JSON' })
    const result = check(value)
    if (is_thenable(result)) return Promise.resolve(result).then((r) => judged(res, route, status, r))
    return judged(res, route, status, result)
  }
}

function judged(
  res: Response,
  route: string,
  status: number,
  result: ValidationResult<unknown>,
): ResponseMismatch | undefined {
  if (result.ok) return undefined
  const first = result.errors[0]
  const field = first === undefined || first.field === '' ? '(body)' : first.field
  return refuse(res, { route, status, field, why: first?.message ?? 'the body does not match its schema' })
}

/** Replaces the answer with 500 `response_invalid`; the client learns nothing of the mismatch, the log line does. */
function refuse(res: Response, mismatch: ResponseMismatch): ResponseMismatch {
  clear_for_error(res)
  res.error(500, CODE_RESPONSE_INVALID, 'Internal Server Error')
  return mismatch
}

/** The parsed JSON of a buffered body (an empty one is no JSON), decoded first when a middleware compressed it. */
function body_value(res: Response): unknown {
  let bytes: string | Buffer = res.kind === 'none' ? '' : (res.payload ?? '')
  const encoding = res.get_header('content-encoding')?.trim().toLowerCase()
  if (encoding !== undefined && encoding !== 'identity') {
    const decode = decoders[encoding]
    if (decode === undefined) return UNREAD
    try {
      bytes = decode(Buffer.from(bytes))
    } catch {
      return NOT_JSON
    }
  }
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8')) as unknown
  } catch {
    return NOT_JSON
  }
}

/** The name fw writes a contradicting answer's line under: `[validation] [error]`. */
export const MISMATCH_LOGGER = 'validation'

/** The message of a contradicting answer's line, written at `error` with `mismatch_pairs`. */
export const MISMATCH_MESSAGE = 'response does not match its schema'

/**
 * The fields of a contradicting answer's line: `response does not match its schema route="GET /users/{id}" status=200
 * field=user/email why="email is required"`.
 */
export function mismatch_pairs(mismatch: ResponseMismatch): unknown[] {
  return ['route', mismatch.route, 'status', mismatch.status, 'field', mismatch.field, 'why', mismatch.why]
}
