// The session cookie: `<id>.<HMAC-SHA256(id, secret) base64url>`, verified in constant time, with its Set-Cookie
// attributes.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Request } from '../../request.js'
import { tossed_past, type CookieAttributes, type CookieSettings } from '../../cookie.js'
import type { Response } from '../../response.js'

const ID = /^[A-Za-z0-9_-]{22,128}$/

/** The cookie's name and attributes, and its lifetime in seconds. */
export interface SessionCookieSettings extends CookieSettings {
  readonly max_age: number
}

/** A verified cookie: the session id, and whether it was signed with a retired secret (so it is signed again). */
export interface CookieId {
  readonly id: string
  readonly retired: boolean
}

/** Reads, writes and clears the signed session cookie; the first secret signs, every secret verifies (rotation). */
export class SessionCookie {
  readonly #secrets: readonly string[]
  readonly #settings: SessionCookieSettings
  readonly #attributes: CookieAttributes

  /** The cookie's name. */
  get name(): string {
    return this.#settings.name
  }

  constructor(secrets: readonly string[], settings: SessionCookieSettings) {
    this.#secrets = secrets
    this.#settings = settings
    this.#attributes = {
      path: settings.path,
      http_only: settings.http_only,
      secure: settings.secure,
      same_site: settings.same_site,
    }
  }

  /**
   * The session id in the request's cookie, or undefined when absent, malformed or signed with none of the secrets.
   * When the first value of the name fails, the others are tried: a cookie tossed from a sibling subdomain (sent first,
   * with its longer path) would otherwise hide the user's own session. Each distinct value is verified once, and at
   * most `MAX_TOSSED` of them (`tossed_past`), so a header repeating the name costs a bounded number of HMACs.
   */
  read(req: Request): CookieId | undefined {
    const name = this.#settings.name
    const first = req.cookie(name)
    if (first === undefined) return undefined
    return this.#verify(first) ?? tossed_past(req.raw.headers.cookie, name, first, (v) => this.#verify(v))
  }

  /** The id in one cookie value, when it is well formed and signed with one of the secrets. */
  #verify(value: string): CookieId | undefined {
    const dot = value.indexOf('.')
    const id = value.slice(0, dot)
    if (dot === -1 || !ID.test(id)) return undefined
    const given = Buffer.from(value.slice(dot + 1))
    for (let i = 0; i < this.#secrets.length; i++) {
      const expected = Buffer.from(this.#mac(id, this.#secrets[i]!))
      if (given.length === expected.length && timingSafeEqual(given, expected)) return { id, retired: i > 0 }
    }
    return undefined
  }

  /** Sets the cookie for `id`, living as long as the session in the store (`max_age` seconds, default the ttl). */
  write(res: Response, id: string, max_age = this.#settings.max_age): void {
    res.cookie(this.#settings.name, `${id}.${this.#mac(id, this.#secrets[0]!)}`, { ...this.#attributes, max_age })
  }

  /** Tells the browser to drop the cookie. */
  clear(res: Response): void {
    res.cookie(this.#settings.name, '', { ...this.#attributes, max_age: 0 })
  }

  #mac(id: string, secret: string): string {
    return createHmac('sha256', secret).update(id).digest('base64url')
  }
}
