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
