// The reference authentication API as a reusable module: routes, service, stores, bodies, options and codes.
export { auth_api, bearer_token } from './routes.js'
export { AuthService, type RegisterOutcome, type LoginOutcome } from './service.js'
export {
  auth_api_config,
  AUTH_MODES,
  type AuthMode,
  type AuthApiOptions,
  type AuthApiConfig,
  type LoginLimit,
} from './options.js'
export { UserStore, public_user, type User, type PublicUser, type Role, type Users } from './user-store.js'
export {
  open_auth_storage,
  auth_storage_url,
  SqlUsers,
  SqlTokens,
  AUTH_MIGRATIONS,
  AUTH_DEFAULT_SQLITE,
  type AuthStorage,
} from './storage.js'
export { DevTokens, RandomTokens, type TokenStore, type IssuedToken } from './token-store.js'
export { plain_passwords, ScryptPasswords, same_text, type PasswordHasher, type ScryptCost } from './passwords.js'
export { RegisterBody, LoginBody, normalise_email } from './bodies.js'
export { login_limits, register_limit } from './login-limits.js'
export { UNAUTHORIZED, ADMIN_ROLE_REQUIRED, EMAIL_TAKEN, INVALID_CREDENTIALS } from './codes.js'
export { ERR_AUTHAPI_BAD_OPTION } from './errors.js'
