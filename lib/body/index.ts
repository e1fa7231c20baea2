// Request bodies: buffered and streamed readers, urlencoded forms, multipart uploads, and their limits.
export {
  body_error_answer,
  ERR_BODY_BAD_OPTION,
  ERR_BODY_CONSUMED,
  ERR_BODY_MALFORMED,
  ERR_BODY_OVER_LIMIT,
  ERR_BODY_TOO_LARGE,
  ERR_BODY_WRONG_TYPE,
  type BodyAnswer,
} from './errors.js'
export type { FormFields } from './form.js'
export { DEFAULT_FORM_LIMITS, resolve_form_limits, type FormLimits, type ResolvedFormLimits } from './limits.js'
export {
  Multipart,
  type MultipartParserFactory,
  type FieldPart,
  type FilePart,
  type Part,
  type SavedFile,
  type SavedForm,
} from './multipart.js'
export { declared_too_large, limited, read_whole, type WholeBodyDone } from './read.js'
export { media_type, RequestBody, type RequestBodyOptions, type ResponseEnd } from './request-body.js'
export { stream_body } from './stream-body.js'
