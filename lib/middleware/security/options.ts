// Checks of middleware options at creation, so a misconfiguration fails at startup with a coded error.
import { HTTP_TOKEN } from '../../response.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'

/** An integer >= `min` (and <= `max`), or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_int(mw: string, name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`
    throw ERR_SECURITY_BAD_OPTION(mw, name, range, value)
  }
  return value
}

/** A boolean, or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_bool(mw: string, name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw ERR_SECURITY_BAD_OPTION(mw, name, 'a boolean', value)
  return value
}

/** One of `allowed`, or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_one_of<T extends string>(mw: string, name: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw ERR_SECURITY_BAD_OPTION(mw, name, `one of ${allowed.join(', ')}`, value)
  return value as T
}


/** An HTTP token (a header or method name), or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_token(mw: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || !HTTP_TOKEN.test(value)) throw ERR_SECURITY_BAD_OPTION(mw, name, 'an HTTP token', value)
  return value
}

/** A list of HTTP tokens, or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_tokens(mw: string, name: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw ERR_SECURITY_BAD_OPTION(mw, name, 'a list of HTTP tokens', value)
  return value.map((v) => check_token(mw, name, v))
}

/** A header value: a non-empty string without CR, LF or NUL, or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_header_value(mw: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '' || /[\r\n\0]/.test(value)) {
    throw ERR_SECURITY_BAD_OPTION(mw, name, 'a non-empty header value without CR, LF or NUL', value)
  }
  return value
}

/** A function, or `FW_ERR_SECURITY_BAD_OPTION`. */
export function check_fn<F>(mw: string, name: string, value: F): F {
  if (typeof value !== 'function') throw ERR_SECURITY_BAD_OPTION(mw, name, 'a function', value)
  return value
}
