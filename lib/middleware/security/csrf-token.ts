// Signed CSRF tokens: `<random>.<HMAC(secret, session id + random)>`, so only this server mints them, each for one
// session.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { option_checker } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'csrf')

const FORMAT = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/

/** Mints and checks tokens; the first secret signs, every secret verifies (rotation). */
export class CsrfSigner {
  readonly #secrets: readonly string[]

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets
  }

  /** A new token bound to `binding` (the session id, or '' without a session). */
  mint(binding: string): string {
    const nonce = randomBytes(32).toString('base64url')
    return `${nonce}.${this.#mac(this.#secrets[0]!, binding, nonce)}`
  }

  /** Whether this server minted `token` for `binding`; a planted or foreign-session token is not. */
  valid(token: string, binding: string): boolean {
    const m = FORMAT.exec(token)
    if (m === null) return false
    const given = Buffer.from(m[2]!)
    return this.#secrets.some((s) => timingSafeEqual(given, Buffer.from(this.#mac(s, binding, m[1]!))))
  }

  #mac(secret: string, binding: string, nonce: string): string {
    // The length prefix keeps (binding, nonce) pairs from colliding when concatenated.
    return createHmac('sha256', secret).update(`${binding.length}:${binding}:${nonce}`).digest('base64url')
  }
}

/**
 * The secrets option: one string or a non-empty list, each at least 32 characters (HMAC-SHA256 needs a key as long as
 * its hash, RFC 2104 section 3; 32 characters are at least 32 bytes); never quoted.
 */
export function csrf_secrets(value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value]
  if (list.length === 0 || !list.every((s) => typeof s === 'string' && s.length >= 32)) {
    check.fail('secret', 'a string or a list of strings of at least 32 characters', value, { secret: true })
  }
  return list as string[]
}
