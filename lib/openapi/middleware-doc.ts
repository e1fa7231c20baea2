// How a middleware describes itself to the OpenAPI generator: the security scheme it enforces and the errors it
// answers.
import { with_route_options, route_options_of } from '../compose.js'

/**
 * An OpenAPI security scheme object (`{ type: 'http', scheme: 'bearer' }`, `{ type: 'apiKey', in: 'header', name
 * }`...).
 */
export type SecurityScheme = Readonly<Record<string, unknown>>

/** What a middleware tells the OpenAPI document about the routes it covers. */
export interface MiddlewareDoc {
  /**
   * Schemes by name; `optional`: a request without credentials goes on; `requirements`: the alternatives, each a list
   * of scheme names that must hold together (default: any one scheme alone); `missing`: the code the middleware
   * answers when no credential came at all (so `any_of` can prefer a refusal of a bad one).
   */
  readonly security?: {
    readonly schemes: Readonly<Record<string, SecurityScheme>>
    readonly optional: boolean
    readonly requirements?: ReadonlyArray<readonly string[]>
    readonly missing?: string
  }
  /** Error answers it may give, by status, with their `error` codes. */
  readonly responses?: Readonly<Record<number, readonly string[]>>
}

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
