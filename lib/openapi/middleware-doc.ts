// How a middleware describes itself to the OpenAPI generator: the security scheme it enforces and the errors it
// answers.
import { with_route_options, route_options_of, type MiddlewareDoc } from '../compose.js'

export type { MiddlewareDoc, SecurityScheme } from '../compose.js'

/**
 * Attaches a description to a middleware, keeping any route options it already carries (a body limit).
 * @example
 * return documented(mw, { responses: { 429: ['rate_limit_exceeded'] } })
 */
export function documented<F extends object>(fn: F, doc: MiddlewareDoc): F {
  return with_route_options(fn, { doc })
}

/** The description a middleware carries, if any. */
export function doc_of(fn: object): MiddlewareDoc | undefined {
  return route_options_of(fn)?.doc
}
