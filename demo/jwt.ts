// Demo `jwt`: the spec's bearer JWT route; tokens are HS256, signed with FW_JWT_SECRET (see `sign_dev_token`).
import type { Router } from '../index.js'
import { jwt_dev } from '../lib/middleware/app/index.js'
import { JwtClaims } from '../lib/middleware/auth/index.js'
import { dev_secret, type Demo } from './demo.js'

/** The development default of FW_JWT_SECRET, shared by the `jwt` and `rbac` demos. */
export const DEV_JWT_SECRET = 'dev-jwt-secret-change-me-0123456789abcdef'

/**
 * Registers `GET /secure` behind bearer JWT (secret default `FW_JWT_SECRET`, else a development secret).
 * @example
 * setup_jwt(app, { secret: 'a-long-random-secret-of-32-or-more-characters' })
 */
export function setup_jwt(r: Router, { secret }: { secret?: string } = {}): void {
  r.use('/secure', jwt_dev(secret ?? dev_secret('FW_JWT_SECRET', DEV_JWT_SECRET)))
  r.get('/secure', (req, res) => {
    const claims = req.state(JwtClaims)!
    res.json('ok', true, 'sub', claims.subject, 'roles_count', claims.roles.length)
  })
}

export const demo: Demo = {
  name: 'jwt',
  description: 'GET /secure behind a bearer JWT (HS256, FW_JWT_SECRET)',
  setup(_app, r) {
    setup_jwt(r)
  },
}
