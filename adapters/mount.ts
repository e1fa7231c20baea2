// Binds a compiled App onto a Fastify instance (its own, or an encapsulated context of a host app): body parsing,
// routes, the not-found chain, error answers, and committing the buffered Response.
import { randomUUID } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyContextConfig, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CODE_NOT_FOUND, type AppCore } from '../lib/app.js'
import { compose, type Handler } from '../lib/compose.js'
import { httpCode } from '../lib/errors.js'
import { level as log_level, logger, redact_query, run_with_request_id, with_request_id, type LogLevel } from '../lib/log/index.js'
import { route_template } from '../lib/observability/route.js'
import { Request, type IpResolver } from '../lib/request.js'
import { Response } from '../lib/response.js'
import { body_error_answer, ERR_BODY_TOO_LARGE } from '../lib/body/index.js'
import { bind_body, FW_STREAM_BODY, use_body_parser } from './body.js'
import { ip_resolver } from './ip.js'
import { send_streamed } from './stream.js'
import { mount_ws } from './ws.js'

const CODE_INTERNAL = httpCode('internal_error')
const CODE_TOO_LARGE = httpCode('payload_too_large')
const CODE_BAD_REQUEST = httpCode('bad_request')

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

type WithHeaders = { headers: Record<string, string | string[] | undefined> }

/** A well-formed incoming `x-request-id`, or undefined. */
function incoming_id(req: WithHeaders): string | undefined {
  const h = req.headers['x-request-id']
  return typeof h === 'string' && REQUEST_ID.test(h) ? h : undefined
}

/** Fastify's `genReqId`: a well-formed incoming `x-request-id`, else a new UUID. */
export function request_id(req: WithHeaders): string {
  return incoming_id(req) ?? randomUUID()
}

/**
 * The `genReqId` of an app with `request_id: false`, whose ids only reach its own log lines: a well-formed incoming
 * `x-request-id` as with `request_id`, else `req-1`, `req-2`... per app, with no UUID drawn (about 0.3 µs a request).
 */
export function sequential_ids(): (req: WithHeaders) => string {
  let n = 0
  return (req) => incoming_id(req) ?? `req-${++n}`
}

/** Registers the app's routes on `instance`; call once per app. */
export async function mount(instance: FastifyInstance, app: AppCore): Promise<void> {
  const compiled = app.compile(instance.prefix)
  const ip = ip_resolver(app.config.trust_proxy)
  const bind = binder(app, ip)

  // Bodies stay raw bytes: Request.body() decodes and Request.json() parses lazily, so bad JSON reaches the handler.
  use_body_parser(instance, app.config)
  if (!instance.hasReplyDecorator('sendFile')) await instance.register(fastifyStatic, { root: process.cwd(), serve: false })

  // A GET route answers HEAD itself unless the app registered its own HEAD route for the path (in either order).
  const own_head = new Set(compiled.routes.filter((r) => r.method === 'HEAD').map((r) => r.url))
  for (const r of compiled.routes) {
    const config = { [FW_REFUSE]: bind(compose(r.middleware, answer_refusal)), [FW_STREAM_BODY]: r.stream_body } as FastifyContextConfig
    const route = { method: r.method, url: r.url, bodyLimit: r.body_limit, handler: bind(r.run), config }
    instance.route(r.method === 'GET' ? { ...route, exposeHeadRoute: !own_head.has(r.url) } : route)
  }
  await mount_ws(instance, app, compiled.ws, ip)
  instance.setNotFoundHandler(bind(compiled.not_found))
  // No hook at all when no access line can be written (FW_LOG_LEVEL=off at start): Fastify runs hooks on every request.
  const access = app.config.access_log
  if (access !== false && log_level() !== 'off') instance.addHook('onResponse', access_line(access, ip, app.secret_query))
  instance.setErrorHandler((err: FastifyError, freq, reply) => {
    // Errors raised before the chain (body too large, bad request) carry the request id like every other answer.
    if (app.config.request_id) reply.header('x-request-id', freq.id)
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === ERR_BODY_TOO_LARGE.code) return refuse(freq, reply, 413, CODE_TOO_LARGE, 'Request body is too large')
    const status = err.statusCode ?? 500
    if (status >= 400 && status < 500) return refuse(freq, reply, status, CODE_BAD_REQUEST, err.message)
    with_request_id(freq.id, () => freq.log.error({ err }, 'request failed'))
    return error(reply, 500, CODE_INTERNAL, 'Internal Server Error')
  })
}

/** Where a route's config keeps its refusal chain: the route's middleware with `answer_refusal` in the handler's place. */
const FW_REFUSE = 'fw_refuse'
/** The answer a refused request is to get, kept on Fastify's request for `answer_refusal`. */
const REFUSAL = Symbol('fw.refusal')
type Refusal = { status: number; code: string; message: string }
type Refused = { [REFUSAL]?: Refusal }

function answer_refusal(req: Request, res: Response): void {
  const r = (req.raw as Refused)[REFUSAL]!
  res.error(r.status, r.code, r.message)
}

/**
 * Answers a request refused while its body was read (too large, unreadable) as the route's handler would have: the
 * route's middleware runs first, so CORS, security headers, rate limits and auth apply to the 4xx as to any answer (a
 * browser can read a 413 instead of seeing a CORS failure), and the error takes the handler's place. The body is empty.
 */
