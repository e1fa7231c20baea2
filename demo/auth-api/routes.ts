// The reference authentication API's routes: register, login, the current user and an admin-only route.
import { compose, type Handler, type Request, type Response, type Router } from '../../lib/index.js'
import { validation_body } from '../../lib/validation/index.js'
import { ADMIN_ROLE_REQUIRED, EMAIL_TAKEN, INVALID_CREDENTIALS, UNAUTHORIZED } from './codes.js'
import { login_limits } from './login-limits.js'
import { auth_api_config, type AuthApiOptions } from './options.js'
import { AuthService } from './service.js'
import type { PublicUser } from './user-store.js'

const BEARER = 'Bearer '

/** The token of `Authorization: Bearer <token>`; the prefix must be exactly `Bearer ` (the spec), else there is none. */
export function bearer_token(req: Request): string | undefined {
  const header = req.header('authorization')
  return header.startsWith(BEARER) && header.length > BEARER.length ? header.slice(BEARER.length) : undefined
}

/** The current user, or undefined after answering 401 `unauthorized` (the handler must then return). */
function current_user(auth: AuthService, req: Request, res: Response): PublicUser | undefined {
  const token = bearer_token(req)
  const user = token === undefined ? undefined : auth.user_for(token)
  if (user === undefined) res.header('WWW-Authenticate', 'Bearer').error(401, UNAUTHORIZED)
  return user
}

function routes(auth: AuthService): Record<'register' | 'login' | 'me' | 'admin', Handler> {
  return {
    async register(req, res) {
      const out = await auth.register(req.json().raw, req.ip())
      if (out.kind === 'invalid') return void res.status(400).json(validation_body(out.errors))
      if (out.kind === 'taken') return void res.error(409, EMAIL_TAKEN, 'email already registered')
      res.status(201).json('ok', true, 'user', out.user)
    },
    async login(req, res) {
      const out = await auth.login(req.json().raw, req.ip())
      if (out.kind === 'invalid') return void res.status(400).json(validation_body(out.errors))
      if (out.kind === 'refused') return void res.error(401, INVALID_CREDENTIALS, 'invalid email or password')
      res.json({ ok: true, ...out.issued })
    },
    me(req, res) {
      const user = current_user(auth, req, res)
      if (user === undefined) return
      res.json('ok', true, 'user', user)
    },
    admin(req, res) {
      const user = current_user(auth, req, res)
      if (user === undefined) return
      if (user.role !== 'admin') return void res.error(403, ADMIN_ROLE_REQUIRED)
      res.json('ok', true, 'user', user)
    },
  }
}

/**
 * Registers `POST /auth/register`, `POST /auth/login`, `GET /auth/me` and `GET /auth/admin` on `r`, and returns the service
 * behind them. In production mode login attempts are limited per client address and per email.
 * @example
 * const app = new App()
 * auth_api(app, { mode: 'production', admins: ['root@example.com'] })
 * await app.run(8080)
 */
export function auth_api(r: Router, options: AuthApiOptions = {}): AuthService {
  const config = auth_api_config(options)
  const auth = new AuthService(config)
  const h = routes(auth)
  r.post('/auth/register', h.register)
  r.post('/auth/login', config.mode === 'production' ? compose(login_limits(config), h.login) : h.login)
  r.get('/auth/me', h.me)
  r.get('/auth/admin', h.admin)
  return auth
}
