// fw.middleware.auth: API key, bearer JWT, RBAC and session middleware, their combinators, the caller's `Identity`, their
// request state and the session stores.
export { api_key, type ApiKeyOptions } from './api-key.js'
export { jwt, type JwtOptions, type JwtAlgorithm, type Jwk } from './jwt.js'
export { rbac_context, type RbacOptions } from './rbac.js'
export { require_role, require_any_role, require_perm, require_any_perm, require_all_perms } from './rbac-checks.js'
export { session, start_session, type SessionOptions } from './session.js'
export { ApiKey, AuthChallenge, JwtClaims, Authz } from './state.js'
export { Identity, set_identity, type IdentityInit, type IdentityKind } from '../../identity.js'
export { sign_in, sign_out, type SignInUser } from './sign-in.js'
export { any_of, all_of } from './combine.js'
export { PermissionResolver } from './permission-resolver.js'
export { Session } from './session-state.js'
export {
  InMemorySessionStore,
  type ISessionStore,
  type SessionRecord,
  type InMemorySessionStoreOptions,
} from './session-store.js'
