// Signing a user in and out of the request's session: the session then carries an `Identity` of kind `session`.
import { Identity, set_identity } from '../../identity.js'
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'
import { start_session } from './session.js'
import { SIGNED_IN_KEY, Session, signed_in } from './session-state.js'

/** Who `sign_in` signs in: the user's id (non-empty), and their roles and permissions. */
export interface SignInUser {
  id: string
  roles?: readonly string[]
  perms?: readonly string[]
}

/**
 * Signs a user in to the request's session, once the app has checked their credentials: the session gets a new id (so
 * an id planted before the login is worthless) and, under `absolute_ttl`, a lifetime counted from now; its values are
 * kept, unless another user was signed in to it (then they are dropped); it keeps the user, and every later request
 * carrying it has an `Identity` of kind `session`; this request has it at once (unless its response is already
 * answered: see `set_identity`). A bad user (an empty id) throws `FW_ERR_AUTH_BAD_IDENTITY`; a route without `session`
 * middleware throws `FW_ERR_AUTH_NO_SESSION`.
 * @example
 * app.post('/login', async (req, res) => {
 *   const user = await users.check(req.json().value('email', ''), req.json().value('password', ''))
 *   if (user === undefined) return res.error(401, 'bad_credentials', 'Wrong email or password')
 *   auth.sign_in(req, res, { id: String(user.id), roles: [user.role] })
 *   res.json('ok', true)
 * })
 */
export function sign_in(req: Request, res: Response, user: SignInUser): Identity {
  // Only what the session keeps: a user record's other fields (a `claims` column) must not make this request's caller
  // differ from the next ones'.
  const identity = new Identity({ kind: 'session', id: user.id, roles: user.roles ?? [], perms: user.perms ?? [] })
  const s = start_session(req)
  // Another user signed in to this session (a shared browser, no sign-out): their values are not this user's. An
  // anonymous visitor's values (a cart) and the same user's stay.
  const before = signed_in(s)
  if (before !== undefined && before.id !== identity.id) for (const key of Object.keys(s.data)) s.delete(key)
  s.regenerate()
  s.relive = true
  s.keep(SIGNED_IN_KEY, JSON.stringify({ id: identity.id, roles: identity.roles, perms: identity.perms }))
  set_identity(req, res, identity)
  return identity
}

/**
 * Signs the user out: the session is destroyed (removed from the store, its cookie cleared) once the request ends.
 * The request keeps its `Identity` until then. Does nothing on a request without a session.
 * @example
 * app.post('/logout', (req, res) => { auth.sign_out(req); res.json('ok', true) })
 */
export function sign_out(req: Request): void {
  req.state(Session)?.destroy()
}
