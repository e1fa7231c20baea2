// fw.middleware.security: CORS, CSRF, security headers, IP filter, rate limit and body limit.
export {}
