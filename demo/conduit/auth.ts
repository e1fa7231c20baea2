// Who is calling: HS256 JWTs signed with CONDUIT_JWT_SECRET, read from `Authorization: Token <jwt>` (or
// `Bearer <jwt>`), the scheme in any case.
import { createSigner, createVerifier } from 'fast-jwt'
import { Token, type Middleware, type Request } from '../../index.js'
import { documented } from '../../lib/openapi/index.js'
import { ERR_CONDUIT_BAD_OPTION, unauthorized } from './errors.js'

/** The schemes taken, lowercase: RFC 9110 makes a scheme's name case-insensitive (`token <jwt>` is `Token <jwt>`). */
const SCHEMES = ['token', 'bearer']

/** The token of the Authorization header, after the RealWorld `Token ` scheme or the usual `Bearer ` (any case). */
export function token_of(req: Request): string | undefined {
  const header = req.header('authorization')
  if (header === '') return undefined
  const space = header.indexOf(' ')
  if (space === -1 || !SCHEMES.includes(header.slice(0, space).toLowerCase())) return ''
  return header.slice(space + 1).trim()
}

/** The caller's user id, stored by `Tokens.signed_in` (always) and `Tokens.maybe_signed_in` (when a token came). */
export const Caller = new Token<number>('conduit caller')

/** openapi.yml's `Token` scheme: the JWT in the `Authorization` header, after `Token `. */
const TOKEN_SCHEME = { Token: { type: 'apiKey', in: 'header', name: 'Authorization' } } as const

/**
 * Signs and checks the conduit's tokens: `sub` is the user id, the algorithm pinned to HS256, `exp` checked.
 * @example
 * const tokens = new Tokens('a secret of at least 32 characters.......', 86400)
 * const jwt = tokens.sign(7)
 */
export class Tokens {
  readonly #sign: (payload: Record<string, unknown>) => string
  readonly #verify: (token: string) => Record<string, unknown>

  constructor(secret: string, ttl_seconds: number) {
    if (typeof secret !== 'string' || secret.length < 32) {
      throw ERR_CONDUIT_BAD_OPTION('conduit', 'jwt_secret', 'at least 32 characters', '<secret>', true)
    }
    this.#sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttl_seconds * 1000 })
    this.#verify = createVerifier({ key: secret, algorithms: ['HS256'] })
  }

  /** A token for the user. */
  sign(user_id: number): string {
    return this.#sign({ sub: String(user_id) })
  }

  /** The user id of a valid token; throws 401 for a forged, expired or malformed one. */
  user_id(token: string): number {
    try {
      const sub = this.#verify(token)['sub']
      const id = typeof sub === 'string' && /^[1-9][0-9]{0,15}$/.test(sub) ? Number(sub) : NaN
      if (Number.isSafeInteger(id)) return id
    } catch {
      // fall through: every failure is the same 401
    }
    throw unauthorized()
  }

  /** The caller's user id when a token is sent (a bad one is 401), undefined without one. */
  viewer(req: Request): number | undefined {
    const token = token_of(req)
    return token === undefined ? undefined : this.user_id(token)
  }

  /** The caller's user id; 401 without a valid token. */
  required(req: Request): number {
    const id = this.viewer(req)
    if (id === undefined) throw unauthorized()
    return id
  }

  /**
   * Route middleware: 401 without a valid token, else the caller's id in `Caller`. A route's own middleware runs before
   * its validation, so a caller without a token gets 401 whatever the body.
   */
  readonly signed_in: Middleware = documented(
    (req, _res, next) => {
      req.set_state(Caller, this.required(req))
      return next()
    },
    { security: { schemes: TOKEN_SCHEME, optional: false }, responses: { 401: ['unauthorized'] } },
  )

  /** Route middleware: a token, when one is sent, must be valid (401); the caller's id then goes in `Caller`. */
  readonly maybe_signed_in: Middleware = documented(
    (req, _res, next) => {
      const id = this.viewer(req)
      if (id !== undefined) req.set_state(Caller, id)
      return next()
    },
    { security: { schemes: TOKEN_SCHEME, optional: true }, responses: { 401: ['unauthorized'] } },
  )
}
