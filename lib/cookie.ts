// The cookies fw writes: one Set-Cookie serializer (the `cookie` package's) behind `res.cookie`, and the cookie options
// of middleware checked by one rule each, whichever middleware owns them.
import { stringifySetCookie, type SetCookie } from 'cookie'
import { defineError } from './errors.js'
import type { OptionChecker } from './options.js'

/** The `SameSite` attribute's values. */
export type SameSite = 'Strict' | 'Lax' | 'None'

const SAME_SITE: readonly SameSite[] = ['Strict', 'Lax', 'None']

// A path a Set-Cookie line can carry whole: `;` would start another attribute, spaces and NUL split or end the line.
const COOKIE_PATH = /^\/[^;\s\0]*$/

// The name prefixes RFC 6265bis (5.7) makes browsers enforce, matched case-insensitively as it says.
const PREFIXED = /^__(?:secure|host)-/i
const HOST_PREFIXED = /^__host-/i

/** A cookie's name and attributes, checked. */
export interface CookieSettings {
  readonly name: string
  readonly path: string
  readonly secure: boolean
  readonly http_only: boolean
  readonly same_site: SameSite
}

/** A cookie's options as a middleware receives them, named as in its options (`cookie_name`, `cookie_path`...). */
export interface CookieOptionValues {
  readonly cookie_name: unknown
  readonly cookie_path: unknown
  readonly secure: unknown
  readonly http_only: unknown
  readonly same_site: unknown
}

/**
 * Checks a cookie's options with the owner's checker: `cookie_name` an HTTP token, `cookie_path` a path starting with
 * `/` without `;` or spaces, `same_site` one of Strict, Lax, None, and the prefixes browsers enforce (`__Host-` and
 * `__Secure-` need `secure`, `__Host-` needs path `/`; `SameSite=None` needs `secure`).
 * @example
 * const cookie = check_cookie(option_checker(ERR_AUTH_BAD_OPTION, 'session'), {
 *   cookie_name: 'sid',
 *   cookie_path: '/',
 *   secure: false,
 *   http_only: true,
 *   same_site: 'Lax',
 * })
 */
export function check_cookie(check: OptionChecker, o: CookieOptionValues): CookieSettings {
  const name = check.token('cookie_name', o.cookie_name)
  const path = o.cookie_path
  check.must(
    typeof path === 'string' && COOKIE_PATH.test(path),
    'cookie_path',
    'a path starting with / without ; or spaces',
    path,
  )
  const secure = check.bool('secure', o.secure)
  const same_site = check.one_of('same_site', o.same_site, SAME_SITE)
  // Browsers refuse these cookies without Secure; failing at startup beats a cookie that silently never sticks (and
  // `res.cookie` refusing it on every request). RFC 6265bis matches the prefixes case-insensitively.
  check.must(secure || same_site !== 'None', 'secure', 'true when same_site is None', secure)
  check.must(secure || !PREFIXED.test(name), 'secure', `true for a cookie named ${name}`, secure)
  check.must(!HOST_PREFIXED.test(name) || path === '/', 'cookie_path', '/ for a __Host- cookie', path)
  return { name, path: path as string, secure, http_only: check.bool('http_only', o.http_only), same_site }
}

/**
 * A cookie's value as `req.cookie` gives it: one pair of surrounding double quotes dropped (RFC 6265 4.1.1 allows a
 * quoted value, which the `cookie` package's `parseCookie` keeps), then percent-decoded where it decodes.
 */
export function cookie_value(v: string): string {
  if (v.length > 1 && v.charCodeAt(0) === 0x22 && v.charCodeAt(v.length - 1) === 0x22) v = v.slice(1, -1)
  if (!v.includes('%')) return v
  try {
    return decodeURIComponent(v)
  } catch {
    return v
  }
}

/**
 * Every value a `Cookie` header carries for `name`, in the order sent, decoded as `req.cookie` decodes them.
 * `req.cookie` gives the first only; a browser sends several when a sibling subdomain set one with `Domain=` (cookie
 * tossing), longer paths first, so a middleware verifying its cookie looks past a first value that fails.
 * @example
 * cookie_values('a=1; b=2; a="3"', 'a') // ['1', '3']
 */
export function cookie_values(header: string | undefined, name: string): string[] {
  const values: string[] = []
  if (header === undefined) return values
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=')
    if (eq !== -1 && pair.slice(0, eq).trim() === name) values.push(cookie_value(pair.slice(eq + 1).trim()))
  }
  return values
}

/**
 * Most distinct values of a name `tossed_past` verifies, the first included. A browser sends one value per cookie
 * domain and path matching the request: the app's own, plus a few left by an earlier path or domain, or tossed by a
 * sibling subdomain. Eight covers those with room to spare, where a 16 KiB header of distinct forged values would cost
 * ~230 signature checks. Bounding it gives an attacker nothing: one who can toss eight cookies in front can as well
 * toss one validly signed cookie of their own, which wins (see docs/auth.md).
 */
