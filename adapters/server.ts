// The Fastify instance an App owns: its options from the App's configuration, the logger Fastify writes through (no
// child per request, no listening line of its own), and how its connections are cut or ended when the App closes.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Server, Socket } from 'node:net'
import { constants as h2, type Http2Session, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2'
import proxyaddr from '@fastify/proxy-addr'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify'
import type pino from 'pino'
import { connections_check_ms, type AppConfig } from '../lib/config.js'
import { level as log_level, pino_logger } from '../lib/log/index.js'
import { error_body } from '../lib/http-error.js'
import { fastify_body_limit } from './body.js'
import { client_error, client_error_answer, closing_refusal, framework_error, type Refuse } from './error-answers.js'
import { refuse_from_now, type RequestListener } from './observability.js'
import { request_id, sequential_ids, trust_of } from './request-lines.js'

/** A new Fastify instance for an App, with what its `close()` needs to end the instance's connections. */
export interface OwnedServer {
  readonly fastify: FastifyInstance
  /** Cuts every connection still open (close_timeout_ms has passed, or the close failed). */
  readonly cut_all: () => void
  /**
   * Stops serving, when the App's close has stopped listening (after `drain_ms`, before Fastify's close): every
   * request the server still receives (on a connection busy then) is answered 503 `not_ready` in fw's shape, counted
   * and traced (`refuse_from_now`), and the idle connections a server keeps open when it stops listening (cleartext
   * HTTP/2 sessions) are ended.
   */
  readonly stop_serving: () => void
  /** Has a malformed URL answered by `refuse`, the mounted App's refusal of a request no route matched. */
  readonly answer_unmatched: (refuse: Refuse) => void
}

/** Builds the Fastify instance of an App configured with `c`. */
export function create_server(c: AppConfig): OwnedServer {
  // HTTP/2 over TLS keeps HTTP/1.1 for clients whose ALPN does not offer h2; the instance's type does not change.
  const node_options = c.https === undefined ? {} : { https: { ...c.https, allowHTTP1: true } }
  const h2c = c.http2 && c.https === undefined
  // The mounted App's refusal of a request no route matched, which a malformed URL's answer runs once it is set.
  let unmatched: Refuse | undefined
  const f = Fastify({
    ...(node_options as object),
    http2: c.http2 as false,
    keepAliveTimeout: c.keep_alive_timeout_ms,
    requestTimeout: c.request_timeout_ms,
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, maxParamLength: 1000 },
    trustProxy: c.trust_proxy,
    bodyLimit: fastify_body_limit(c.body_limit),
    genReqId: c.request_id ? request_id : sequential_ids(),
    requestIdHeader: false,
    // Fastify's own lines go through fw/log (same level, format and destination). Each request's lines carry its
    // id from the log context (`rid=`), so no per-request child logger is needed; fw writes its own access line.
    // With the level off when the instance is made, no line can be written and Fastify gets no logger: given one,
    // it builds a child and puts two listeners and two clock reads on every response. As with the
    // access line, raising the level later brings fw's lines back but not Fastify's own warnings.
    ...(log_level() === 'off'
      ? {}
      : { loggerInstance: without_request_children(pino_logger('fastify')) as FastifyBaseLogger }),
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    // A cleartext HTTP/2 server cannot close idle connections (Fastify refuses 'idle' there): its sessions are ended
    // by close_idle instead.
    forceCloseConnections: h2c ? false : 'idle',
    // Fastify bounds each close hook by its plugin timeout (10 s). fw's own hooks are bounded by close_timeout_ms
    // (WebSockets that do not answer their 1001 are cut then), so Fastify's bound must come after fw's, or a stuck
    // peer makes close() fail with AVV_ERR_READY_TIMEOUT before fw cuts it.
    pluginTimeout: Math.max(10_000, c.close_timeout_ms + 1_000),
    // A malformed URL (`/x/%zz`) fails in the router, before any route: answer it in fw's error shape too.
    frameworkErrors: framework_error(c.request_id, () => unmatched),
    // And so does a request Node's HTTP parser refuses (bad request line, bad chunking, headers too large).
    clientErrorHandler: client_error,
  }) as unknown as FastifyInstance
  // The instance's own logger (Fastify's child of the one given), which writes its app-level lines such as listening.
  f.log = without_listening_line(f.log as pino.Logger)
  set_request_timeouts(f.server as unknown as TimedServer, c)
  if (c.http2 && c.request_timeout_ms > 0) bound_streams(f.server as unknown as Server, c.request_timeout_ms)
  if (c.http2 && c.headers_timeout_ms > 0) bound_first_headers(f.server as unknown as Server, c.headers_timeout_ms)
  const server = f.server as Server
  if (c.max_connections > 0) server.maxConnections = c.max_connections
  // Fastify's listener on the server, which metrics() may wrap and stop_serving replaces.
  const routing = server.listeners('request')[0] as RequestListener
  const close_idle = h2c ? session_closer(f.server as unknown as Server) : () => {}
  // One set of the open connections serves both: the cut of an HTTP/2 server, the end of busy HTTP/1.1 ones.
  const sockets = open_sockets(server, c.https !== undefined)
  const end_kept_alive = h2c ? () => {} : last_answers(sockets)
  return {
    fastify: f,
    cut_all: connection_cutter(f.server as unknown as TlsServer, sockets),
    answer_unmatched: (refuse) => void (unmatched = refuse),
    stop_serving: () => {
      refuse_from_now(f, routing, closing_refusal(c.request_id), refused_view(c.trust_proxy))
      close_idle()
      end_kept_alive()
    },
  }
}

