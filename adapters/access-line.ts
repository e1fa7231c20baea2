// The access line: one log line per answered request, written once the response is sent.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LogCore } from '../lib/log/core.js'
import { request_context } from '../lib/log/context.js'
import { logger, redact_query, type LogLevel } from '../lib/log/index.js'
import { logf_in } from '../lib/log/logger.js'
import { route_template } from '../lib/observability/route.js'
import { Identity } from '../lib/identity.js'
import type { IpResolver, Request } from '../lib/request.js'

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
      redact_query(freq.url, secret_query),
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
    logf_in(request_context(freq.id, freq, log), 'http', level, 'request', pairs)
  }
  return (freq: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (http.enabled(level)) write(freq, reply)
    done()
  }
}
