// Demo `rbac`: the spec's admin route: JWT, then the RBAC context, then a role check, then a permission check.
import type { Router } from '../index.js'
import { adapt_ctx, jwt_dev } from '../lib/middleware/app/index.js'
import { Authz, rbac_context, require_perm, require_role } from '../lib/middleware/auth/index.js'
import { dev_secret, type Demo } from './demo.js'
import { DEV_JWT_SECRET } from './jwt.js'

/**
 * Registers `GET /admin` for tokens with role `admin` and permission `products:write` (claims `roles` and `perms`).
 * @example
 * setup_rbac(app, { secret: 'a-long-random-secret-of-32-or-more-characters' })
 */
export function setup_rbac(r: Router, { secret }: { secret?: string } = {}): void {
  r.use('/admin', jwt_dev(secret ?? dev_secret('FW_JWT_SECRET', DEV_JWT_SECRET)))
  r.use('/admin', adapt_ctx(rbac_context()))
  r.use('/admin', adapt_ctx(require_role('admin')))
  r.use('/admin', adapt_ctx(require_perm('products:write')))
  r.get('/admin', (req, res) => {
    const authz = req.state(Authz)!
    res.json(
      'ok',
      true,
      'sub',
      authz.subject,
      'has_admin',
      authz.has_role('admin'),
      'has_products_write',
      authz.has_perm('products:write'),
    )
  })
}

export const demo: Demo = {
  name: 'rbac',
  description: 'GET /admin behind JWT, RBAC context, role admin and permission products:write',
  setup(_app, r) {
    setup_rbac(r)
  },
}
