// Embedding: fw's security headers take precedence over the same headers a host set (helmet), and say so once.
import type { FastifyInstance } from 'fastify'
import type { AppCore } from '../lib/app.js'
import { route_options_of, SECURITY_HEADERS_KIND } from '../lib/compose.js'
import { logger } from '../lib/log/index.js'
import { security_header_list } from '../lib/middleware/security/headers.js'

/** The headers `security_headers` may set, lowercase. */
const NAMES = security_header_list().map(([name]) => name.toLowerCase())

/**
 * On fw's routes that run `security_headers`, fw's values win over the ones the host's `@fastify/helmet` set on the raw
 * response in `onRequest`, before fw ran: Fastify writes the reply's headers over them. The host's values are
 * known only once its hooks have run, so the first answer on which the two differ logs one warning naming each header,
 * fw's value and the host's; later answers are not checked.
 */
export function warn_on_overridden_headers(instance: FastifyInstance, app: AppCore): void {
  // Without helmet in the host, no answer pays for the comparison.
  if (!instance.hasPlugin('@fastify/helmet')) return
  const compiled = app.compile(instance.prefix)
  const runs = compiled.routes.some((r) =>
    r.middleware.some((m) => route_options_of(m)?.kind === SECURITY_HEADERS_KIND),
  )
  if (!runs) return
  let warned = false
  instance.addHook('onSend', (_freq, reply, payload, done) => {
    if (warned) return done(null, payload)
    const differ: string[] = []
    for (const name of NAMES) {
      const fw = reply.getHeader(name)
      const host = reply.raw.getHeader(name)
      if (fw !== undefined && host !== undefined && String(fw) !== String(host))
        differ.push(`${name}: ${String(fw)} (host: ${String(host)})`)
    }
    if (differ.length > 0) {
      warned = true
      logger('fw').warn(
        "fw's security_headers replace the host's headers on fw's routes under {}: {}",
        instance.prefix === '' ? '/' : instance.prefix,
        differ.join('; '),
      )
    }
    done(null, payload)
  })
}
