// Setting a member of a record copy as data: the one helper both the value copies and the redacted copies use.

/** Sets a field as data, so a `__proto__` key is kept as a key instead of replacing the prototype. */
export function set_field(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}
