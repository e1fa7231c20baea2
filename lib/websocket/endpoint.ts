// A WebSocket route: its handler, options and open connections; accepting an upgraded socket and draining on close.
import type { Middleware } from '../compose.js'
import { HTTP_TOKEN } from '../http-token.js'
import type { StoredContext } from '../log/context.js'
import { within } from '../maybe-promise.js'
import { same_host } from '../origin.js'
import type { Request } from '../request.js'
import type { Response } from '../response.js'
import { WebSocketConnection, type RawSocket } from './connection.js'
import { CLOSE, CODE_BAD_REQUEST, CODE_ORIGIN_FORBIDDEN, CODE_UPGRADE_REQUIRED } from './errors.js'
import { extensions_ok } from './extensions.js'
import { ws_settings, type WsOptions, type WsSettings } from './options.js'
import type { Rooms } from './rooms.js'

const SHUTTING_DOWN = 'server shutting down'
/** The versions ws speaks: 13 (RFC 6455) and 8 (the hybi-08 draft). */
const VERSIONS = '13, 8'
/** A `Sec-WebSocket-Key` as ws takes it: 16 bytes in base64 (RFC 6455 section 4.1). */
const KEY = /^[+/0-9A-Za-z]{22}==$/

function upgrade_required(res: Response): Response {
  return res.header('Upgrade', 'websocket').error(426, CODE_UPGRADE_REQUIRED, 'WebSocket upgrade required')
}

/** No `Sec-WebSocket-Protocol`: no subprotocol offered. */
const NONE: readonly string[] = Object.freeze([])
/** The whitespace around a list element (RFC 9110 OWS). */
const OWS = /^[ \t]+|[ \t]+$/g

/**
 * The subprotocols an upgrade offers, in the client's order (RFC 6455 section 4.1: its order of preference): the
 * `Sec-WebSocket-Protocol` list, several header lines being one list (Node joins them), whitespace around each name
 * dropped. Undefined when ws would refuse the header: an empty element, a name that is not an HTTP token, or one
 * offered twice.
 */
function offered_protocols(req: Request): readonly string[] | undefined {
  const header = req.raw.headers['sec-websocket-protocol']
  if (header === undefined) return NONE
  const names = header.split(',')
  // A set, not a search of the list per name: a header of thousands of distinct names costs linear time.
  const seen = new Set<string>()
  for (let i = 0; i < names.length; i++) {
    const name = (names[i] = names[i]!.replace(OWS, ''))
    if (!HTTP_TOKEN.test(name) || seen.has(name)) return undefined
    seen.add(name)
  }
  return names
}

/**
 * Answers, in fw's shape, an upgrade that ws would refuse with a text/html body of its own: an unsupported
 * `Sec-WebSocket-Version` gets 426 with the versions spoken (RFC 6455 section 4.4), a missing or malformed
 * `Sec-WebSocket-Key` 400, and so does a malformed `Sec-WebSocket-Protocol`, and, on a route with `per_message_deflate`
 * (ws reads the header only there), a malformed `Sec-WebSocket-Extensions`. The checks are ws's own, made first;
 * true when it answered.
 */
function refused_handshake(
  req: Request,
  res: Response,
  offer: readonly string[] | undefined,
  deflate: boolean,
): boolean {
  // As ws reads it: `Number`, so '13' and ' 13' pass and '' does not.
  const version = Number(req.header('sec-websocket-version'))
  if (version !== 13 && version !== 8) upgrade_required(res.header('Sec-WebSocket-Version', VERSIONS))
  else if (!KEY.test(req.header('sec-websocket-key')))
    res.error(400, CODE_BAD_REQUEST, 'Missing or invalid Sec-WebSocket-Key header')
  else if (offer === undefined) res.error(400, CODE_BAD_REQUEST, 'Invalid Sec-WebSocket-Protocol header')
  else if (deflate && !extensions_ok(req.raw.headers['sec-websocket-extensions']))
    res.error(400, CODE_BAD_REQUEST, 'Invalid Sec-WebSocket-Extensions header')
  else return false
  return true
}

/** A WebSocket handler: called once per connection, after the route's middleware accepted the upgrade. */
export type WsHandler = (ws: WebSocketConnection, req: Request) => void | PromiseLike<void>

/** One `app.ws(...)` route. */
export class WsEndpoint {
  readonly path: string
  readonly settings: WsSettings
  readonly #handler: WsHandler
  readonly #open = new Set<WebSocketConnection>()
  /** The subprotocol the gate chose for each upgrade it passed, on a route with `protocols`. */
  readonly #chosen = new WeakMap<Request, string>()
  /**
   * Where the App's close is: an upgrade still in its middleware when it began is accepted only to get the 1001 too,
   * or to be cut with the rest once the grace period is over.
   */
  #shutdown: 'none' | 'draining' | 'cut' = 'none'
  /** Resolves the drain's wait once the last open connection has closed. */
  #emptied: (() => void) | undefined

