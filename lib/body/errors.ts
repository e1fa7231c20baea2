// The errors of request body readers, and the HTTP answer each one gets when a handler lets it through.
import { defineError, httpCode, type FwError } from '../errors.js'
import { define_bad_option } from '../options.js'

export const CODE_PAYLOAD_TOO_LARGE = httpCode('payload_too_large')
export const CODE_MALFORMED_BODY = httpCode('malformed_body')
export const CODE_UNSUPPORTED_MEDIA_TYPE = httpCode('unsupported_media_type')

export const ERR_BODY_TOO_LARGE = defineError(
  'FW_ERR_BODY_TOO_LARGE',
  (limit: number) => `request body exceeds the route's limit of ${limit} bytes`,
  413,
)
export const ERR_BODY_OVER_LIMIT = defineError(
  'FW_ERR_BODY_OVER_LIMIT',
  (what: BodyLimitName, limit: number) => `${LIMIT_TEXT[what]}: the limit is ${limit}`,
  413,
)
export const ERR_BODY_MALFORMED = defineError(
  'FW_ERR_BODY_MALFORMED',
  (what: string, detail: string) => `malformed ${what}: ${detail}`,
  400,
)
export const ERR_BODY_WRONG_TYPE = defineError(
  'FW_ERR_BODY_WRONG_TYPE',
  (reader: string, expected: string, got: string, what = 'content type') =>
    `req.${reader}() expects ${expected}; got ${what} ${JSON.stringify(got)}`,
  415,
)
export const ERR_BODY_CONSUMED = defineError(
  'FW_ERR_BODY_CONSUMED',
  (reader: string, why: string) => `req.${reader}() cannot read the body: ${why}`,
)
/** A bad body limit option. */
export const ERR_BODY_BAD_OPTION = define_bad_option('BODY')

/** The limits a body reader enforces besides the route's byte limit. */
export type BodyLimitName = 'fields' | 'field_size' | 'files' | 'file_size'

const LIMIT_TEXT: Record<BodyLimitName, string> = {
  fields: 'too many form fields',
  field_size: 'a form field is too large',
  files: 'too many files',
  file_size: 'a file is too large',
}

const PUBLIC_LIMIT_TEXT: Record<BodyLimitName, string> = {
  fields: 'Too many form fields',
  field_size: 'Form field is too large',
  files: 'Too many files',
  file_size: 'File is too large',
}

/** Throws the error of an exceeded reader limit. */
export function over_limit(what: BodyLimitName, limit: number): FwError {
  const err = ERR_BODY_OVER_LIMIT(what, limit)
  public_messages.set(err, PUBLIC_LIMIT_TEXT[what])
  return err
}

/**
 * The error of a reader that decodes the body (`body`, `json`, `form`, `multipart`) given one with a `Content-Encoding`
 * (gzip...): fw does not decompress request bodies, and reading the compressed bytes as text would be silently wrong.
 */
export function encoded_body(reader: string, encoding: string): FwError {
  const err = ERR_BODY_WRONG_TYPE(
    reader,
    'a body without Content-Encoding (req.bytes() and req.stream() give it as sent)',
    encoding,
    'content encoding',
  )
  public_messages.set(err, 'Unsupported content encoding')
  return err
}

const public_messages = new WeakMap<FwError, string>()

/** An HTTP answer: status, `error` code and message. */
export interface BodyAnswer {
  readonly status: number
  readonly code: string
  readonly message: string
}

/**
 * The answer for a body reader's error that reached the adapter (413, 400, 415), or undefined for any other error
 * (which stays a 500). The message is fixed per case: it never quotes what the client sent.
 */
export function body_error_answer(err: unknown): BodyAnswer | undefined {
  const code = (err as { code?: unknown } | null)?.code
  switch (code) {
    case ERR_BODY_TOO_LARGE.code:
      return { status: 413, code: CODE_PAYLOAD_TOO_LARGE, message: 'Request body is too large' }
    case ERR_BODY_OVER_LIMIT.code:
      return {
        status: 413,
        code: CODE_PAYLOAD_TOO_LARGE,
        message: public_messages.get(err as FwError) ?? 'Request body is too large',
      }
    case ERR_BODY_MALFORMED.code:
      return { status: 400, code: CODE_MALFORMED_BODY, message: 'Malformed request body' }
    case ERR_BODY_WRONG_TYPE.code:
      return {
        status: 415,
        code: CODE_UNSUPPORTED_MEDIA_TYPE,
        message: public_messages.get(err as FwError) ?? 'Unsupported content type',
      }
    default:
      return undefined
  }
}
