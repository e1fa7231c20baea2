// The cookies a middleware writes: their options checked by one rule each, whichever middleware owns them.
import type { OptionChecks } from './options.js'

/** The `SameSite` attribute's values. */
export type SameSite = 'Strict' | 'Lax' | 'None'

const SAME_SITE: readonly SameSite[] = ['Strict', 'Lax', 'None']

// A path a Set-Cookie line can carry whole: `;` would start another attribute, spaces and NUL split or end the line.
const COOKIE_PATH = /^\/[^;\s\0]*$/

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
 * Checks a cookie's options with the owner's checkers: `cookie_name` an HTTP token, `cookie_path` a path starting with
 * `/` without `;` or spaces, `same_site` one of Strict, Lax, None, and the prefixes browsers enforce (`__Host-` and
 * `__Secure-` need `secure`, `__Host-` needs path `/`; `SameSite=None` needs `secure`).
 * @example
 * const cookie = check_cookie(check, 'session', { cookie_name: 'sid', cookie_path: '/', secure: false, http_only: true, same_site: 'Lax' })
 */
export function check_cookie(check: OptionChecks, owner: string, o: CookieOptionValues): CookieSettings {
  const name = check.token(owner, 'cookie_name', o.cookie_name)
  const path = o.cookie_path
  check.must(typeof path === 'string' && COOKIE_PATH.test(path), owner, 'cookie_path', 'a path starting with / without ; or spaces', path)
  const secure = check.bool(owner, 'secure', o.secure)
  const same_site = check.one_of(owner, 'same_site', o.same_site, SAME_SITE)
  // Browsers refuse these cookies without Secure; failing at startup beats a cookie that silently never sticks.
  check.must(secure || same_site !== 'None', owner, 'secure', 'true when same_site is None', secure)
  check.must(secure || !/^__(Host|Secure)-/.test(name), owner, 'secure', `true for a cookie named ${name}`, secure)
  check.must(!name.startsWith('__Host-') || path === '/', owner, 'cookie_path', '/ for a __Host- cookie', path)
  return { name, path: path as string, secure, http_only: check.bool(owner, 'http_only', o.http_only), same_site }
}