/**
 * What a span reads of a Fastify request, made from a raw one no Fastify request exists for (`refuse_from_now`): its
 * `ip` and `protocol` as Fastify's `trustProxy` (the App's `trust_proxy`) makes them, the forwarded client and scheme
 * when the peer is a trusted proxy, so that the App's resolver gives `client.address` as on every other span. Made
 * only on the closing path.
 */
function refused_view(trust_proxy: string[] | boolean): (req: IncomingMessage) => FastifyRequest {
  const trusted = trust_of(trust_proxy)
  return (req) => {
    const socket = req.socket as (Socket & { encrypted?: boolean }) | undefined
    const peer = socket?.remoteAddress
    const proto = req.headers['x-forwarded-proto']
    const forwarded = typeof proto === 'string' && proto !== '' && peer !== undefined && trusted?.(peer, 0) === true
    return {
      method: req.method,
      url: req.url,
      headers: req.headers,
      raw: req,
      socket,
      ip: trusted === undefined ? peer : proxyaddr(req, trusted),
      protocol: forwarded ? proto.slice(proto.lastIndexOf(',') + 1).trim() : socket?.encrypted ? 'https' : 'http',
      routeOptions: {},
    } as unknown as FastifyRequest
  }
}

/** The timeouts Node's HTTP/1.1 server (and the HTTP/1.1 fallback of an HTTP/2 server over TLS) checks. */
type TimedServer = Server & { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number }

/**
 * Sets the request timeouts on `server`, before it listens (Node starts the timer that checks them on `listening`, at
 * the interval set then: one timer per server, whatever the number of requests).
 *
 * - A headers timeout above the request timeout is lowered to it: Node's check swaps the two when the headers one is
 *   the larger (its `createServer` refuses them so; Fastify sets the request timeout after it), so with the defaults
 *   (60 s of headers) and `request_timeout_ms: 1000`, headers got 1 s and a stalled body 60 s instead of 1 s.
 * - They are set here for every server: the HTTP/2 server over TLS sets its own for its HTTP/1.1 fallback (a check
 *   every 30 s, 300 s per request) whatever options it is given, and Fastify sets none of them on an HTTP/2 server.
 */
function set_request_timeouts(server: TimedServer, c: AppConfig): void {
  const request = c.request_timeout_ms
  server.requestTimeout = request
  server.headersTimeout = request > 0 && c.headers_timeout_ms > request ? request : c.headers_timeout_ms
  server.connectionsCheckingInterval = connections_check_ms(c)
}

/** The timer bounding an HTTP/2 stream's request, on the stream while its body is being received. */
const DEADLINE = Symbol('fw request deadline')
type BoundedStream = ServerHttp2Stream & { [DEADLINE]?: NodeJS.Timeout }

/** The 408 an HTTP/2 stream gets, in the shape and words of the HTTP/1.1 one (`client_error`), built once. */
const H2_TIMEOUT = (() => {
  const a = client_error_answer('ERR_HTTP_REQUEST_TIMEOUT')
  const body = JSON.stringify(error_body(a.code, a.message))
  const headers = {
    ':status': a.status,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  }
  return { headers, body }
})()

