// The route label of a request: the template it matched, as fw writes templates (`/users/{id}`), never the raw URL.

const cache = new Map<string, string>()

/** The route label of a request no route matched: one value, whatever the URL, so 404 scans add no series. */
export const UNMATCHED_ROUTE = '(unmatched)'

/**
 * A router's template in fw's form: `/users/:id` becomes `/users/{id}`; undefined (no route matched) is
 * `UNMATCHED_ROUTE`.
 * @example
 * route_template('/users/:id') // '/users/{id}'
 */
export function route_template(url: string | undefined): string {
  if (url === undefined) return UNMATCHED_ROUTE
  let t = cache.get(url)
  if (t === undefined) {
    t = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    // Templates are the app's own, a bounded set: the cache cannot grow with traffic.
    cache.set(url, t)
  }
  return t
}
