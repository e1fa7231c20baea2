// The access line: one log line per answered request, written once the response is sent.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LogCore } from '../lib/log/core.js'
import { logger, redact_query, with_request, type LogLevel } from '../lib/log/index.js'
import { route_template } from '../lib/observability/route.js'
import type { IpResolver } from '../lib/request.js'

/**
 * The `onResponse` hook writing `request rid=<id> method=GET path=/x?api_key=[redacted] route=/x status=200
 * duration_ms=0.42 ip=10.0.0.1 ua="curl/8.5" bytes=12`. Secret query parameters are redacted; the route is the template
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
  const write = (freq: FastifyRequest, reply: FastifyReply): void =>
    http.logf(
      level,
      'request',
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
    )
  return (freq: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (http.enabled(level)) with_request(freq.id, freq, log, write, freq, reply)
    done()
  }
}