export const MAX_TOSSED = 8

/**
 * What `verify` makes of the first value of `name` in the `Cookie` header that it accepts, among those other than
 * `first` (the value `req.cookie` gave, which the caller verified and refused), or undefined. A cookie tossed from a
 * sibling subdomain comes first (longer path): a middleware whose own cookie fails asks this before it gives up. Each
 * distinct value is verified once, and at most `MAX_TOSSED` of them, `first` counted, so a header repeating the name
 * costs a bounded number of signature checks.
 */
export function tossed_past<T>(
  header: string | undefined,
  name: string,
  first: string,
  verify: (value: string) => T | undefined,
): T | undefined {
  const tried = [first]
  for (const value of cookie_values(header, name)) {
    if (tried.includes(value)) continue
    if (tried.length === MAX_TOSSED) return undefined
    tried.push(value)
    const found = verify(value)
    if (found !== undefined) return found
  }
  return undefined
}

/** The attributes of a `Set-Cookie` line written by `res.cookie(name, value, attributes)`. */
export interface CookieAttributes {
  /** `Path` (none by default: the browser uses the request's directory). */
  readonly path?: string
  /** `Domain` (none by default: this host only). */
  readonly domain?: string
  /** `Max-Age` in seconds; 0 tells the browser to drop the cookie. */
  readonly max_age?: number
  /** `Expires`; `max_age` wins in browsers that know both. */
  readonly expires?: Date
  /** `HttpOnly`: scripts cannot read the cookie. */
  readonly http_only?: boolean
  /** `Secure`: sent over HTTPS only. */
  readonly secure?: boolean
  /** `SameSite`. */
  readonly same_site?: SameSite
  /** `Partitioned` (CHIPS). */
  readonly partitioned?: boolean
}

/** `res.cookie` got a name, value or attribute that cannot be written in a Set-Cookie line. */
export const ERR_RESPONSE_BAD_COOKIE = defineError(
  'FW_ERR_RESPONSE_BAD_COOKIE',
  (name: string, reason: string) => `res.cookie(${JSON.stringify(name)}) cannot be written: ${reason}`,
)

const SAME_SITE_VALUE = { Strict: 'strict', Lax: 'lax', None: 'none' } as const

/** Throws for the cookies RFC 6265bis tells browsers to ignore, given attributes short of `secure`, path `/`, no domain. */
function refuse_dropped(name: string, a: CookieAttributes): void {
  if (PREFIXED.test(name)) {
    if (HOST_PREFIXED.test(name))
      throw ERR_RESPONSE_BAD_COOKIE(name, 'a __Host- cookie needs secure: true, path "/" and no domain')
    if (a.secure !== true) throw ERR_RESPONSE_BAD_COOKIE(name, 'a __Secure- cookie needs secure: true')
  }
  if (a.same_site === 'None' && a.secure !== true)
    throw ERR_RESPONSE_BAD_COOKIE(name, 'same_site None needs secure: true')
}

/** The `Set-Cookie` line for a cookie; the value is percent-encoded where the cookie grammar needs it. */
export function set_cookie_line(name: string, value: string, a: CookieAttributes): string {
  // Any other value (`'lax'`, `'bogus'` from JavaScript) is refused, not left out for the browser's default.
  if (a.same_site !== undefined && !Object.hasOwn(SAME_SITE_VALUE, a.same_site))
    throw ERR_RESPONSE_BAD_COOKIE(name, `cookie sameSite is invalid: ${String(a.same_site)}`)
  // A cookie the browser would drop without a word (RFC 6265bis 5.7: prefixes, SameSite=None without Secure) is refused
  // here, where the mistake is made, as `check_cookie` refuses it in middleware options.
  if (a.secure !== true || a.domain !== undefined || a.path !== '/') refuse_dropped(name, a)
  // The serializer skips attributes left undefined, which exactOptionalPropertyTypes cannot say of its type.
  const cookie: { [K in keyof SetCookie]: SetCookie[K] | undefined } = {
    name,
    value,
    path: a.path,
    domain: a.domain,
    maxAge: a.max_age,
    expires: a.expires,
    httpOnly: a.http_only,
    secure: a.secure,
    partitioned: a.partitioned,
    sameSite: a.same_site === undefined ? undefined : SAME_SITE_VALUE[a.same_site],
  }
  try {
    return stringifySetCookie(cookie as SetCookie)
  } catch (err) {
    throw ERR_RESPONSE_BAD_COOKIE(name, (err as Error).message, { cause: err })
  }
}
