// The module `fw/validation`: schemas for request bodies, query strings and path parameters, typed results, JSON
// Schema, and the 400 body for invalid input.
export { ValidationErrorCode, type ValidationError, type ValidationResult } from './validation-error.js'
export { field } from './field-builder.js'
export { Type, type TypeSpec, type FieldValues, type JsonSchema, type CompileOptions } from './type.js'
export { Field, type FieldKind, type KindValue, type FieldOf } from './field.js'
export { StringField } from './string-field.js'
export { NumberField } from './number-field.js'
export { ArrayType } from './array.js'
export { EnumType, LiteralType, type Literal } from './choice.js'
export { UnionType, ERR_VALIDATION_BAD_UNION } from './union.js'
export { RecordType } from './record.js'
export { LazyType, type LazyOptions } from './lazy.js'
export { schema, Schema, NOT_AN_OBJECT, type Shape, type Output, type Infer } from './schema.js'
export { validation_body, type ValidationBody } from './validation-body.js'
export {
  validated,
  is_schema,
  type AnySchema,
  type RouteSchema,
  type ResponseDoc,
  type InputPart,
  type ValidOf,
} from './route.js'
export { is_email } from './email.js'
export { is_uuid, is_uri, is_date_time } from './formats.js'
export { code_point_length } from './code-points.js'
export { ERR_VALIDATION_BAD_LIMIT, ERR_VALIDATION_UNKNOWN_FIELD } from './errors.js'
