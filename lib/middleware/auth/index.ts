// fw.middleware.auth: API key, bearer JWT, RBAC and session middleware.
export {}
