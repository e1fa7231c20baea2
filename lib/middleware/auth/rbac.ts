// RBAC context: builds `Authz` from the verified token's roles and permissions, enriched by a `PermissionResolver`
// service.
import type { Ctx, CtxMiddleware, Next } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { documented } from '../../openapi/middleware-doc.js'
import { check } from './options.js'
import { PermissionResolver } from './permission-resolver.js'
import { Authz, JwtClaims, claim_list } from './state.js'

export const CODE_MISSING_AUTH = httpCode('missing_auth')
export const CODE_AUTHZ_RESOLVER_FAILED = httpCode('authz_resolver_failed')

/** Options of `rbac_context`. */
export interface RbacOptions {
  /** Payload key holding the roles: an array of strings, or one string (default `roles`). */
  roles_key?: string
  /** Payload key holding the permissions: an array of strings, or one string (default `perms`). */
  perms_key?: string
  /**
   * Answer 401 `missing_auth` when no `JwtClaims` is there; when false the request goes on without `Authz` (default
   * true).
   */
  require_auth?: boolean
  /** Also call the `PermissionResolver` service when one is registered (default true). */
  use_resolver?: boolean
}

/**
 * Builds `Authz` for role and permission checks; runs after `jwt`. Without `JwtClaims` it answers 401 `missing_auth`
 * (with `require_auth`); a `PermissionResolver` that throws answers 500 `authz_resolver_failed`.
 * @example
 * app.use('/admin', adapt_ctx(auth.jwt({ secret })))
 * app.use('/admin', adapt_ctx(auth.rbac_context()))
 * app.use('/admin', adapt_ctx(auth.require_role('admin')))
 */
export function rbac_context({
  roles_key = 'roles',
  perms_key = 'perms',
  require_auth = true,
  use_resolver = true,
}: RbacOptions = {}): CtxMiddleware {
  const roles_at = check.string('rbac_context', 'roles_key', roles_key)
  const perms_at = check.string('rbac_context', 'perms_key', perms_key)
  const refuse_anonymous = check.bool('rbac_context', 'require_auth', require_auth)
  const resolve = check.bool('rbac_context', 'use_resolver', use_resolver)

  return documented(
    function rbac_context(ctx: Ctx, next: Next) {
      const claims = ctx.req.state(JwtClaims)
      if (claims === undefined) {
        return refuse_anonymous ? void ctx.res.error(401, CODE_MISSING_AUTH, 'Authentication required') : next()
      }
      const roles = new Set(claim_list(claims.payload, roles_at))
      const authz = new Authz(claims.subject, roles, new Set(claim_list(claims.payload, perms_at)))
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