/**
 * Bounds each HTTP/2 request by `ms` (`request_timeout_ms`), as Node bounds an HTTP/1.1 one: Node's checks cover only
 * HTTP/1.1 connections, and an HTTP/2 stream whose body stalled was held until Fastify's session timeout (72 s of
 * silence on the whole session, which any other stream keeps off). A stream whose request is whole with its headers
 * (GET, HEAD) gets no timer; one with a body gets one, cleared when the body has been read to its end or the stream
 * closes. A stream is opened only once its headers have all arrived: `bound_first_headers` bounds the wait for them.
 */
function bound_streams(server: Server, ms: number): void {
  server.on('stream', (stream: BoundedStream) => {
    if (stream.endAfterHeaders) return
    stream[DEADLINE] = setTimeout(request_timed_out, ms, stream)
    stream.once('end', clear_deadline)
    stream.once('close', clear_deadline)
  })
}

/**
 * Ends an HTTP/2 session whose first request has not arrived whole within `ms` (`headers_timeout_ms`), as Node ends an
 * HTTP/1.1 connection whose first request's headers have not: a client trickling the HEADERS and CONTINUATION frames of
 * its first stream (or sending nothing after the preface) held the connection until Fastify's 72 s session timeout. One
 * timer per session, none per request; later streams of a session in use are left to the session timeout.
 */
function bound_first_headers(server: Server, ms: number): void {
  server.on('session', (session: ServerHttp2Session) => {
    const timer = setTimeout(() => session.destroy(), ms).unref()
    const clear = (): void => clearTimeout(timer)
    session.once('stream', clear)
    session.once('close', clear)
  })
}

function clear_deadline(this: BoundedStream): void {
  clearTimeout(this[DEADLINE])
}

/**
 * `stream`'s request was not received within its bound: it gets the 408 of HTTP/1.1 when nothing was answered yet, the
 * client then being asked to stop sending (RST_STREAM NO_ERROR after the answer, RFC 9113 section 8.1), else it is reset
 * (NGHTTP2_CANCEL). Only this stream ends; the session and its other streams go on. A request received whole but not
 * yet read by its handler is left alone, as Node leaves an HTTP/1.1 one.
 */
function request_timed_out(stream: BoundedStream): void {
  if (stream.destroyed || stream.closed || stream.state.remoteClose === 1) return
  if (stream.headersSent) {
    stream.close(h2.NGHTTP2_CANCEL)
    return
  }
  stream.respond(H2_TIMEOUT.headers)
  stream.end(H2_TIMEOUT.body)
  stream.close(h2.NGHTTP2_NO_ERROR)
}

/**
 * A logger for Fastify's `loggerInstance` that makes no child per request. Fastify asks each request's logger for
 * `child({ reqId })`; fw's lines carry the id from the log context instead, so that child would only cost. The logger is
 * built over pino's as pino builds its children (an object whose prototype is the logger), with a `child` of its own:
 * for a request's `{ reqId }` alone (no level or serializers of the route's) it answers `root`, and any other child (a
 * plugin's, Fastify's own at start-up) is pino's child, built the same way. pino's objects are never changed. Fastify's
 * `childLoggerFactory` would do the same through a supported option, but Fastify then validates the logger it returns
 * on every request (measured: about 1.1 µs more per request).
 */
function without_request_children(base: pino.Logger, root?: pino.Logger): pino.Logger {
  const logger = Object.create(base) as pino.Logger
  const top = root ?? logger
  if (root === undefined) without_fallback_warnings(logger, base)
  const child = (bindings: pino.Bindings, options?: pino.ChildLoggerOptions): pino.Logger =>
    only_request_id(bindings) && options?.level === undefined && options?.serializers === undefined
      ? top
      : without_request_children(base.child(bindings, options), top)
  Object.defineProperty(logger, 'child', { value: child, writable: true, configurable: true })
  return logger
}

/**
 * What Fastify warns, before a dump of its route table, when its router has no tree for a request's method (its 404
 * fallback, "likely a fastify bug"). Any HTTP/2 client can send such a method, and fw answers it 501 itself.
 */
const FALLBACK_WARNING =
  'the default handler for 404 did not catch this, this is likely a fastify bug, please report it'

/**
 * Drops Fastify's fallback warning and the route table (find-my-way's tree, from `└`) it writes right after it (two
 * synchronous calls), so that a client cannot have the route table written into the log once per request. Every other
 * warning is pino's, through `base`'s current method (its level may change).
 */
