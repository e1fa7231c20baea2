// fw.middleware.security: CORS, CSRF, security headers, IP filter, rate limit and body limit.
export { cors, type CorsOptions } from './cors.js'
export { csrf, CsrfToken, type CsrfOptions } from './csrf.js'
export {
  security_headers,
  CspNonce,
  DEFAULT_CSP,
  PERMISSIONS_POLICY,
  type SecurityHeadersOptions,
  type HstsOptions,
} from './headers.js'
export { ip_filter, type IpFilterOptions } from './ip-filter.js'
export { rate_limit, type RateLimitOptions } from './rate-limit.js'
export { type RateLimitKey, type KeyFn } from './rate-limit-key.js'
export {
  MemoryRateLimitStore,
  type RateLimitStore,
  type RateLimitResult,
  type MemoryRateLimitStoreOptions,
} from './rate-limit-store.js'
export { body_limit, type BodyLimitOptions } from './body-limit.js'
