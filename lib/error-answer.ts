// The answer to an error a route's chain threw: the App's (or its group's) `on_error` first, then the error's own answer
// (an HttpError, a coded body error), else 500.
import { body_error_answer } from './body/errors.js'
import { defineError, httpCode, StoreUnavailable } from './errors.js'
import { error_body, HttpError } from './http-error.js'
import { is_thenable } from './maybe-promise.js'
import type { Request } from './request.js'
import type { Response } from './response.js'

export const CODE_INTERNAL = httpCode('internal_error')
export const CODE_STORE_UNAVAILABLE = httpCode('store_unavailable')

/**
 * Maps an error of a route's chain to an answer (`app.on_error`): it answers through `res` as a handler does, or
 * answers nothing to leave the error its default answer. It may be async.
 */
export type ErrorMapper = (err: unknown, req: Request, res: Response) => unknown

/** What the App logs after answering an error: each line's message and error, at `error`. */
export type FailureLines = ReadonlyArray<readonly [message: string, err: unknown]>

const NOTHING: FailureLines = []

/**
 * Answers `err` into `res` as fw does when no `on_error` answers it: an `HttpError` with its status, headers and body;
 * an `FwError` with an HTTP status with its own answer (a body reader's 4xx, a `StoreUnavailable`'s 503
 * `store_unavailable`); anything else 500 `internal_error`. Returns the lines to log: none for a
 * client's error (4xx), the error itself otherwise.
 */
export function default_answer(err: unknown, res: Response): FailureLines {
  if (err instanceof HttpError) {
    for (const [name, value] of Object.entries(err.headers)) res.header(name, value)
    res.status(err.status).json(err.body())
    return err.status < 500 ? NOTHING : [['handler failed', err]]
  }
  const refused = body_error_answer(err)
  if (refused !== undefined) {
    res.status(refused.status).json(error_body(refused.code, refused.message))
    return NOTHING
  }
  if (err instanceof StoreUnavailable) {
    res.status(503).json(error_body(CODE_STORE_UNAVAILABLE, 'Service unavailable, retry later'))
    return [['handler failed', err]]
  }
  res.status(500).json(error_body(CODE_INTERNAL, 'Internal Server Error'))
  return [['handler failed', err]]
}

/**
 * Answers `err` into `res` (whose body must be empty): `on_error` first when there is one; when it answers nothing, the
 * default answer; when it throws, 500. Resolves with the lines to log.
 */
export function answer_error(
  err: unknown,
  req: Request,
  res: Response,
  on_error: ErrorMapper | undefined,
): FailureLines | Promise<FailureLines> {
  if (on_error === undefined) return default_answer(err, res)
  let r: unknown
  try {
    r = on_error(err, req, res)
  } catch (thrown) {
    return mapper_failed(err, thrown, res)
  }
  // Any thenable, as `await` takes one: a promise library's, a lazy builder's, another realm's.
  if (is_thenable(r))
    return Promise.resolve(r).then(
      () => mapped(err, res),
      (thrown: unknown) => mapper_failed(err, thrown, res),
    )
  return mapped(err, res)
}

function mapped(err: unknown, res: Response): FailureLines {
  return res.is_sent() ? NOTHING : default_answer(err, res)
}

/** `on_error` threw: whatever it wrote is dropped, the answer is 500, and both errors are logged. */
function mapper_failed(err: unknown, thrown: unknown, res: Response): FailureLines {
  res.discard_body()
  res.status(500).json(error_body(CODE_INTERNAL, 'Internal Server Error'))
  return [
    ['handler failed', err],
    ['on_error failed', thrown],
  ]
}

/**
 * Headers that describe the body or its caching: an error answer must not inherit them from a half-written response.
 */
const BODY_HEADERS = [
  'content-type',
  'set-cookie',
  'cache-control',
  'etag',
  'last-modified',
  'expires',
  'content-disposition',
  'content-encoding',
  'content-language',
  'content-location',
  'location',
  'age',
]

/**
 * Readies `res` for an error answer in place of what was written: the status, the body and the headers about that body
 * go (those that middleware set for the exchange, such as CORS, security headers and rate-limit counters, stay), and
 * the answer is never cached.
 */
export function clear_for_error(res: Response): void {
  for (const h of BODY_HEADERS) res.remove_header(h)
  res.discard_body().header('cache-control', 'no-store')
}

export const ERR_APP_DUPLICATE_ON_ERROR = defineError(
  'FW_ERR_APP_DUPLICATE_ON_ERROR',
  (prefix: string) => `on_error is set twice for ${JSON.stringify(prefix || '/')}; set it once per App or group prefix`,
)
