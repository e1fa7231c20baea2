// Binds the App's WebSocket routes to @fastify/websocket: the upgrade request runs the route's middleware before any
// socket exists, so a refusal is an ordinary HTTP answer (401, 403, 429...); an accepted one becomes a connection.
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws'
import type { AppCore, CompiledWsRoute } from '../lib/app.js'
import { compose, type Handler } from '../lib/compose.js'
import type { LogCore } from '../lib/log/core.js'
import type { IpResolver, Request } from '../lib/request.js'
import { Response } from '../lib/response.js'
import type { RawSocket } from '../lib/websocket/index.js'
import { commit } from './commit.js'
import { context_of, in_request_context } from './request-lines.js'
import { fail } from './error-answers.js'

/** Registers the plugin and the app's WebSocket routes on `instance` (after its HTTP routes, which stay unwrapped). */
export async function mount_ws(
  instance: FastifyInstance,
  app: AppCore,
  routes: readonly CompiledWsRoute[],
  ip: IpResolver,
  log?: LogCore,
): Promise<void> {
  if (routes.length === 0) return
  // The upgrades that passed their chain, with the Response their middleware filled (headers for the 101).
  const accepted = new WeakMap<IncomingMessage, { req: Request; res: Response }>()
  const drain = async (): Promise<void> => {
    await Promise.all(routes.map((r) => r.endpoint.drain(app.config.close_timeout_ms)))
  }
  // A host app that registered @fastify/websocket itself keeps its server and options; fw then drains in a hook of its
  // own.
  const hosted = instance.hasDecorator('websocketServer')
  if (hosted) instance.addHook('preClose', drain)
  // @fastify/websocket (and ws) load only for an app that has WebSocket routes.
  else
    await instance.register((await import('@fastify/websocket')).default, {
      options: {
        // ws checks one limit per server: the largest route's; each connection applies its own route's below it.
        maxPayload: Math.max(...routes.map((r) => r.endpoint.settings.max_payload)),
        perMessageDeflate: routes.some((r) => r.endpoint.settings.per_message_deflate),
      },
      // Each connection logs its own socket errors and ws closes the socket (1007, 1009) itself.
      errorHandler: () => {},
      preClose: async () => {
        await drain()
        instance.websocketServer.close()
      },
    })
  select_protocols(instance.websocketServer)
  instance.websocketServer.on('headers', (headers: string[], raw: IncomingMessage) => {
    const res = accepted.get(raw)?.res
    if (res === undefined) return
    for (const [name, value] of Object.entries(res.headers())) {
      for (const v of Array.isArray(value) ? value : [value]) headers.push(`${name}: ${v}`)
    }
  })
  for (const r of routes) {
    const passed = new WeakSet<Request>()
    const accept: Handler = (req) => void passed.add(req)
    const chain = compose([...r.middleware, r.endpoint.gate((req) => (req.raw as FastifyRequest).ws)], accept)
    const deflate = r.endpoint.settings.per_message_deflate
    const max_payload = r.endpoint.settings.max_payload
    const upgrade = async (req: Request, reply: FastifyReply): Promise<unknown> => {
      const freq = req.raw as FastifyRequest
      // A refused upgrade's socket is destroyed once answered (by the plugin's onResponse hook): the answer says so, as
      // ws's own refusals do, or a keep-alive client would send its next request on a dead socket.
      if (freq.ws) reply.header('connection', 'close')
      const res = new Response()
      if (app.config.request_id) res.header('x-request-id', freq.id)
      try {
        await chain(req, res)
      } catch (err) {
        return fail(freq, reply, req, res, err, log, r.on_error(req))
      }
      if (!passed.has(req)) return commit(reply, res, log)
      // Without this header ws does not negotiate compression for a route that keeps it off.
      if (!deflate) delete freq.raw.headers['sec-websocket-extensions']
      const protocol = r.endpoint.protocol(req)
      if (protocol !== undefined) chosen_protocols.set(freq.raw, protocol)
      accepted.set(freq.raw, { req, res })
      return undefined
    }
    instance.route({
      method: 'GET',
      url: r.url,
      exposeHeadRoute: false,
      preHandler: in_request_context(app.services, ip, log, upgrade),
      // Never reached: the gate answers a plain GET with 426 and the plugin hijacks an upgrade.
      handler: (_freq, reply) => reply.code(426).send(),
      wsHandler: (socket: WebSocket, freq: FastifyRequest) => {
        const a = accepted.get(freq.raw)!
        limit_payload(socket, max_payload)
        // The host's plugin closes every socket of `clients` without a code (1005) in its preClose, which runs before
        // fw's: fw's sockets are left out of it, and get their 1001 from the drain. A host server made with
        // `clientTracking: false` has no `clients`: a throw here would have the plugin cut every fw socket at once.
        if (hosted) instance.websocketServer.clients?.delete(socket)
        // Messages run in the context the upgrade's middleware ran in: its id, request and App's log core.
        r.endpoint.accept(socket as unknown as RawSocket, a.req, app.rooms, context_of(freq, log))
      },
    })
  }
}

