// Checks of authentication options at creation, so a misconfiguration fails at startup with FW_ERR_AUTH_BAD_OPTION.
import { HTTP_TOKEN } from '../../response.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'

/** Throws FW_ERR_AUTH_BAD_OPTION unless `ok`; a `secret` value is described by its shape, never quoted. */
export function must(ok: boolean, mw: string, option: string, expected: string, value: unknown, secret = false): void {
  if (!ok) throw ERR_AUTH_BAD_OPTION(mw, option, expected, value, secret)
}

/** A boolean. */
export function bool_option(mw: string, option: string, value: unknown): boolean {
  must(typeof value === 'boolean', mw, option, 'a boolean', value)
  return value as boolean
}

/** A string of at least `min` characters. */
export function string_option(mw: string, option: string, value: unknown, min = 1): string {
  must(typeof value === 'string' && value.length >= min, mw, option, `a string of at least ${min} characters`, value)
  return value as string
}

/** A secret: a string of at least `min` characters; the message describes its shape, never its value. */
export function secret_option(mw: string, option: string, value: unknown, min: number): string {
  if (typeof value !== 'string' || value.length < min) {
    throw ERR_AUTH_BAD_OPTION(mw, option, `a string of at least ${min} characters`, value, true)
  }
  return value
}

/** An HTTP token, such as a header or cookie name. */
export function token_option(mw: string, option: string, value: unknown): string {
  must(typeof value === 'string' && HTTP_TOKEN.test(value), mw, option, 'an HTTP token (a header or cookie name)', value)
  return value as string
}

/** An integer >= `min`. */
export function int_option(mw: string, option: string, value: unknown, min: number): number {
  must(Number.isInteger(value) && (value as number) >= min, mw, option, `an integer >= ${min}`, value)
  return value as number
}

/** A list of non-empty strings; `non_empty` also refuses an empty list; a `secret` list is never quoted. */
export function names_option(mw: string, option: string, value: unknown, non_empty: boolean, secret = false): string[] {
  const list = typeof value === 'object' && value !== null && Symbol.iterator in value ? [...(value as Iterable<unknown>)] : undefined
  const ok = list !== undefined && (!non_empty || list.length > 0) && list.every((v) => typeof v === 'string' && v !== '')
  must(ok, mw, option, non_empty ? 'a non-empty list of non-empty strings' : 'a list of non-empty strings', value, secret)
  return list as string[]
}

/** Undefined or a function. */
export function fn_option<F>(mw: string, option: string, value: F | undefined): F | undefined {
  must(value === undefined || typeof value === 'function', mw, option, 'a function', value)
  return value
}

/** One of `allowed`. */
export function one_of_option<T extends string>(mw: string, option: string, value: unknown, allowed: readonly T[]): T {
  must(allowed.includes(value as T), mw, option, `one of ${allowed.join(', ')}`, value)
  return value as T
}
