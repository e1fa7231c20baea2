// Who is calling: the one request state every authenticator fills and every consumer (RBAC, rate limit, CSRF, the
// access line) reads, so no area imports another's state to learn it.
import { defineError } from './errors.js'
import { quote } from './options.js'
import type { Request } from './request.js'
import type { Response } from './response.js'

export const ERR_AUTH_BAD_IDENTITY = defineError(
  'FW_ERR_AUTH_BAD_IDENTITY',
  (field: string, expected: string, value: unknown) => `Identity: ${field} must be ${expected}; got ${quote(value)}`,
)

/** How the caller proved who they are: fw's authenticators, or a custom authenticator's own name. */
export type IdentityKind = 'api_key' | 'jwt' | 'session' | (string & {})

/** What an authenticator says about the caller; `roles`, `perms` and `claims` may be left out. */
export interface IdentityInit {
  /** The authenticator: `api_key`, `jwt`, `session`, or a custom name (non-empty). */
  kind: IdentityKind
  /** The caller's stable id (a user id, a key's label); non-empty, never a secret. */
  id: string
  /** Role names (default none). */
  roles?: readonly string[]
  /** Permission names, `<resource>:<action>` (default none). */
  perms?: readonly string[]
  /** The verified credential's claims, where it has any (a JWT's payload). */
  claims?: Readonly<Record<string, unknown>>
}

/** No roles or perms, shared: an identity's lists are frozen, so every one without any can hold the same. */
const NONE: readonly string[] = Object.freeze([])

const names = (field: string, value: unknown): readonly string[] => {
  if (Array.isArray(value) && value.length === 0) return NONE
  const ok = Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '')
  if (!ok) throw ERR_AUTH_BAD_IDENTITY(field, 'a list of non-empty strings', value)
  return Object.freeze([...(value as string[])])
}

/**
 * Request state: the authenticated caller, `req.state(Identity)`. `api_key`, `jwt` and a signed-in `session` set it;
 * a custom authenticator sets it with `set_identity`. A kind or id that is not a non-empty string, or roles or perms
 * that are not lists of non-empty strings, throw `FW_ERR_AUTH_BAD_IDENTITY`.
 * @example
 * const who = req.state(auth.Identity) // { kind: 'jwt', id: 'ada', roles: ['admin'], perms: [], claims: {...} }
 */
export class Identity {
  readonly kind: IdentityKind
  readonly id: string
  readonly roles: readonly string[]
  readonly perms: readonly string[]
  /** The credential's claims (a JWT's verified payload); undefined for credentials without any. */
  readonly claims: Readonly<Record<string, unknown>> | undefined

  constructor({ kind, id, roles = NONE, perms = NONE, claims }: IdentityInit) {
    if (typeof kind !== 'string' || kind === '') throw ERR_AUTH_BAD_IDENTITY('kind', 'a non-empty string', kind)
    if (typeof id !== 'string' || id === '') throw ERR_AUTH_BAD_IDENTITY('id', 'a non-empty string', id)
    if (claims !== undefined && (typeof claims !== 'object' || claims === null))
      throw ERR_AUTH_BAD_IDENTITY('claims', 'an object', claims)
    this.kind = kind
    this.id = id
    this.roles = names('roles', roles)
    this.perms = names('perms', perms)
    this.claims = claims
  }
}

/**
 * Sets the request's `Identity`: the one way a custom authenticator says who is calling, before the chain goes on.
 * Once the response has an answer (the handler, or a middleware, answered), it changes nothing and gives false: an
 * authenticator that runs after `next()` cannot rewrite who the answered request was for. A bad identity throws
 * `FW_ERR_AUTH_BAD_IDENTITY` (an empty `id`, for instance).
 * @example
 * function mtls(ctx, next) {
 *   const cn = client_cert_cn(ctx.req)
 *   if (cn === undefined) return void ctx.res.error(401, 'missing_cert', 'Client certificate required')
 *   auth.set_identity(ctx.req, ctx.res, { kind: 'mtls', id: cn })
 *   return next()
 * }
 */
export function set_identity(req: Request, res: Response, identity: Identity | IdentityInit): boolean {
  const value = identity instanceof Identity ? identity : new Identity(identity)
  if (res.is_sent()) return false
  req.set_state(Identity, value)
  return true
}

/**
 * Request state: the browser session the request belongs to, by the session middleware; what binds a check to the
 * session (CSRF) reads its `id` here instead of importing the session's own state.
 */
export abstract class SessionRef {
  /** The session id as it is now (a new one after `regenerate()`). */
  abstract readonly id: string
}
