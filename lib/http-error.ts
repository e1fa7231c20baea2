// Errors users throw to answer with a status and a code, and the one builder of fw's `{ok:false, error, message}` body.
import { defineError } from './errors.js'
import { BAD_HEADER_VALUE, HEADER_VALUE_RULE, HTTP_TOKEN } from './http-token.js'
import { define_bad_option, option_checker, quote } from './options.js'

// Not `import { STATUS_CODES } from 'node:http'`: on Node 24 an ESM import of node:http builds the module's namespace,
// whose WebSocket, MessageEvent and CloseEvent getters load Node's bundled undici, heap that every fw process would keep
// and every full collection would mark (1 MiB uploads on Node 24 cost 1.19x Fastify's CPU with it, 1.11x without).
// Read as CommonJS, the module loads nothing more. A lint rule holds lib/, adapters/ and index.ts to it.
const { STATUS_CODES } = process.getBuiltinModule('node:http')

export const ERR_HTTP_ERROR_BAD_STATUS = defineError(
  'FW_ERR_HTTP_ERROR_BAD_STATUS',
  (status: unknown) => `HttpError: status must be an integer from 400 to 599; got ${quote(status)}`,
)
export const ERR_HTTP_ERROR_BAD_CODE = defineError(
  'FW_ERR_HTTP_ERROR_BAD_CODE',
  (code: unknown) => `HttpError: code must be an HTTP token such as "user_not_found"; got ${quote(code)}`,
)
/** A bad message, header or `expose` of an `HttpError`. */
export const ERR_HTTP_ERROR_BAD_OPTION = define_bad_option('HTTP_ERROR')
const check = option_checker(ERR_HTTP_ERROR_BAD_OPTION, 'HttpError')

/**
 * fw's error body: `{ok:false, error, message}`, with `details` when given; without a message only for the reference
 * authentication API's two-argument `res.error(status, message)`.
 */
export interface ErrorBody {
  readonly ok: false
  readonly error: string
  readonly message?: string
  readonly details?: unknown
}

/**
 * Builds fw's error body; every `{ok:false, ...}` answer of fw is made here.
 * @example
 * JSON.stringify(error_body('not_found', 'Route not found')) // {"ok":false,"error":"not_found","message":"Route not found"}
 */
export function error_body(code: string, message?: string, details?: unknown): ErrorBody {
  if (message === undefined) return { ok: false, error: code }
  return details === undefined ? { ok: false, error: code, message } : { ok: false, error: code, message, details }
}

/** Options of an `HttpError`. */
export interface HttpErrorOptions {
  /** Headers of the answer (`WWW-Authenticate`, `Retry-After`...). */
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as the body's `details` when the error is exposed (a field list, a limit). */
  readonly details?: unknown
  /**
   * Whether the client sees `message` and `details` (default: true for 4xx, false for 5xx). Unexposed, the body's message
   * is the status text (`Service Unavailable`) and `details` is left out; the real message is logged.
   */
  readonly expose?: boolean
  /** The error that led to this one, for the log. */
  readonly cause?: unknown
}

/**
 * An error that answers with its own status and code: thrown or rejected anywhere in a route's chain (handler,
 * middleware, `on_error`), it answers `status` with `{ok:false, error: code, message}` and its headers. A bad status
 * (outside 400-599) or code (not an HTTP token) throws when the error is made.
 * @example
 * throw new HttpError(404, 'user_not_found', 'User not found')
 * throw new HttpError(429, 'quota_exceeded', 'Daily quota exceeded', { headers: { 'retry-after': '3600' } })
 */
export class HttpError extends Error {
  /** The answer's status, 400 to 599. */
  readonly status: number
  /** The body's `error` code: an HTTP token such as `user_not_found`. */
  readonly code: string
  /** Headers of the answer, names lowercase. */
  readonly headers: Readonly<Record<string, string>>
  /** The body's `details` when exposed. */
  readonly details: unknown
  /** Whether the client sees the message and details. */
  readonly expose: boolean

  constructor(status: number, code: string, message?: string, options: HttpErrorOptions = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599) throw ERR_HTTP_ERROR_BAD_STATUS(status)
    if (typeof code !== 'string' || !HTTP_TOKEN.test(code)) throw ERR_HTTP_ERROR_BAD_CODE(code)
    if (message !== undefined && typeof message !== 'string') check.fail('message', 'a string', message)
    const { headers = {}, details, expose = status < 500 } = options
    if (typeof expose !== 'boolean') check.fail('expose', 'true or false', expose)
    super(message ?? status_text(status), options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'HttpError'
    this.status = status
    this.code = code
    this.headers = checked_headers(headers)
    this.details = details
    this.expose = expose
  }

  /** The body this error answers with: its message and details, or the status text alone when not exposed. */
  body(): unknown {
    return this.expose
      ? error_body(this.code, this.message, this.details)
      : error_body(this.code, status_text(this.status))
  }
}

/** The reason phrase of `status` (`Not Found`), or `Error` for a status without one. */
export function status_text(status: number): string {
  return STATUS_CODES[status] ?? 'Error'
}

function checked_headers(headers: Readonly<Record<string, string>>): Record<string, string> {
  if (typeof headers !== 'object' || headers === null)
    check.fail('headers', 'an object of header names to strings', headers)
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!HTTP_TOKEN.test(name)) check.fail('a header name', 'an HTTP token', name)
    if (typeof value !== 'string' || BAD_HEADER_VALUE.test(value))
      check.fail(`headers[${JSON.stringify(name)}]`, `a string ${HEADER_VALUE_RULE}`, value)
    out[name.toLowerCase()] = value
  }
  return out
}
