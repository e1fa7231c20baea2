// Packages only some apps use (JWT, metrics, tracing, multipart, static files) load on first use, so `import 'fw'`
// does not pay for them at start-up (see docs/architecture.md).
import { createRequire } from 'node:module'

const load = createRequire(import.meta.url)

/**
 * A function returning the CommonJS package `name`, loaded the first time it is called (synchronously, so factories
 * that check their options at creation stay synchronous).
 * @example
 * const fast_jwt = lazy<typeof FastJwt>('fast-jwt')
 * fast_jwt().createVerifier({ key })
 */
export function lazy<T>(name: string): () => T {
  let mod: T | undefined
  return () => (mod ??= load(name) as T)
}
