// JSON building for responses (`json.o`, `json.array`, alternating key/value arguments) and the read-only `Json` view
// of a body.
import sjson from 'secure-json-parse'
import { defineError } from './errors.js'

export const ERR_JSON_ODD_PAIRS = defineError(
  'FW_ERR_JSON_ODD_PAIRS',
  (count: number) => `json() takes a value or alternating key/value arguments; got ${count} arguments`,
)
export const ERR_JSON_BAD_KEY = defineError(
  'FW_ERR_JSON_BAD_KEY',
  (key: unknown) => `json() keys must be strings; got ${String(key)}`,
)

/** A JSON value as it can be sent in a response. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined }

/**
 * Checks alternating key/value arguments `A` (`'ok', true, 'data', 7`): it is `A` itself when every key is a string and
 * the count is even, and a longer or different tuple otherwise, so an odd count or a non-string key is a type error.
 */
export type KeyValues<A extends readonly unknown[]> = A extends readonly []
  ? A
  : A extends readonly [string, unknown, ...infer R]
    ? readonly [A[0], A[1], ...KeyValues<R>]
    : readonly [string, unknown]

/** Builds an object from alternating key/value arguments, keeping insertion order. */
export function pairs_to_object(args: readonly unknown[]): Record<string, unknown> {
  if (args.length % 2 !== 0) throw ERR_JSON_ODD_PAIRS(args.length)
  const out: Record<string, unknown> = {}
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i]
    if (typeof key !== 'string') throw ERR_JSON_BAD_KEY(key)
    // defineProperty keeps a `__proto__` key as data instead of changing the prototype.
    Object.defineProperty(out, key, { value: args[i + 1], enumerable: true, writable: true, configurable: true })
  }
  return out
}

/**
 * Helpers that read like the spec's `json::o` and `json::array`.
 * @example
 * res.json('ok', true, 'data', json.o('id', 7, 'tags', json.array('a', 'b')))
 */
export const json = {
  /** An object from alternating key/value arguments; an odd count is a type error. */
  o<const A extends unknown[]>(...args: A & KeyValues<A>): Record<string, unknown> {
    return pairs_to_object(args)
  },
  /** An array of the arguments, which may be of different types. */
  array<T extends unknown[]>(...items: T): T {
    return items
  },
}

const NOT_PARSED = Symbol('not parsed')

/**
 * A read-only view of a parsed JSON body. Invalid JSON is not an error here: the view is simply not an object. Parsing
 * uses prototype-poisoning protection (`__proto__` and `constructor.prototype` keys are dropped).
 */
export class Json {
  #text: string
  #raw: unknown = NOT_PARSED
  #valid = false

  constructor(text: string) {
    this.#text = text
  }

  #parse(): void {
    if (this.#raw !== NOT_PARSED) return
    this.#raw = undefined
    if (this.#text.length === 0) return
    try {
      this.#raw = sjson.parse(this.#text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
      this.#valid = true
    } catch {
      this.#raw = undefined
    }
  }

  /** The parsed value; `undefined` when the body is empty or not valid JSON. */
  get raw(): unknown {
    this.#parse()
    return this.#raw
  }

  /** Whether the body parsed as JSON at all (any JSON value, including `null`). */
  is_valid(): boolean {
    this.#parse()
    return this.#valid
  }

  /** Whether the body is a JSON object (not an array, not null). */
  is_object(): boolean {
    const v = this.raw
    return typeof v === 'object' && v !== null && !Array.isArray(v)
  }

  /** Whether the body is a JSON array. */
  is_array(): boolean {
    return Array.isArray(this.raw)
  }

  /**
   * A field of the object, or `fallback` when it is missing, the body is not an object, or the field's type differs
   * from the fallback's.
   */
  value<T>(key: string, fallback: T): T {
    if (!this.is_object()) return fallback
    const obj = this.#raw as Record<string, unknown>
    if (!Object.hasOwn(obj, key)) return fallback
    const v = obj[key]
    if (fallback === null || fallback === undefined) return v as T
    if (Array.isArray(fallback) !== Array.isArray(v)) return fallback
    if (typeof v !== typeof fallback || v === null) return fallback
    return v as T
  }
}
