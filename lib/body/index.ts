// Request bodies: buffered and streamed readers, urlencoded forms, multipart uploads, and their limits.
// The public surface only: the readers and answers the adapter wires up (`read_whole`, `declared_too_large`,
// `body_error_answer`, `media_type`...) are imported from their own files.
export {
  ERR_BODY_BAD_OPTION,
  ERR_BODY_CONSUMED,
  ERR_BODY_MALFORMED,
  ERR_BODY_OVER_LIMIT,
  ERR_BODY_TOO_LARGE,
  ERR_BODY_WRONG_TYPE,
} from './errors.js'
export type { FormFields } from './form.js'
export { DEFAULT_FORM_LIMITS, type FormLimits } from './limits.js'
export { Multipart, type FieldPart, type FilePart, type Part, type SavedFile, type SavedForm } from './multipart.js'
export { RequestBody } from './request-body.js'
export { stream_body } from './stream-body.js'
