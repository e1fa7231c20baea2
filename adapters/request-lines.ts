// What the App knows and writes about each request: its id (a well-formed incoming `x-request-id` is kept, else the
// App draws one), its client address (the socket peer, or the forwarded client when the peer is one of the operator's
// proxies, per trust_proxy), its access line once the response is sent, and the error line of a request that failed.
import { randomFillSync } from 'node:crypto'
import { isIP } from 'node:net'
import proxyaddr from '@fastify/proxy-addr'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Identity } from '../lib/identity.js'
import { without_port } from '../lib/ip-address.js'
import { enter_request, request_context, type StoredContext } from '../lib/log/context.js'
import type { LogCore } from '../lib/log/core.js'
import { logger, redact_query, type LogLevel } from '../lib/log/index.js'
import { logf_in } from '../lib/log/logger.js'
import { route_template } from '../lib/observability/route.js'
import { origin_form } from '../lib/path.js'
import { Request, type HostRequest, type IpResolver } from '../lib/request.js'
import type { Services } from '../lib/state.js'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

type WithHeaders = { headers: Record<string, string | string[] | undefined> }

/** A well-formed incoming `x-request-id`, or undefined. */
function incoming_id(req: WithHeaders): string | undefined {
  const h = req.headers['x-request-id']
  return typeof h === 'string' && REQUEST_ID.test(h) ? h : undefined
}

/** Fastify's `genReqId`: a well-formed incoming `x-request-id`, else a new UUID. */
export function request_id(req: WithHeaders): string {
  return incoming_id(req) ?? uuid()
}

