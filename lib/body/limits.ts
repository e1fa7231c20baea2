// Limits of the form readers (`req.form()`, `req.multipart()`): App defaults, overridden per call.
import { ERR_BODY_BAD_OPTION } from './errors.js'
import { option_checker } from '../options.js'

const check = option_checker(ERR_BODY_BAD_OPTION, 'form_limits')

/** Limits of form and multipart bodies; the route's byte limit (`body_limit`) applies on top of them. */
export interface FormLimits {
  /** Most fields in a urlencoded or multipart form (default 1000). */
  fields?: number
  /** Largest multipart field value in bytes (default 1 MiB). */
  field_size?: number
  /** Most files in a multipart form (default 10). */
  files?: number
  /** Largest file in bytes (default: no limit of its own, the route's body limit). */
  file_size?: number
}

/** Limits with every value set. */
export type ResolvedFormLimits = Readonly<Required<FormLimits>>

/** The defaults: 1000 fields of at most 1 MiB, 10 files, files bounded by the route's body limit only. */
export const DEFAULT_FORM_LIMITS: ResolvedFormLimits = Object.freeze({
  fields: 1000,
  field_size: 1024 * 1024,
  files: 10,
  file_size: Number.MAX_SAFE_INTEGER,
})

const NAMES = ['fields', 'field_size', 'files', 'file_size'] as const

/** `over` applied on `base`; a value that is not an integer >= 0 throws `FW_ERR_BODY_BAD_OPTION` naming it. */
export function resolve_form_limits(
  over: FormLimits | undefined,
  base: ResolvedFormLimits = DEFAULT_FORM_LIMITS,
): ResolvedFormLimits {
  if (over === undefined) return base
  const out = { ...base }
  for (const name of NAMES) {
    const v = over[name]
    if (v === undefined) continue
    out[name] = check.int(name, v, 0)
  }
  return Object.freeze(out)
}
