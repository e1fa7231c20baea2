// Same-origin tests on request headers: whether an `Origin` names the host the request was sent to.

/**
 * Whether `origin` (an `Origin` header) names the same host and port as `host` (the `Host` header), default ports
 * included: `https://example.com` and `Host: example.com:443` are the same. `null`, garbage or an empty host are not.
 * @example
 * same_host('https://chat.example.com', 'chat.example.com') // true
 */
export function same_host(origin: string, host: string): boolean {
  if (origin === 'null' || host === '') return false
  try {
    // Both sides through URL, so a default port (`Host: example.com:443` against `https://example.com`) compares equal.
    const o = new URL(origin)
    return new URL(`${o.protocol}//${host}`).host === o.host
  } catch {
    return false
  }
}

/**
 * Whether `o` is an origin exactly as a browser serialises it in `Origin` (`scheme://host[:port]`, lowercase host, no
 * default port, no path), or `null`: an allow-list entry written otherwise (`https://App.example.com/`,
 * `https://example.com:443`) would never equal a header, and a plain string comparison is then the whole match.
 * @example
 * is_exact_origin('https://app.example.com') // true
 * is_exact_origin('https://app.example.com/') // false
 */
export function is_exact_origin(o: unknown): boolean {
  if (o === 'null') return true
  // URL accepts `*` in a host; a browser never sends one, so such an entry is a pattern that would never match.
  if (typeof o !== 'string' || o.includes('*')) return false
  try {
    const url = new URL(o)
    return url.origin !== 'null' && url.origin === o
  } catch {
    return false
  }
}
