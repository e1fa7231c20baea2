// Role and permission checks on the `Authz` that `rbac_context` stored.
import { context_middleware, type CtxMiddleware } from '../../compose.js'
import { httpCode } from '../../errors.js'
import { documented } from '../../openapi/middleware-doc.js'
import { option_checker } from '../../options.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'
import { Authz, refuse_unauthenticated } from './state.js'

export const CODE_MISSING_AUTHZ = httpCode('missing_authz')
export const CODE_FORBIDDEN = httpCode('forbidden')

/** A check: 401 `missing_authz` without `Authz`, 403 `forbidden` when `allows` says no, else the chain goes on. */
function guard(name: string, message: string, allows: (authz: Authz) => boolean): CtxMiddleware {
  const mw: CtxMiddleware = ({ req, res }, next) => {
    const authz = req.state(Authz)
    if (authz === undefined)
      return refuse_unauthenticated(req, res, CODE_MISSING_AUTHZ, 'Authorization context missing')
    return allows(authz) ? next() : void res.error(403, CODE_FORBIDDEN, message)
  }
  return context_middleware(documented(mw, { responses: { 401: [CODE_MISSING_AUTHZ], 403: [CODE_FORBIDDEN] } }), name)
}

/**
 * Lets through callers with the role.
 * @example
 * app.use('/admin', adapt_ctx(auth.require_role('admin')))
 */
export function require_role(name: string): CtxMiddleware {
  const role = option_checker(ERR_AUTH_BAD_OPTION, 'require_role').string('name', name)
  return guard('require_role', 'Missing required role', (a) => a.has_role(role))
}

/**
 * Lets through callers with at least one of the roles.
 * @example
 * app.use('/reports', adapt_ctx(auth.require_any_role(['admin', 'auditor'])))
 */
export function require_any_role(list: readonly string[]): CtxMiddleware {
  const roles = option_checker(ERR_AUTH_BAD_OPTION, 'require_any_role').names('list', list)
  return guard('require_any_role', 'Missing required role', (a) => roles.some((r) => a.has_role(r)))
}

/**
 * Lets through callers with the permission.
 * @example
 * app.use('/products', adapt_ctx(auth.require_perm('products:write')))
 */
export function require_perm(name: string): CtxMiddleware {
  const perm = option_checker(ERR_AUTH_BAD_OPTION, 'require_perm').string('name', name)
  return guard('require_perm', 'Missing required permission', (a) => a.has_perm(perm))
}

/**
 * Lets through callers with at least one of the permissions.
 * @example
 * app.use('/products', adapt_ctx(auth.require_any_perm(['products:read', 'products:write'])))
 */
export function require_any_perm(list: readonly string[]): CtxMiddleware {
  const perms = option_checker(ERR_AUTH_BAD_OPTION, 'require_any_perm').names('list', list)
  return guard('require_any_perm', 'Missing required permission', (a) => perms.some((p) => a.has_perm(p)))
}

/**
 * Lets through callers with every one of the permissions.
 * @example
 * app.use('/billing', adapt_ctx(auth.require_all_perms(['billing:read', 'billing:write'])))
 */
export function require_all_perms(list: readonly string[]): CtxMiddleware {
  const perms = option_checker(ERR_AUTH_BAD_OPTION, 'require_all_perms').names('list', list)
  return guard('require_all_perms', 'Missing required permission', (a) => perms.every((p) => a.has_perm(p)))
}