function refuse(freq: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string): unknown {
  const chain = (freq.routeOptions.config as { [FW_REFUSE]?: ReturnType<Bind> } | undefined)?.[FW_REFUSE]
  if (chain === undefined) return error(reply, status, code, message)
  ;(freq as Refused)[REFUSAL] = { status, code, message }
  return chain(freq, reply)
}

/** Fastify's `frameworkErrors`: router-level failures (a malformed URL) in the `{ok:false, error, message}` shape. */
export function framework_error(echo_id: boolean) {
  return (err: FastifyError, freq: FastifyRequest, reply: FastifyReply): void => {
    if (echo_id) reply.header('x-request-id', freq.id)
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400
    void error(reply, status, CODE_BAD_REQUEST, status === 400 ? 'Bad Request' : err.message)
  }
}

function error(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify({ ok: false, error: code, message }))
}

type Bind = ReturnType<typeof binder>

/** Turns a compiled chain into a Fastify handler that builds the facades, runs the chain and commits the response. */
function binder(app: AppCore, ip: IpResolver) {
  const services = app.services
  const echo_id = app.config.request_id
  return (run: Handler) => {
    const serve = (freq: FastifyRequest, reply: FastifyReply) => {
      const req = new Request(freq, services, ip)
      const res = new Response()
      if (echo_id) reply.header('x-request-id', freq.id)
      if (freq.body !== undefined) bind_body(freq.body, reply.raw)
      let result: unknown
      try {
        result = run(req, res)
      } catch (err) {
        return pending(fail(freq, reply, res, err))
      }
      if (result instanceof Promise) {
        return result.then(() => pending(commit(reply, res)), (err: unknown) => pending(fail(freq, reply, res, err)))
      }
      return pending(commit(reply, res))
    }
    // Each request runs in its own log context, so every line logged while serving it carries its id.
    return (freq: FastifyRequest, reply: FastifyReply) => run_with_request_id(freq.id, serve, freq, reply)
  }
}

/**
 * What a bound handler hands Fastify: nothing once the reply has gone out, else what is still running (a file being
 * opened, a stream being piped). A reply already sent is a thenable that Fastify and a resolving promise would each wait
 * on for nothing; one not yet sent must be waited on, or Fastify would answer the handler's `undefined` over the stream.
 */
function pending(sent: FastifyReply | Promise<FastifyReply>): FastifyReply | Promise<FastifyReply> | undefined {
  return sent instanceof Promise || !sent.sent ? sent : undefined
}

/**
 * The access line, written once a response is sent: `request rid=<id> method=GET path=/x?api_key=[redacted]
 * route=/x status=200 duration_ms=0.42 ip=10.0.0.1 ua="curl/8.5" bytes=12`. Secret query parameters are redacted; the
 * route is the template (`/users/{id}`, `(unmatched)` when none matched), the ip the client's per `trust_proxy`, bytes the
 * body's length (empty when streamed without one). Other headers are never written.
 */
function access_line(level: LogLevel, ip: IpResolver, secret_query: ReadonlySet<string>) {
  const http = logger('http')
  const write = (freq: FastifyRequest, reply: FastifyReply): void => http.logf(level, 'request', 'method', freq.method,
    'path', redact_query(freq.url, secret_query), 'route', route_template(freq.routeOptions.url), 'status', reply.statusCode,
    'duration_ms', Math.round(reply.elapsedTime * 1000) / 1000, 'ip', ip(freq), 'ua', freq.headers['user-agent'] ?? '',
    'bytes', Number(reply.getHeader('content-length') ?? 0))
  return (freq: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (http.enabled(level)) with_request_id(freq.id, write, freq, reply)
    done()
  }
}

/** Headers that describe the body or its caching: an error answer must not inherit them from a half-written response. */
const BODY_HEADERS = ['set-cookie', 'cache-control', 'etag', 'last-modified', 'expires', 'content-disposition', 'content-encoding', 'content-language', 'content-location', 'location', 'age']

/**
 * A handler or middleware threw: log it with its stack, answer 500 without one. Headers that middleware set for the
 * exchange (CORS, security headers, rate-limit counters) stay; those about the failed body go, and it is never cached.
 */
function fail(freq: FastifyRequest, reply: FastifyReply, res: Response, err: unknown): FastifyReply | Promise<FastifyReply> {
  // A body reader's refusal (413, 400, 415) is the client's doing: answered as such, not logged as a failure.
  const refused = body_error_answer(err)
  if (refused === undefined) freq.log.error({ err }, 'handler failed')
  for (const h of BODY_HEADERS) res.remove_header(h)
  res.header('cache-control', 'no-store')
  if (refused !== undefined) res.error(refused.status, refused.code, refused.message)
  else res.error(500, CODE_INTERNAL, 'Internal Server Error')
  return commit(reply, res)
}

/** Sends the buffered response. */
export function commit(reply: FastifyReply, res: Response): FastifyReply | Promise<FastifyReply> {
  reply.code(res.status_code)
  reply.headers(res.headers())
  if (res.kind === 'file') return send_file(reply, res.payload as string)
  if (res.streamed !== undefined) return send_streamed(reply, res.streamed)
  return reply.send(res.payload)
}

async function send_file(reply: FastifyReply, path: string): Promise<FastifyReply> {
  const st = await stat(path).catch(() => undefined)
  if (!st?.isFile()) {
    reply.removeHeader('cache-control')
    return error(reply, 404, CODE_NOT_FOUND, 'File not found')
  }
  const has_cache_control = reply.hasHeader('cache-control')
  return reply.sendFile(basename(path), dirname(path), { cacheControl: !has_cache_control, dotfiles: 'allow' })
}