  constructor(path: string, handler: WsHandler, options: WsOptions = {}) {
    this.path = path
    this.#handler = handler
    this.settings = ws_settings(`ws ${path}`, options)
  }

  /** Open connections of this route. */
  get connections(): ReadonlySet<WebSocketConnection> {
    return this.#open
  }

  /**
   * The last middleware of the upgrade: refuses a plain HTTP request (or an `Upgrade` to another protocol) with 426,
   * bad handshake headers as `refused_handshake` does, and a cross-origin upgrade with 403: an `Origin` whose host
   * differs from the `Host` and that `origins` does not list. A browser sends `Origin` on every upgrade and sends the
   * page's cookies with it, and CORS does not protect WebSockets (cross-site WebSocket hijacking); a client that sends
   * no `Origin` is not a browser and passes. A route with `protocols` refuses with 400 an upgrade that offers none of
   * them (a browser fails a connection whose 101 selects none of those it offered, so accepting it would serve no one),
   * naming the ones it speaks in `Sec-WebSocket-Protocol`.
   */
  gate(is_upgrade: (req: Request) => boolean): Middleware {
    const origins = this.settings.origins
    const spoken = this.settings.protocols
    const listed = spoken?.join(', ')
    const deflate = this.settings.per_message_deflate
    return (req, res, next) => {
      if (!is_upgrade(req) || req.header('upgrade').toLowerCase() !== 'websocket') return void upgrade_required(res)
      const offer = offered_protocols(req)
      if (refused_handshake(req, res, offer, deflate)) return
      const origin = req.header('origin')
      if (origin !== '' && !origins?.has(origin) && !same_host(origin, req.header('host')))
        return void res.error(403, CODE_ORIGIN_FORBIDDEN, 'Origin not allowed')
      if (spoken !== undefined) {
        const chosen = offer!.find((name) => spoken.includes(name))
        if (chosen === undefined) {
          res.header('Sec-WebSocket-Protocol', listed!)
          return void res.error(400, CODE_BAD_REQUEST, 'Missing or unsupported Sec-WebSocket-Protocol header')
        }
        this.#chosen.set(req, chosen)
      }
      return next()
    }
  }

  /**
   * The subprotocol the 101 of an upgrade the gate passed selects, for a route with `protocols`: the first the client
   * offers, in its order, that the route speaks, as the gate chose it when it parsed the header. Undefined for a route
   * without `protocols`, where ws's own choice stands (the client's first offer, or a host's `handleProtocols`).
   */
  protocol(req: Request): string | undefined {
    return this.#chosen.get(req)
  }

  /**
   * Wraps an upgraded socket and runs the handler in the request's log context (`ctx`, the one its middleware ran in;
   * by default one holding its id); a throw closes it with 1011. Until an async handler registers `on_message`, the
   * socket is paused and what the client sent meanwhile is held for it.
   */
  accept(raw: RawSocket, req: Request, rooms: Rooms, ctx?: StoredContext): WebSocketConnection {
    const conn = new WebSocketConnection(raw, req, this.settings, rooms, ctx)
    this.#open.add(conn)
    conn.on_close(() => this.#forget(conn))
    if (this.#shutdown === 'draining') conn.close(CLOSE.going_away, SHUTTING_DOWN)
    else if (this.#shutdown === 'cut') conn.terminate()
    conn.in_context(() => conn.run(this.#handler))
    return conn
  }

  #forget(conn: WebSocketConnection): void {
    if (this.#open.delete(conn) && this.#open.size === 0) this.#emptied?.()
  }

  /**
   * Sends every open connection a 1001 close frame, waits up to `grace_ms` for them to close, then cuts the rest. A
   * connection accepted meanwhile (its upgrade's middleware was still running) gets the 1001 and is waited for too.
   */
  async drain(grace_ms: number): Promise<void> {
    this.#shutdown = 'draining'
    if (this.#open.size === 0) return
    const closed = new Promise<void>((resolve) => (this.#emptied = resolve))
    for (const c of this.#open) c.close(CLOSE.going_away, SHUTTING_DOWN)
    await within(closed, grace_ms, undefined)
    this.#shutdown = 'cut'
    for (const c of this.#open) c.terminate()
    // A cut socket reports its close on a later tick: wait for it, so on_close handlers have run when close() resolves.
    await closed
  }
}
