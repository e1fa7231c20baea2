// The request state the authentication middleware stores; each class is its own key: `req.state(JwtClaims)`.
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'

/**
 * Stored by `api_key` when a key is accepted.
 * @example
 * const key = req.state(ApiKey)?.value
 */
export class ApiKey {
  constructor(
    /** The accepted key. */
    readonly value: string,
  ) {}
}

/**
 * Stored by `jwt` when a token is verified.
 * @example
 * const claims = req.state(JwtClaims); res.json('sub', claims?.subject)
 */
export class JwtClaims {
  constructor(
    /** The `sub` claim ('' when the token has none). */
    readonly subject: string,
    /** The roles claim: an array of strings, or one string as one role; empty when absent. */
    readonly roles: readonly string[],
    /** The whole verified payload. */
    readonly payload: Readonly<Record<string, unknown>>,
  ) {}
}

/**
 * Left by an authenticator that let the caller through without an identity (`api_key({ required: false })` without a
 * key, `jwt` for a token without `sub`): the `WWW-Authenticate` challenge a later 401 of `rbac_context` or a role or
 * permission check answers with (a 401 must carry one, RFC 9110 15.5.2). A custom authenticator may leave its own.
 * @example
 * if (!token) req.set_state(AuthChallenge, new AuthChallenge('Bearer realm="partners"'))
 */
export class AuthChallenge {
  constructor(
    /** The challenge, as `WWW-Authenticate` carries it. */
    readonly value: string,
  ) {}
}

/** A 401 `code` answered with the challenge an authenticator before it left, when one did. */
export function refuse_unauthenticated(req: Request, res: Response, code: string, message: string): void {
  const challenge = req.state(AuthChallenge)
  if (challenge !== undefined) res.header('WWW-Authenticate', challenge.value)
  res.error(401, code, message)
}

/**
 * Stored by `rbac_context`: who the caller is and what they may do; role and permission checks read it.
 * @example
 * if (req.state(Authz)?.has_perm('products:write')) save()
 */
export class Authz {
  constructor(
    /** The authenticated subject. */
    readonly subject: string,
    /** Roles from the token, plus any a `PermissionResolver` added. */
    readonly roles: Set<string>,
    /** Permissions (`<resource>:<action>`) from the token, plus any a `PermissionResolver` added. */
    readonly perms: Set<string>,
  ) {}

  /** Whether the caller has the role. */
  has_role(name: string): boolean {
    return this.roles.has(name)
  }

  /** Whether the caller has the permission. */
  has_perm(name: string): boolean {
    return this.perms.has(name)
  }
}

/** A claim read as a list of names: an array keeps its strings, one string is one name, anything else is none. */
export function claim_list(payload: Readonly<Record<string, unknown>>, key: string): string[] {
  const v = Object.hasOwn(payload, key) ? payload[key] : undefined
  if (typeof v === 'string') return v === '' ? [] : [v]
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []
}
