// Options are checked when the object is built: one rule for quoting a bad value, one message shape for every
// `FW_ERR_<AREA>_BAD_OPTION`, and one checker per owner, named once, with a check per kind of option.
import { defineError, type ErrorFactory } from './errors.js'
import { BAD_HEADER_VALUE, HEADER_VALUE_RULE, HTTP_TOKEN } from './http-token.js'

/**
 * The longest wait a Node timer holds (2^31 - 1 ms, about 24.8 days): a longer one, or `Infinity`, fires after 1 ms.
 * Options that become a timer's wait (a close timeout, a heartbeat, a probe's timeout, a sampling interval) stop here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * A value named by its type and size only: `a string of 12 characters`, `a Buffer of 32 bytes`, `a list of 2 items`,
 * `an object`. How secrets, and objects (which may hold credentials), appear in messages.
 */
export function describe_value(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'string') return `a string of ${value.length} characters`
  if (typeof value === 'function') return 'a function'
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.byteLength} bytes`
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** A value a message may print as written: a string, number, bigint, boolean, symbol, null or undefined. */
function is_scalar(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function')
}

/** The userinfo (`user:password@`) of a URL anywhere in a text, which may be a credential. */
const USERINFO = /(\b[a-z][a-z\d+.-]*:\/\/)[^/?#]*@/gi

/**
 * A text with the userinfo of every URL in it replaced by `***@`, so a message can show where a URL points but never
 * its credentials.
 * @example
 * without_userinfo('redis://:hunter2@10.0.0.5:6379') // 'redis://***@10.0.0.5:6379'
 */
export function without_userinfo(text: string): string {
  return text.replace(USERINFO, '$1***@')
}

/**
 * How every fw message quotes a bad value. Strings as JSON (`"a b"`), with a URL's userinfo shown as `***`; other
 * scalars as written (`NaN`, `-1`, `undefined`, `null`); a list of scalars item by item (`["a",1]`); anything else
 * (objects, functions, lists holding objects) and every `secret` by its shape only (`an object`, `a list of 2 items`),
 * since it may hold credentials.
 * @example
 * quote(NaN) // 'NaN'
 * quote('x') // '"x"'
 * quote('https://user:pw@id.example.com/') // '"https://***@id.example.com/"'
 * quote({ password: 'p' }) // 'an object'
 * quote('hunter2', true) // 'a string of 7 characters'
 */
export function quote(value: unknown, secret = false): string {
  if (secret) return describe_value(value)
  if (typeof value === 'string') return JSON.stringify(without_userinfo(value))
  if (is_scalar(value)) return String(value)
  if (Array.isArray(value) && value.every(is_scalar)) return `[${value.map((v) => quote(v)).join(',')}]`
  return describe_value(value)
}

/** The factory of an area's `FW_ERR_<AREA>_BAD_OPTION`: `<owner>: <option> must be <expected>; got <quoted value>`. */
export type BadOptionError = ErrorFactory<
  [owner: string, option: string, expected: string, value: unknown, secret?: boolean]
>

/**
 * Declares `FW_ERR_<area>_BAD_OPTION` with the one message shape every bad option shares.
 * @example
 * export const ERR_CACHE_BAD_OPTION = define_bad_option('CACHE')
 */
export function define_bad_option(area: string): BadOptionError {
  return defineError(
    `FW_ERR_${area}_BAD_OPTION`,
    (owner: string, option: string, expected: string, value: unknown, secret: boolean = false) =>
      `${owner}: ${option} must be ${expected}; got ${quote(value, secret)}`,
  )
}

/** True for an iterable (a list, a Set) other than a string. */
function is_iterable(value: unknown): value is Iterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.iterator in value
}

/** How a checker shows the value it refuses: a `secret` one by its shape only, never its content. */
export interface Shown {
  /** The value may be a credential (a key, a secret, a client): name its type and size only. */
  readonly secret?: boolean
}

/**
 * The option checks of one owner (a factory such as `'jwt'`, a class such as `'CachePolicy'`), named once: each check
 * takes the option's name and the value, returns the value typed, or throws the area's `FW_ERR_<AREA>_BAD_OPTION` as
 * `<owner>: <option> must be <expected>; got <quoted value>`. Build one with `option_checker`.
 */
export class OptionChecker {
  readonly #error: BadOptionError
  /** The name every message starts with. */
  readonly owner: string

  constructor(error: BadOptionError, owner: string) {
    this.#error = error
    this.owner = owner
  }

  /**
   * Throws the area's error: `option` must be `expected`, and was `value`. Write `return check.fail(...)` where the code
   * after it relies on the failed condition: TypeScript narrows on a return, not on a call of a bound checker.
   */
  fail(option: string, expected: string, value: unknown, shown: Shown = {}): never {
    throw this.#error(this.owner, option, expected, value, shown.secret ?? false)
  }

  /** Throws unless `ok`, as `fail` does. */
  must(ok: boolean, option: string, expected: string, value: unknown, shown: Shown = {}): void {
    if (!ok) this.fail(option, expected, value, shown)
  }

  /** A safe integer >= `min` (and <= `max`). */
  int(option: string, value: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const ok = typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`
    this.must(ok, option, range, value)
    return value as number
  }

  /** Exactly `true` or `false`. */
  bool(option: string, value: unknown): boolean {
    this.must(typeof value === 'boolean', option, 'a boolean', value)
    return value as boolean
  }

  /** A string of at least `min` characters (one by default). */
  string(option: string, value: unknown, min = 1): string {
    const expected = min === 1 ? 'a non-empty string' : `a string of at least ${min} characters`
    this.must(typeof value === 'string' && value.length >= min, option, expected, value)
    return value as string
  }

  /** A secret: a string of at least `min` characters; the message describes its shape, never its value. */
  secret(option: string, value: unknown, min: number): string {
    const ok = typeof value === 'string' && value.length >= min
    this.must(ok, option, `a string of at least ${min} characters`, value, { secret: true })
    return value as string
  }

  /**
   * A URL of one of `protocols` (`['redis:', 'rediss:']`). A bad one is quoted without its userinfo when it parses as a
   * URL, and described by its shape when it does not (it may be a password pasted in the wrong place).
   */
  url(option: string, value: unknown, protocols: readonly string[], expected: string): URL {
    let parsed: URL | undefined
    try {
      parsed = typeof value === 'string' ? new URL(value) : undefined
    } catch {
      parsed = undefined
    }
    this.must(parsed !== undefined && protocols.includes(parsed.protocol), option, expected, value, { secret: !parsed })
    return parsed!
  }

  /** One of `allowed`. */
  one_of<T extends string>(option: string, value: unknown, allowed: readonly T[]): T {
    this.must(allowed.includes(value as T), option, `one of ${allowed.join(', ')}`, value)
    return value as T
  }

  /**
   * A function. A `secret` one (a callback that handles a key, where the key itself may be given by mistake) is
   * described by its shape only.
   */
  fn<F>(option: string, value: F, shown: Shown = {}): F {
    this.must(typeof value === 'function', option, 'a function', value, shown)
    return value
  }

  /** Undefined or a function (`secret` as in `fn`). */
  optional_fn<F>(option: string, value: F | undefined, shown: Shown = {}): F | undefined {
    return value === undefined ? value : this.fn(option, value, shown)
  }

  /** An HTTP token: a header, method or cookie name. */
  token(option: string, value: unknown): string {
    this.must(typeof value === 'string' && HTTP_TOKEN.test(value), option, 'an HTTP token', value)
    return value as string
  }

  /** A list of HTTP tokens. */
  tokens(option: string, value: unknown): string[] {
    this.must(Array.isArray(value), option, 'a list of HTTP tokens', value)
    return (value as unknown[]).map((v) => this.token(option, v))
  }

  /** A header value: a non-empty string Node can write (`BAD_HEADER_VALUE`). */
  header_value(option: string, value: unknown): string {
    const ok = typeof value === 'string' && value !== '' && !BAD_HEADER_VALUE.test(value)
    this.must(ok, option, `a non-empty header value ${HEADER_VALUE_RULE}`, value)
    return value as string
  }

  /**
   * An iterable of non-empty strings, itself non-empty unless `allow_empty`; a `secret` list is described by its shape
   * only.
   */
  names(option: string, value: unknown, shown: Shown & { readonly allow_empty?: boolean } = {}): string[] {
    const list = is_iterable(value) ? [...value] : undefined
    const empty_ok = shown.allow_empty ?? false
    const ok =
      list !== undefined && (empty_ok || list.length > 0) && list.every((v) => typeof v === 'string' && v !== '')
    const expected = empty_ok ? 'a list of non-empty strings' : 'a non-empty list of non-empty strings'
    this.must(ok, option, expected, value, shown)
    return list as string[]
  }
}

/**
 * The checker of one owner's options, bound to the area's `FW_ERR_<AREA>_BAD_OPTION` and to the owner's name, so each
 * check names only the option.
 * @example
 * const check = option_checker(ERR_AUTH_BAD_OPTION, 'session')
 * check.int('ttl', 3600, 1) // 3600
 * check.secret('secret', 'short', 16) // throws '...; got a string of 5 characters'
 * check.fail('store', 'an object with load, save and destroy methods', null) // throws, quoting null
 */
export function option_checker(error: BadOptionError, owner: string): OptionChecker {
  return new OptionChecker(error, owner)
}
