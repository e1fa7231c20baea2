// RBAC context: builds `Authz` from the caller's `Identity` (a token's claims, or the roles and permissions an
// authenticator gave), enriched by a `PermissionResolver` service.
import { context_middleware, type Ctx, type CtxMiddleware, type Next } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { documented } from '../../openapi/middleware-doc.js'
import { option_checker } from '../../options.js'
import { PermissionResolver } from './permission-resolver.js'
import { Identity } from '../../identity.js'
import { Authz, claim_list, refuse_unauthenticated } from './state.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_AUTH_BAD_OPTION, 'rbac_context')

export const CODE_MISSING_AUTH = httpCode('missing_auth')
export const CODE_AUTHZ_RESOLVER_FAILED = httpCode('authz_resolver_failed')

/** Options of `rbac_context`. */
export interface RbacOptions {
  /**
   * Payload key holding the roles: an array of strings, or one string. Left out, the roles the authenticator read (a
   * `jwt`'s by its own `roles_key`, `roles` unless set).
   */
  roles_key?: string
  /** Payload key holding the permissions: an array of strings, or one string. Left out, the authenticator's. */
  perms_key?: string
  /**
   * Answer 401 `missing_auth` when no `Identity` is there; when false the request goes on without `Authz` (default
   * true).
   */
  require_auth?: boolean
  /** Also call the `PermissionResolver` service when one is registered (default true). */
  use_resolver?: boolean
}

/**
 * Builds `Authz` for role and permission checks from the caller's `Identity`; runs after an authenticator (`jwt`,
 * `api_key`, a signed-in `session`, `any_of`, a custom one). Roles and permissions come from the Identity's claims
 * under `roles_key` and `perms_key` when it has claims (a JWT), else from its `roles` and `perms`. Without an Identity it
 * answers 401 `missing_auth` (with `require_auth`); a `PermissionResolver` that throws answers 500
 * `authz_resolver_failed`.
 * @example
 * app.use('/admin', adapt_ctx(auth.jwt({ secret })))
 * app.use('/admin', adapt_ctx(auth.rbac_context()))
 * app.use('/admin', adapt_ctx(auth.require_role('admin')))
 */
export function rbac_context({
  roles_key,
  perms_key,
  require_auth = true,
  use_resolver = true,
}: RbacOptions = {}): CtxMiddleware {
  const roles_at = roles_key === undefined ? undefined : check.string('roles_key', roles_key)
  const perms_at = perms_key === undefined ? undefined : check.string('perms_key', perms_key)
  const refuse_anonymous = check.bool('require_auth', require_auth)
  const resolve = check.bool('use_resolver', use_resolver)

  const mw = documented(
    function rbac_context(ctx: Ctx, next: Next) {
      const who = ctx.req.state(Identity)
      if (who === undefined) {
        return refuse_anonymous
          ? refuse_unauthenticated(ctx.req, ctx.res, CODE_MISSING_AUTH, 'Authentication required')
          : next()
      }
      // Claims (a JWT's payload) are read by this middleware's keys when it has them; else the Identity carries the
      // roles and permissions its authenticator read (a jwt by its own roles_key: one setting, not two to keep equal).
      const { claims } = who
      const roles = new Set(claims === undefined || roles_at === undefined ? who.roles : claim_list(claims, roles_at))
      const perms = new Set(claims === undefined || perms_at === undefined ? who.perms : claim_list(claims, perms_at))
      const authz = new Authz(who.id, roles, perms)
      // Looked up per request, so a resolver registered after the middleware was created is used.
      const resolver = resolve ? ctx.services.get(PermissionResolver) : undefined
      if (resolver === undefined) {
        ctx.req.set_state(Authz, authz)
        return next()
      }
      return resolved(resolver, authz, ctx, next)
    },
    { responses: { 401: [CODE_MISSING_AUTH], 500: [CODE_AUTHZ_RESOLVER_FAILED] } },
  )
  return context_middleware(mw, check.owner)
}

async function resolved(resolver: PermissionResolver, authz: Authz, ctx: Ctx, next: Next): Promise<void> {
  try {
    await resolver.resolve(authz.subject, authz.roles, authz.perms)
  } catch {
    ctx.res.error(500, CODE_AUTHZ_RESOLVER_FAILED, 'Permission resolver failed')
    return
  }
  ctx.req.set_state(Authz, authz)
  // Outside the try: a handler error is not the resolver's.
  return next()
}