/** UUIDs drawn per refill of the random pool. */
const BATCH = 256
const pool = Buffer.alloc(16 * BATCH)
let taken = pool.length
const HEX_DIGITS = Array.from('0123456789abcdef', (c) => c.charCodeAt(0))
/** The character codes of a UUID, dashes in place, hex digits written over per id. */
const text = Array.from('00000000-0000-4000-8000-000000000000', (c) => c.charCodeAt(0))

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` draws it: 16 bytes of a CSPRNG pool refilled every 256 ids, never
 * reused. Its text is made from an array of character codes by `String.fromCharCode`, one flat string without a call
 * into C++: `randomUUID` on Node 20 and 22 joins 20 pieces, a rope that Node flattens again when it checks the
 * `x-request-id` header (together 4% of a JSON hello's CPU).
 */
export function uuid(): string {
  if (taken === pool.length) {
    randomFillSync(pool)
    taken = 0
  }
  let at = 0
  for (let i = 0; i < 16; i++) {
    const b = pool[taken + i]!
    // Byte 6 carries the version (4), byte 8 the variant (binary 10), as RFC 9562 sets them.
    const v = i === 6 ? (b & 0x0f) | 0x40 : i === 8 ? (b & 0x3f) | 0x80 : b
    text[at++] = HEX_DIGITS[v >> 4]!
    text[at++] = HEX_DIGITS[v & 0x0f]!
    if (i === 3 || i === 5 || i === 7 || i === 9) at++
  }
  taken += 16
  return String.fromCharCode.apply(null, text)
}

/**
 * The `genReqId` of an app with `request_id: false`, whose ids only reach its own log lines: a well-formed incoming
 * `x-request-id` as with `request_id`, else `req-1`, `req-2`... per app, with no UUID drawn (about 0.3 µs a request).
 */
export function sequential_ids(): (req: WithHeaders) => string {
  let n = 0
  return (req) => incoming_id(req) ?? `req-${++n}`
}

/**
 * The id of a request to an App mounted in a host app, whose `genReqId` and `requestIdHeader` made `req.id`: a
 * well-formed incoming `x-request-id` as standalone, else the host's id when it is well-formed, else `draw(req)`.
 */
export function embedded_id(req: WithHeaders & { id: string }, draw: (req: WithHeaders) => string): string {
  return incoming_id(req) ?? (REQUEST_ID.test(req.id) ? req.id : draw(req))
}

type WithSocket = HostRequest & { readonly socket?: { remoteAddress?: string | undefined } }

/**
 * Builds the resolver for `req.ip()`. Fastify's own `trustProxy` already applies `X-Forwarded-For`; this adds
 * `X-Real-IP`, honoured only when there is no `X-Forwarded-For` and the socket peer is trusted, and leaves out a port a
 * proxy wrote after the forwarded or real address (`1.2.3.4:50001`), which would make each connection of one client
 * another client for the rate limit and no address at all for the IP filter. The address is '' (no address, refused
 * by `ip_filter`) when the socket no longer knows its peer: Fastify's `ip` is the socket's `remoteAddress`, undefined
 * once the client has gone unless something read it before, and an undefined address failed the rate limit and the
 * access line with a TypeError.
 */
export function ip_resolver(trust_proxy: string[] | boolean): IpResolver {
  const trusted = trust_of(trust_proxy)
  if (trusted === undefined) return (req) => req.ip ?? ''
  return (req) => {
    const real = req.headers['x-real-ip']
    if (typeof real !== 'string' || req.headers['x-forwarded-for'] !== undefined) return without_port(req.ip ?? '')
    const peer = (req as WithSocket).socket?.remoteAddress
    const ip = without_port(real.trim())
    return peer !== undefined && trusted(peer, 0) && isIP(ip) !== 0 ? ip : (req.ip ?? '')
  }
}

/** Whether the peer at `addr` is a proxy the App's `trust_proxy` trusts; `undefined` when it trusts none. */
export function trust_of(trust_proxy: string[] | boolean): ((addr: string, i: number) => boolean) | undefined {
  if (trust_proxy === false || (Array.isArray(trust_proxy) && trust_proxy.length === 0)) return undefined
  return trust_proxy === true ? () => true : proxyaddr.compile(trust_proxy)
}

/**
 * `resolve`, read once per request on `instance` when its server speaks HTTP/2. A closed HTTP/2 stream no longer reaches
 * its session's socket, so an address read after the answer (the access line's) was null while `req.ip()` during the
 * handler was right: the address is resolved when the request arrives, and that one value serves both.
 */
export function ip_of_request(instance: FastifyInstance, resolve: IpResolver): IpResolver {
  if (instance.initialConfig.http2 !== true) return resolve
  const arrived = new WeakMap<HostRequest, string>()
  instance.addHook('onRequest', (freq, _reply, done) => {
    arrived.set(freq, resolve(freq))
    done()
  })
  return (req) => arrived.get(req) ?? resolve(req)
}

const users = new WeakMap<FastifyRequest, string>()

/**
 * Remembers the caller for the request's access line: the id of the `Identity` its chain ended with (none when no
 * authenticator accepted). Called once the chain has run, so an Identity set after that is not written.
 */
export function note_user(freq: FastifyRequest, req: Request): void {
  const id = req.state(Identity)?.id
  if (id !== undefined) users.set(freq, id)
}

/**
 * The `onResponse` hook writing `request rid=<id> method=GET path=/x?api_key=[redacted] route=/x status=200
 * duration_ms=0.42 ip=10.0.0.1 ua="curl/8.5" bytes=12`, plus `user=<id>` when the request had an `Identity`. Secret query parameters are redacted; the route is the template
 * (`/users/{id}`, `(unmatched)` when none matched), the ip the client's per `trust_proxy`, bytes the body's length
 * (empty when streamed without one). Other headers are never written.
 */
export function access_line(
  level: LogLevel,
  ip: IpResolver,
  log: LogCore | undefined,
  secret_query: ReadonlySet<string>,
) {
  const http = logger('http')
  const write = (freq: FastifyRequest, reply: FastifyReply): void => {
    const pairs: unknown[] = [
      'method',
      freq.method,
      'path',
      redact_query(origin_form(freq.url), secret_query),
      'route',
      route_template(freq.routeOptions.url),
      'status',
      reply.statusCode,
      'duration_ms',
      Math.round(reply.elapsedTime * 1000) / 1000,
      'ip',
      ip(freq),
      'ua',
      freq.headers['user-agent'] ?? '',
      'bytes',
      Number(reply.getHeader('content-length') ?? 0),
    ]
    const user = users.get(freq)
    if (user !== undefined) pairs.push('user', user)
    logf_in(context_of(freq, log), 'http', level, 'request', pairs)
  }
  return (freq: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (http.enabled(level)) write(freq, reply)
    done()
  }
}

/**
 * The object that stands for the request `freq` in its log context and keys its trace span: Node's request object
 * rather than Fastify's. A followed context lives as long as anything made while it was current, such as the
 * connection's keep-alive timer set when the answer finishes, and Fastify's request holds the body and both facades: an
 * idle keep-alive connection would keep its last request alive, body included.
 */
export const request_owner = (freq: FastifyRequest): object => freq.raw

/** The log context of the request `freq`: its id, its owner (`request_owner`) and its App's log core `log`. */
export function context_of(freq: FastifyRequest, log: LogCore | undefined): StoredContext {
  return request_context(freq.id, request_owner(freq), log)
}

/**
 * Logs `message` at `error` for the request `freq`, with `rid=` and through its App's log core `log`, whatever runs it.
 * @example
 * log_failure(freq, log, 'handler failed', err)
 */
export function log_failure(freq: FastifyRequest, log: LogCore | undefined, message: string, err: unknown): void {
  logf_in(context_of(freq, log), 'fastify', 'error', message, ['err', err])
}

/** Logs, at info, a request whose client went away before its body was read (a reset, or Node's request timeout). */
export function client_gone(freq: FastifyRequest, log: LogCore | undefined): void {
  logf_in(context_of(freq, log), 'fastify', 'info', 'client went away before its body was read', [])
}

/**
 * A Fastify handler that runs `serve(req, reply)` in the request's own log context, so every line logged while serving
 * it carries its id and goes through its App's log core (`log`); the context names the request itself, since two
 * requests may send the same id, and `req.log` is bound to it. Routes and WebSocket upgrades enter this way.
 */
export function in_request_context<R>(
  services: Services,
  ip: IpResolver,
  log: LogCore | undefined,
  serve: (req: Request, reply: FastifyReply) => R,
): (freq: FastifyRequest, reply: FastifyReply) => R {
  return (freq, reply) => {
    const ctx = context_of(freq, log)
    return enter_request(ctx, serve, new Request(freq, services, ip, ctx), reply)
  }
}

/** Logs a close hook that failed (the others still run), through the App's own log core when it has one. */
export function close_hook_failed(log: LogCore | undefined): (err: unknown) => void {
  return (err) => logf_in(request_context('', undefined, log), 'fw', 'error', 'close hook failed', ['err', err])
}
