// Embedding: mount an fw App's routes and middleware into an existing Fastify app, encapsulated under a prefix; fw's
// security headers take precedence over the same headers a host set (helmet), and say so once.
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { AppCore } from '../lib/app.js'
import { route_options_of, SECURITY_HEADERS_KIND } from '../lib/compose.js'
import { logger } from '../lib/log/index.js'
import { security_header_list } from '../lib/middleware/security/headers.js'
import { mount } from './mount.js'
import { embedded_counter, install_embedded } from './observability.js'
import { close_hook_failed, embedded_id, request_id, sequential_ids } from './request-lines.js'

/** Options of the fw plugin. */
export interface FwPluginOptions {
  /** The fw App whose routes to mount (it must not also listen on its own). */
  app: AppCore
}

/**
 * A Fastify plugin that mounts an fw App. It is encapsulated: the host's other routes, parsers and error handler are
 * untouched, while the host's hooks and decorators still apply to the fw routes.
 * @example
 * host.register(fw_plugin, { app, prefix: '/fw' })
 */
export const fw_plugin: FastifyPluginAsync<FwPluginOptions> = async (instance, options) => {
  const app = options.app
  // The host's genReqId and requestIdHeader made the id: fw's routes keep a well-formed incoming x-request-id, as the
  // standalone App does, and never echo a malformed one the host took as it came.
  const draw = app.config.request_id ? request_id : sequential_ids()
  // With app.metrics(), the request is counted here, in the plugin's context: fw's routes and its 404s under the prefix
  // are, the host's other requests are not. A request routed again is counted once, on its second pass.
  const count = embedded_counter(app)
  instance.addHook('onRequest', (freq, reply, done) => {
    freq.id = embedded_id(freq, draw)
    if (!restore_url(freq.raw) && reroute(instance, freq, reply)) return
    count?.(freq.raw, reply.raw)
    done()
  })
  // After the hook above: a request is counted, and routed again under its canonical path, before it may be shed or get
  // a span.
  install_embedded(instance, app)
  await mount(instance, app, undefined, count !== undefined)
  warn_on_overridden_headers(instance, app)
  instance.addHook('onClose', async () => app.run_closers(close_hook_failed(undefined)))
}

export default fw_plugin

/** The URL a request was sent with, kept on the raw request while it is routed again under its canonical path. */
const SENT_URL = Symbol('fw.sent_url')
type Rerouted = IncomingMessage & { [SENT_URL]?: string }

/**
 * The standalone App's router ignores trailing and doubled slashes (`/items/1/`, `//items/1`, `/docs/`); a host's need
 * not, so a request under the prefix whose path has either is routed again under its canonical path when a route of
 * fw's answers there, before its body is read, as the standalone router would have chosen. The handler still sees the
 * path as sent. Returns whether it was.
 */
function reroute(instance: FastifyInstance, freq: FastifyRequest, reply: FastifyReply): boolean {
  const raw = freq.raw as Rerouted
  const sent = raw.url ?? ''
  const q = sent.indexOf('?')
  const path = q === -1 ? sent : sent.slice(0, q)
  if (!path.endsWith('/') && !path.includes('//')) return false
  const canonical = path.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1')
  if (canonical === path || instance.findRoute({ method: freq.method as 'GET', url: canonical }) === null) return false
  raw[SENT_URL] = sent
  raw.url = canonical + (q === -1 ? '' : sent.slice(q))
  instance.routing(raw, reply.raw)
  return true
}

/** Gives a request routed again its URL as sent back, once the router has matched it; returns whether it did. */
function restore_url(raw: Rerouted): boolean {
  const sent = raw[SENT_URL]
  if (sent === undefined) return false
  raw.url = sent
  delete raw[SENT_URL]
  return true
}

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
