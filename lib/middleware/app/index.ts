// fw.middleware.app: App-ready helpers and development presets, and the App middleware that lives in its own folder
// (`http_cache` beside the cache, `compression`, `etag`).
export { adapt_ctx } from '../../compose.js'
export { cors_dev, csrf_dev, security_headers_dev, rate_limit_dev, DEV_ORIGIN } from './security-presets.js'
export { rate_limit, use_on_prefix } from './rate-limit.js'
export { api_key_dev, jwt_dev, session_dev, sign_dev_token } from './auth-presets.js'
export {
  http_cache,
  type HttpCacheOptions,
  type HttpCacheDecision,
  type HttpCacheDetail,
} from '../../cache/http/http-cache.js'
export { compression, type CompressionOptions, type Encoding } from '../compression/compression.js'
export { etag, type EtagOptions, CODE_PRECONDITION_FAILED } from '../etag/etag.js'
