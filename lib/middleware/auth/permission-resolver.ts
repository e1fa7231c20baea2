// The service `rbac_context` asks to enrich roles and permissions (from a database, a policy file, a role hierarchy).

/**
 * Adds roles and permissions for a subject, in place. Register one as a service; `rbac_context` (with `use_resolver`,
 * the default) calls it on every request after reading the token. It may be async. If it throws, the request is
 * answered 500 `authz_resolver_failed` and the handler does not run.
 * @example
 * app.services.set(PermissionResolver, {
 *   resolve(subject, roles, perms) { if (roles.has('admin')) perms.add('products:write') },
 * })
 */
export abstract class PermissionResolver {
  /** Inserts the subject's extra roles and permissions into the two sets. */
  abstract resolve(subject: string, roles: Set<string>, perms: Set<string>): void | Promise<void>
}