/**
 * The subprotocol the gate chose for an upgrade it accepted on a route with `protocols`, by raw request: one map for
 * every App mounted on a server, as one ws server serves them all.
 */
const chosen_protocols = new WeakMap<IncomingMessage, string>()
/** The ws servers whose `handleProtocols` `select_protocols` has taken over. */
const selecting = new WeakSet<WebSocketServer>()

type HandleProtocols = NonNullable<ServerOptions['handleProtocols']>

/**
 * Makes `server` (fw's own, or a host's) select fw's choice for an upgrade fw accepted on a route with `protocols`,
 * without calling the host's `handleProtocols`: a host function that answered `false` or another name opened the
 * connection without a protocol the route speaks. Any other upgrade (the host's own routes, fw's routes without
 * `protocols`) gets the host's function as before, or ws's default, the client's first offer. ws reads
 * `options.handleProtocols` at each upgrade, so the option becomes an accessor: a function the host gave in the
 * plugin's options, or assigns to it before or after fw mounted, is the one called for the others. Once per server.
 */
function select_protocols(server: WebSocketServer): void {
  if (selecting.has(server)) return
  selecting.add(server)
  const options = server.options
  let host = options.handleProtocols
  // ws calls it only for an upgrade that offers at least one protocol.
  const select: HandleProtocols = (offer, raw) =>
    chosen_protocols.get(raw) ?? (host ? host(offer, raw) : offer.values().next().value!)
  Object.defineProperty(options, 'handleProtocols', {
    configurable: true,
    enumerable: true,
    get: () => select,
    set: (fn: ServerOptions['handleProtocols']) => void (host = fn),
  })
}

/** The parts of a `ws` socket that hold its payload limit (internals: ws has no per-connection limit of its own). */
interface PayloadLimited {
  _receiver?: { _maxPayload?: unknown }
  _extensions?: Record<string, { _maxPayload?: unknown } | undefined>
}

/**
 * ws applies one `maxPayload` per server: the largest route's (or the host's). A route's own, lower, is put on the
 * connection's frame reader and inflater too, so a frame announcing more is refused with 1009 from its header, before
 * its bytes are read and buffered: a connection to a route never holds more than that route's `max_payload`. Should ws
 * rename these, the route's limit still holds, checked once the whole message has arrived.
 */
function limit_payload(socket: WebSocket, max: number): void {
  const ws = socket as unknown as PayloadLimited
  for (const part of [ws._receiver, ws._extensions?.['permessage-deflate']]) {
    if (part === undefined || typeof part._maxPayload !== 'number') continue
    // 0 is ws's "no limit"; a host's lower limit stays.
    if (part._maxPayload === 0 || part._maxPayload > max) part._maxPayload = max
  }
}
