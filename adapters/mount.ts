// Binds a compiled App onto a Fastify instance (its own, or an encapsulated context of a host app): body parsing,
// routes, the not-found chain and the hooks. Request ids and lines (request-lines.ts), error answers
// (error-answers.ts) and committing the reply (commit.ts) each have a file of their own beside this one.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { AppCore, BodyOf, CompiledRoute, ErrorMapperOf, RoutedRequest } from '../lib/app.js'
import { compose, CORS_KIND, route_options_of, type Handler, type Middleware } from '../lib/compose.js'
import type { LogCore } from '../lib/log/core.js'
import { level as log_level } from '../lib/log/index.js'
import { is_thenable } from '../lib/maybe-promise.js'
import { route_template } from '../lib/observability/route.js'
import { canonical_segments, type RouterParams } from '../lib/path.js'
import type { IpResolver, Request } from '../lib/request.js'
import { Response } from '../lib/response.js'
import type { ResponseCheck } from '../lib/validation/response-check.js'
import { bind_body, body_config, body_route, fastify_body_limit, use_body_parser, type BodyRoute } from './body.js'
import { checked_commit, commit, end_streams_on_close, head_on_send, pending, type Commit } from './commit.js'
import { error_handler, fail, type Refuse } from './error-answers.js'
import { note_route, prefixed } from './observability.js'
import { access_line, in_request_context, ip_of_request, ip_resolver, note_user } from './request-lines.js'
import { mount_ws } from './ws.js'

/**
 * Registers the app's routes on `instance`; call once per app. Its requests' lines go through `log` when given;
 * `note_routes` notes each answered request's route for `count_requests` (app.metrics). Resolves with the refusal of a
 * request no route matched, which runs the App's global middleware first, as its 404 does: an App that owns its server
 * answers a malformed URL with it (`answer_unmatched`).
 */
export async function mount(
  instance: FastifyInstance,
  app: AppCore,
  log?: LogCore,
  note_routes = false,
): Promise<Refuse> {
  const compiled = app.compile(instance.prefix)
  const ip = ip_of_request(instance, ip_resolver(app.config.trust_proxy))
  // No hook at all when no access line can be written (FW_LOG_LEVEL=off at start): Fastify runs hooks on every request.
  // Then nothing reads the caller either, so the chain does not note it.
  const access = app.config.access_log
  const lines = access !== false && log_level() !== 'off'
  const bind = binder(app, ip, log, lines, note_routes ? instance.prefix : undefined)

  // Bodies stay raw bytes: Request.body() decodes and Request.json() parses lazily, so bad JSON reaches the handler.
  use_body_parser(instance, app.config)

  // A GET route answers HEAD itself unless the app registered its own HEAD route for the path (in either order).
  const own_head = new Set(compiled.routes.filter((r) => r.method === 'HEAD').map((r) => r.url))
  for (const r of compiled.routes) {
    const config = { ...body_config(route_body(app, r)), ...cors_config(r.middleware) }
    const errorHandler = error_handler(app.config.request_id, log, refusal(bind, r))
    const handler = bind(r.run, r.on_error, r.check, r.url)
    const bodyLimit = fastify_body_limit(r.body_limit)
    const hooks = r.params_of === undefined ? {} : { onRequest: params_hook(r.params_of) }
    const route = { method: r.method, url: r.url, bodyLimit, handler, config, errorHandler, ...hooks }
    if (r.method !== 'GET') instance.route(route)
    else {
      instance.route({ ...route, exposeHeadRoute: false })
      // HEAD is the GET route's answer without its body, unless the app has its own HEAD route for the path.
      if (!own_head.has(r.url)) instance.route({ ...route, method: 'HEAD', onSend: head_on_send })
    }
  }
  await mount_ws(instance, app, compiled.ws, ip, log)
  end_streams_on_close(instance, app.config.close_timeout_ms)
  instance.setNotFoundHandler(bind(compiled.not_found, compiled.on_error))
  if (lines) instance.addHook('onResponse', access_line(access, ip, log, app.secret_query))
  // Requests no route matched (a body too large for an unknown path) run the middleware of the 404 around a refusal.
  const unmatched = refusal(bind, compiled)
  instance.setErrorHandler(error_handler(app.config.request_id, log, unmatched))
  return unmatched
}

/**
 * A route's answer to a request refused while its body was read (too large, unreadable), as its handler would have
 * given it: the route's middleware runs first, so CORS, security headers, rate limits and auth apply to the 4xx as to
 * any answer (a browser can read a 413 instead of seeing a CORS failure), and the error takes the handler's place.
 * Given the compiled App (no `url`), the refusal of a request no route matched, in place of its 404.
 */