function without_fallback_warnings(logger: pino.Logger, base: pino.Logger): void {
  let table_next = false
  const warn = function (this: pino.Logger, ...args: unknown[]): void {
    const table = table_next && typeof args[0] === 'string' && args[0].startsWith('└')
    table_next = false
    if (table) return
    if (args[0] === FALLBACK_WARNING) {
      table_next = true
      return
    }
    ;(base.warn as (...a: unknown[]) => void).apply(this, args)
  }
  Object.defineProperty(logger, 'warn', { value: warn, writable: true, configurable: true })
}

/**
 * The text of Fastify's `Server listening at <url>` line, which it writes on every listen with no option to turn it off:
 * `listen` gives Fastify this marker as the text and the logger drops it, so the one listening line is fw's own.
 */
export const FASTIFY_LISTENING = Symbol('fastify listening line')

/**
 * `logger` dropping Fastify's listening line (its `info(FASTIFY_LISTENING)`); every other call is the logger's own,
 * the null logger of an instance without one included.
 */
function without_listening_line(logger: pino.Logger): pino.Logger {
  return new Proxy(logger, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (key !== 'info' || typeof value !== 'function') return value
      // Read on each access: pino swaps its level methods when the level changes.
      return (...args: unknown[]) => (args[0] === FASTIFY_LISTENING ? undefined : value.apply(target, args))
    },
  })
}

/** Whether `bindings` is Fastify's per-request `{ reqId }` alone, counted without allocating (it runs per request). */
function only_request_id(bindings: pino.Bindings): boolean {
  let n = 0
  for (const key in bindings) if (++n > 1 || key !== 'reqId') return false
  return typeof bindings.reqId === 'string'
}

/** The servers an App may have: HTTP/1.1 ones close their connections themselves; an HTTP/2 one does not. */
type TlsServer = Server & { closeAllConnections?: () => void }

/**
 * The open connections of `server`, tracked as they connect (its TLS sockets when `tls`: HTTP/2 sessions and HTTP/1.1
 * fallbacks alike; every socket of a cleartext one, h2c included, which never emits `secureConnection`). One set entry
 * and one shared `close` listener per connection; requests pay nothing.
 */
function open_sockets(server: Server, tls: boolean): ReadonlySet<Http1Socket> {
  const sockets = new Set<Http1Socket>()
  server.on(tls ? 'secureConnection' : 'connection', (socket: Http1Socket) => {
    sockets.add(socket)
    socket.once('close', forget)
  })
  function forget(this: Http1Socket): void {
    sockets.delete(this)
  }
  return sockets
}

/**
 * Cuts every open connection of `server`. An HTTP/2 server has no `closeAllConnections` (calling it at the deadline
 * threw in a timer): its tracked `sockets` are destroyed instead.
 */
function connection_cutter(server: TlsServer, sockets: ReadonlySet<Socket>): () => void {
  if (typeof server.closeAllConnections === 'function') return () => server.closeAllConnections!()
  return () => {
    for (const socket of sockets) socket.destroy()
  }
}

/** An HTTP/1.1 connection as Node's server holds it: the answer it is writing, when a request is in flight. */
type Http1Socket = Socket & { _httpMessage?: ServerResponse | null }

/**
 * Has every HTTP/1.1 connection of `sockets` busy when the App stops serving end once its answers are sent, and returns
 * the function that does so. Node's `server.close()` ends only the keep-alive connections idle then: one busy with an
 * answer stayed open once it was sent, and held `close()` until `close_timeout_ms` cut it (10 s per shutdown behind any
 * keep-alive client). A request pipelined behind the answer is still answered first (503 `not_ready`, which closes the
 * connection itself).
 */
function last_answers(sockets: ReadonlySet<Http1Socket>): () => void {
  // Node hands the connection to the next queued answer in its own `finish` listener, which runs before this one.
  const end_when_idle = (socket: Http1Socket): void => {
    const res = socket._httpMessage
    if (res === null || res === undefined) socket.end()
    else res.once('finish', () => end_when_idle(socket))
  }
  return () => {
    for (const socket of sockets) if (socket._httpMessage != null) end_when_idle(socket)
  }
}

/**
 * Asks every session of a cleartext HTTP/2 server to end (GOAWAY: the streams in flight finish, no new one starts), what
 * Fastify's `forceCloseConnections: 'idle'` does for HTTP/1.1, which such a server cannot have (it has no
 * `closeIdleConnections`); without it, an idle client's session held `close()` until `close_timeout_ms`.
 */
function session_closer(server: Server): () => void {
  const sessions = new Set<Http2Session>()
  server.on('session', (session: Http2Session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  return () => {
    for (const session of sessions) session.close()
  }
}
