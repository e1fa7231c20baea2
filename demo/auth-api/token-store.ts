// The spec's token map (token text to user id): fixed `dev-token-<id>` tokens in demonstration mode, random expiring
// ones in production.
import { createHash, randomBytes } from 'node:crypto'

/** A token handed out by login; `expires_in` (seconds) when it expires. */
export interface IssuedToken {
  readonly token: string
  readonly expires_in?: number
}

/**
 * Issues tokens for users and resolves them back to user ids: in memory (`DevTokens`, `RandomTokens`) or in a database
 * (`SqlTokens`), so each method may answer at once or with a promise.
 */
export interface TokenStore {
  /** A token for the user, valid from `now_ms`. */
  issue(user_id: number, now_ms: number): IssuedToken | Promise<IssuedToken>
  /** The user id behind a token still valid at `now_ms`. */
  user_id(token: string, now_ms: number): number | undefined | Promise<number | undefined>
}

/**
 * Demonstration mode, as the spec: the token is the fixed text `dev-token-` and the decimal user id, kept in the token
 * map; it never expires. Anyone who can count can forge one: never use it outside a demonstration.
 */
export class DevTokens implements TokenStore {
  readonly #tokens = new Map<string, number>()

  /** `dev-token-<id>`, recorded in the map. */
  issue(user_id: number): IssuedToken {
    const token = `dev-token-${user_id}`
    this.#tokens.set(token, user_id)
    return { token }
  }

  /** The id a login recorded for this token. */
  user_id(token: string): number | undefined {
    return this.#tokens.get(token)
  }
}

interface Grant {
  user_id: number
  expires_at_ms: number
}

/** Expired grants are dropped on lookup, and all of them in one sweep every this many logins, so stores stay bounded. */
export const SWEEP_EVERY = 256

/**
 * Production mode: 32 random bytes (base64url, 43 characters) that expire `ttl` seconds after login. The map is keyed
 * by the token's SHA-256, so a dump of process memory holds no usable token.
 * @example
 * const tokens = new RandomTokens(3600)
 * const { token } = tokens.issue(1, Date.now())
 */
export class RandomTokens implements TokenStore {
  readonly #grants = new Map<string, Grant>()
  readonly #ttl_ms: number
  #issued = 0

  constructor(readonly ttl: number) {
    this.#ttl_ms = ttl * 1000
  }

  /** A new random token for the user, expiring `ttl` seconds from `now_ms`. */
  issue(user_id: number, now_ms: number): IssuedToken {
    if (++this.#issued % SWEEP_EVERY === 0) this.#sweep(now_ms)
    const token = randomBytes(32).toString('base64url')
    this.#grants.set(digest(token), { user_id, expires_at_ms: now_ms + this.#ttl_ms })
    return { token, expires_in: this.ttl }
  }

  /** The user id behind an unexpired token; an expired one is forgotten. */
  user_id(token: string, now_ms: number): number | undefined {
    const key = digest(token)
    const grant = this.#grants.get(key)
    if (grant === undefined) return undefined
    if (now_ms < grant.expires_at_ms) return grant.user_id
    this.#grants.delete(key)
    return undefined
  }

  /** How many tokens are held (expired ones included until they are looked up or swept). */
  get size(): number {
    return this.#grants.size
  }

  #sweep(now_ms: number): void {
    for (const [key, grant] of this.#grants) if (now_ms >= grant.expires_at_ms) this.#grants.delete(key)
  }
}

/** The SHA-256 of a token (base64url), the only form in which a store keeps it. */
export function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url')
}
