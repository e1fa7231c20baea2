// Test fixture: a list of objects whose items each fail three required fields, for the cap on collected errors.
import { field, schema } from '../../../lib/validation/index.js'

/** `{ rows: [{ a, b, c }] }`, every field a required string. */
export const Rows = schema({
  rows: field
    .array(field.object({ a: field.string().required(), b: field.string().required(), c: field.string().required() }))
    .required(),
})

/** 1,000 empty rows: 3,000 errors before the cap. */
export const empty_rows = (): { rows: object[] } => ({ rows: Array.from({ length: 1000 }, () => ({})) })
