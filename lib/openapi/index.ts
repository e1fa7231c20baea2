// The module behind `app.openapi()`: an OpenAPI 3.1 document generated from the routes, and a docs page to try them.
import type { AppCore } from '../app.js'
import { docs_handlers } from './docs-page.js'
import { openapi_document, type DocumentOptions } from './document.js'

export { openapi_document, type DocumentOptions, type OpenApiInfo, type SecurityRequirement } from './document.js'
export { documented, type MiddlewareDoc, type SecurityScheme } from './middleware-doc.js'
export { json_schema_of } from './json-schema.js'

/** Options of `app.openapi()`. */
export interface OpenApiOptions extends DocumentOptions {
  /** Where the document is served (default `/openapi.json`). */
  readonly path?: string
  /** Where the Swagger UI page is served (default `/docs`); false for none. */
  readonly docs?: string | false
}

/**
 * Serves the app's OpenAPI 3.1 document and its docs page. The document is built on first request, from every route
 * registered by then (including those added after this call), and kept.
 * @example
 * app.openapi({ info: { title: 'Shop', version: '1.0.0' } }) // GET /openapi.json, GET /docs
 */
export function serve_openapi(app: AppCore, options: OpenApiOptions): void {
  const path = options.path ?? '/openapi.json'
  const docs = options.docs ?? '/docs'
  let body: string | undefined
  app.route('GET', path, { hide: true }, (_req, res) => {
    body ??= JSON.stringify(openapi_document(app.route_infos(), options))
    res.header('Content-Type', 'application/json; charset=utf-8').send(body)
  })
  if (docs === false) return
  const h = docs_handlers(docs, path, `${options.info.title} ${options.info.version}`, options.servers)
  app.route('GET', docs, { hide: true }, h.page)
  app.route('GET', `${docs}/init.js`, { hide: true }, h.init)
  app.route('GET', `${docs}/{file}`, { hide: true }, h.asset)
}