function refusal(bind: Bind, route: Pick<CompiledRoute, 'middleware' | 'on_error'> & { url?: string }): Refuse {
  // Refusals are rare: the chain ending in this refusal's error is built when one happens.
  return (freq, reply, status, code, message) =>
    bind(
      compose(route.middleware, (_req, res) => void res.error(status, code, message)),
      route.on_error,
      undefined,
      route.url,
    )(freq, reply)
}

/**
 * How route `r` takes its bodies. On a route whose settings are decided per request (`body_of`: a limit, streaming),
 * the parser asks `of_request` for each request's: one `BodyRoute` per distinct setting, made the first time it comes.
 */
function route_body(app: AppCore, r: CompiledRoute): BodyRoute {
  const body = body_route(app.config, r.body_limit, r.stream_body)
  const body_of = r.body_of
  if (body_of === undefined) return body
  const made = new Map<BodyOf, BodyRoute>()
  const of_request = (freq: FastifyRequest): BodyRoute => {
    const of = body_of(routed(freq))
    let b = made.get(of)
    if (b === undefined) {
      b = of.limit === body.limit && of.stream === body.stream ? body : body_route(app.config, of.limit, of.stream)
      made.set(of, b)
    }
    return b
  }
  return { ...body, of_request }
}

/**
 * A host request as prefix checks read it before its `Request` facade exists: canonical path (computed once, as several
 * checks may read it), router parameters.
 */
function routed(freq: FastifyRequest): RoutedRequest {
  const params = freq.params as RouterParams
  let segments: readonly string[] | undefined
  return { segments: () => (segments ??= canonical_segments(freq.url)), param: (name) => params[name] ?? '' }
}

/**
 * Gives a route's chain its parameters as it names them (`params_of`), in place of the router's, before anything reads
 * them (the body parser's checks, a refusal, the handler).
 */
function params_hook(params_of: (params: RouterParams) => Record<string, string>): onRequestHookHandler {
  return (freq, _reply, done) => {
    freq.params = params_of(freq.params as RouterParams)
    done()
  }
}

/**
 * A route whose chain may run fw's `cors` has one CORS policy, fw's: `cors: false` in its config tells a host's
 * `@fastify/cors` to leave it alone, its preflights included (which that plugin would otherwise answer in `onRequest`,
 * before fw runs).
 */
function cors_config(middleware: readonly Middleware[]): { cors?: false } {
  return middleware.some((m) => route_options_of(m)?.kind === CORS_KIND) ? { cors: false } : {}
}

/**
 * What the end of a chain notes on its request for later readers: the caller (access line) when `user`, and the label
 * of its route (metrics) when given one.
 */
function notes(user: boolean, label: string | undefined): typeof note_user {
  if (label === undefined) return user ? note_user : () => {}
  return user ? (freq, req) => (note_user(freq, req), note_route(freq, label)) : (freq) => note_route(freq, label)
}

type Bind = ReturnType<typeof binder>

/**
 * Turns a compiled chain into a Fastify handler that builds the facades, runs the chain and commits the response. The
 * chain's end notes the caller when `users`, and, with `labels` (metrics count requests: the prefix the routes are
 * mounted under, '' standalone), the label of the route at `url` as clients send it, the prefix included (none: the
 * not-found chain), computed once here rather than per request.
 */
function binder(app: AppCore, ip: IpResolver, log: LogCore | undefined, users: boolean, labels: string | undefined) {
  const services = app.services
  const echo_id = app.config.request_id
  // A route with a response check commits through it; the others commit directly (`check_responses` off costs nothing).
  return (run: Handler, on_error: ErrorMapperOf, check?: ResponseCheck, url?: string) => {
    const send: Commit = check === undefined ? commit : checked_commit(check)
    const label = labels === undefined ? undefined : route_template(prefixed(labels, url))
    const note = notes(users, label)
    const serve = (req: Request, reply: FastifyReply) => {
      const freq = req.raw as FastifyRequest
      const res = new Response()
      if (echo_id) reply.header('x-request-id', freq.id)
      if (freq.body !== undefined) bind_body(freq.body, reply.raw)
      let result: unknown
      try {
        result = run(req, res)
      } catch (err) {
        note(freq, req)
        return pending(fail(freq, reply, req, res, err, log, on_error(req), send))
      }
      // Any thenable the chain gives, as `await` takes one (a handler's Bluebird promise or knex query, another
      // realm's promise), is waited for before the answer is committed; a native promise is adopted as it is.
      if (is_thenable(result)) {
        return Promise.resolve(result).then(
          () => (note(freq, req), pending(send(reply, res, log, freq))),
          (err: unknown) => (note(freq, req), pending(fail(freq, reply, req, res, err, log, on_error(req), send))),
        )
      }
      note(freq, req)
      return pending(send(reply, res, log, freq))
    }
    return in_request_context(services, ip, log, serve)
  }
}
