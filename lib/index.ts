// The core of the package entry `fw` (see ../index.ts, which adds the App): the facades, JSON helpers, errors, and the
// module namespaces.
export { AppCore, Router, type Method, type StaticOptions, type CompiledApp, type CompiledRoute } from './app.js'
export { Request, type HostRequest } from './request.js'
export { Response } from './response.js'
export {
  compose,
  adapt_ctx,
  type Handler,
  type Middleware,
  type Next,
  type Ctx,
  type CtxMiddleware,
} from './compose.js'
export { json, Json, type JsonValue } from './json.js'
export { FwError, StoreUnavailable, errorCodes, httpErrorCodes } from './errors.js'
export { HttpError, error_body, type HttpErrorOptions, type ErrorBody } from './http-error.js'
export { type ErrorMapper } from './error-answer.js'
export { Token, Services, type Key } from './state.js'
export { type AppOptions, type AppConfig } from './config.js'
export * as middleware from './middleware/index.js'
export * as validation from './validation/index.js'
export * as openapi from './openapi/index.js'
export * as cache from './cache/index.js'
export * as log from './log/index.js'
export * as body from './body/index.js'
export {
  stream_body,
  type FormFields,
  type FormLimits,
  type Part,
  type FilePart,
  type FieldPart,
  type SavedForm,
  type SavedFile,
} from './body/index.js'
export type { SseEvent, SseOptions, SseProducer, SseSink, StreamSource } from './stream/index.js'
export * as websocket from './websocket/index.js'
