// The reference authentication API's routes: register, login, the current user and an admin-only route.
import { type Handler, type Request, type Response, type Router } from '../../index.js'
import { field, schema, validation_body, type RouteSchema } from '../../lib/validation/index.js'
import { LoginBody, RegisterBody } from './bodies.js'
import { ADMIN_ROLE_REQUIRED, EMAIL_TAKEN, INVALID_CREDENTIALS, UNAUTHORIZED } from './codes.js'
import { login_limits, register_limit } from './login-limits.js'
import { auth_api_config, type AuthApiOptions } from './options.js'
import { AuthService } from './service.js'
import type { PublicUser } from './user-store.js'

const BEARER = 'Bearer '

/**
 * The token of `Authorization: Bearer <token>`; the prefix must be exactly `Bearer ` (the spec), else there is none.
 */
export function bearer_token(req: Request): string | undefined {
  const header = req.header('authorization')
  return header.startsWith(BEARER) && header.length > BEARER.length ? header.slice(BEARER.length) : undefined
}

/**
 * Answers of these routes carry a token or a user's record: no cache may keep them (RFC 6749 5.1 for the token), so a
 * browser's disk cache or a proxy does not hand them out after the user has gone.
 */
function no_store(res: Response): void {
  res.header('Cache-Control', 'no-store')
}

/** The current user, or undefined after answering 401 `unauthorized` (the handler must then return). */
async function current_user(auth: AuthService, req: Request, res: Response): Promise<PublicUser | undefined> {
  const token = bearer_token(req)
  const user = token === undefined ? undefined : await auth.user_for(token)
  if (user === undefined) res.header('WWW-Authenticate', 'Bearer').error(401, UNAUTHORIZED)
  return user
}

const UserOut = schema({
  id: field.integer().required(),
  email: field.string().required().email(),
  role: field.enum(['user', 'admin']).required(),
})
const Ok = (extra: Parameters<typeof schema>[0]) => schema({ ok: field.literal(true).required(), ...extra })
/** The handlers check the bearer token themselves, so the routes declare it for the OpenAPI document. */
const BEARER_AUTH = [{ bearer: { type: 'http', scheme: 'bearer', description: 'The token from POST /auth/login' } }]

/**
 * The documentation and input schemas of the four routes (validation answers 400 `validation_failed` as the spec says).
 */
export const AUTH_ROUTES = {
  register: {
    body: RegisterBody,
    security: [],
    tags: ['auth'],
    summary: 'Register a user',
    operation_id: 'register',
    responses: {
      201: { description: 'Registered', body: Ok({ user: UserOut.required() }) },
      409: { description: 'email_taken' },
      429: { description: 'rate_limit_exceeded (production mode)' },
    },
  },
  login: {
    body: LoginBody,
    security: [],
    tags: ['auth'],
    summary: 'Log in and receive a bearer token',
    operation_id: 'login',
    responses: {
      200: Ok({ token: field.string().required(), expires_in: field.integer() }),
      401: { description: 'invalid_credentials' },
      429: { description: 'rate_limit_exceeded (production mode)' },
    },
  },
  me: {
    security: BEARER_AUTH,
    tags: ['auth'],
    summary: 'The current user',
    operation_id: 'me',
    responses: { 200: Ok({ user: UserOut.required() }), 401: { description: 'unauthorized' } },
  },
  admin: {
    security: BEARER_AUTH,
    tags: ['auth'],
    summary: 'Admin-only: the current user when an admin',
    operation_id: 'admin',
    responses: {
      200: Ok({ user: UserOut.required() }),
      401: { description: 'unauthorized' },
      403: { description: 'admin role required' },
    },
  },
} satisfies Record<string, RouteSchema>

function routes(auth: AuthService): Record<'register' | 'login' | 'me' | 'admin', Handler> {
  return {
    async register(req, res) {
      no_store(res)
      const out = await auth.register(req.json().raw, req.ip())
      if (out.kind === 'invalid') return void res.status(400).json(validation_body(out.errors))
      if (out.kind === 'taken') return void res.error(409, EMAIL_TAKEN, 'email already registered')
      res.status(201).json('ok', true, 'user', out.user)
    },
    async login(req, res) {
      no_store(res)
      const out = await auth.login(req.json().raw, req.ip())
      if (out.kind === 'invalid') return void res.status(400).json(validation_body(out.errors))
      if (out.kind === 'refused') return void res.error(401, INVALID_CREDENTIALS, 'invalid email or password')
      res.json({ ok: true, ...out.issued })
    },
    async me(req, res) {
      no_store(res)
      const user = await current_user(auth, req, res)
      if (user === undefined) return
      res.json('ok', true, 'user', user)
    },
    async admin(req, res) {
      no_store(res)
      const user = await current_user(auth, req, res)
      if (user === undefined) return
      if (user.role !== 'admin') return void res.error(403, ADMIN_ROLE_REQUIRED)
      res.json('ok', true, 'user', user)
    },
  }
}

/**
 * Registers `POST /auth/register`, `POST /auth/login`, `GET /auth/me` and `GET /auth/admin` on `r`, and returns the
 * service behind them. In production mode login attempts are limited per client address and per email, and
 * registrations per client address.
 * @example
 * const app = new App()
 * auth_api(app, { mode: 'production', admins: ['root@example.com'] })
 * await app.run(8080)
 */
export function auth_api(r: Router, options: AuthApiOptions = {}): AuthService {
  const config = auth_api_config(options)
  const auth = new AuthService(config)
  const h = routes(auth)
  // The limits are the routes' own middleware, run before validation, so invalid attempts count too. Copies of the
  // schemas carry them: AUTH_ROUTES stays the same for every caller.
  const production = config.mode === 'production'
  const register = production ? { ...AUTH_ROUTES.register, use: register_limit(config) } : AUTH_ROUTES.register
  const login = production ? { ...AUTH_ROUTES.login, use: login_limits(config) } : AUTH_ROUTES.login
  r.post('/auth/register', register, h.register)
  r.post('/auth/login', login, h.login)
  r.get('/auth/me', AUTH_ROUTES.me, h.me)
  r.get('/auth/admin', AUTH_ROUTES.admin, h.admin)
  return auth
}
