// Header name helpers: ASCII lowercasing and in-place normalisation of a header map.

/** A header map: name to value. */
export type HeaderMap = Record<string, string>

const UPPER = /[A-Z]/

/** Sets an own property, even one named `__proto__`, without touching the object's prototype. */
export function set_own(map: HeaderMap, name: string, value: string): void {
  if (name === '__proto__')
    Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true })
  else map[name] = value
}

function toLower(s: string): string {
  // Field names are case-insensitive in ASCII only (RFC 9110 5.1); full Unicode lowercasing could change a name's
  // length.
  return UPPER.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s
}

function normalizeInPlace(map: HeaderMap): HeaderMap {
  const names = Object.keys(map)
  if (!names.some((n) => UPPER.test(n))) return map
  const values = names.map((n) => map[n]!)
  for (const n of names) delete map[n]
  // Re-inserting in the original order makes the later of two names that differ only in case win, as repeated sets
  // would.
  names.forEach((n, i) => set_own(map, toLower(n), values[i]!))
  return map
}

/**
 * The spec's `HeaderUtil`: `toLower(s)` returns an ASCII-lowercased copy; `normalizeInPlace(map)` lowercases every name
 * of a header map and returns the same map. When two names differ only in case, the later one in insertion order wins.
 * @example
 * const h = { 'Content-Type': 'text/plain', 'content-type': 'text/html' }
 * HeaderUtil.normalizeInPlace(h) // { 'content-type': 'text/html' }
 */
export const HeaderUtil = Object.freeze({ toLower, normalizeInPlace })
