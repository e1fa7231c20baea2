// The session cookie: `<id>.<HMAC-SHA256(id, secret) base64url>`, verified in constant time, with its Set-Cookie attributes.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'

const ID = /^[A-Za-z0-9_-]{22,128}$/

/** The cookie's name and attributes. */
export interface CookieSettings {
  readonly name: string
  readonly path: string
  readonly secure: boolean
  readonly http_only: boolean
  readonly same_site: 'Strict' | 'Lax' | 'None'
  readonly max_age: number
}

/** Reads, writes and clears the signed session cookie. */
export class SessionCookie {
  readonly #secret: string
  readonly #settings: CookieSettings
  readonly #attributes: string

  /** The cookie's name. */
  get name(): string {
    return this.#settings.name
  }

  constructor(secret: string, settings: CookieSettings) {
    this.#secret = secret
    this.#settings = settings
    const s = settings
    this.#attributes = `; Path=${s.path}${s.http_only ? '; HttpOnly' : ''}${s.secure ? '; Secure' : ''}; SameSite=${s.same_site}`
  }

  /** The session id in the request's cookie, or undefined when absent, malformed or not signed with this secret. */
  read(req: Request): string | undefined {
    const value = req.cookie(this.#settings.name)
    if (value === undefined) return undefined
    const dot = value.indexOf('.')
    const id = value.slice(0, dot)
    if (dot === -1 || !ID.test(id)) return undefined
    const given = Buffer.from(value.slice(dot + 1))
    const expected = Buffer.from(this.#mac(id))
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined
  }

  /** Sets the cookie for `id`, living as long as the session in the store. */
  write(res: Response, id: string): void {
    res.header('Set-Cookie', `${this.#settings.name}=${id}.${this.#mac(id)}; Max-Age=${this.#settings.max_age}${this.#attributes}`)
  }

  /** Tells the browser to drop the cookie. */
  clear(res: Response): void {
    res.header('Set-Cookie', `${this.#settings.name}=; Max-Age=0${this.#attributes}`)
  }

  #mac(id: string): string {
    return createHmac('sha256', this.#secret).update(id).digest('base64url')
  }
}
