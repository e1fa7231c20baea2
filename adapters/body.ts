// Request bodies on Fastify: one catch-all content-type parser that hands fw a RequestBody, read whole under the route's
// limit, or left as the raw stream on `stream_body` routes. Fastify calls it only for requests that carry a body.
import type * as FastifyBusboy from '@fastify/busboy'
import type { BusboyHeaders } from '@fastify/busboy'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppConfig } from '../lib/config.js'
import { lazy } from '../lib/lazy.js'
import { declared_too_large, ERR_BODY_TOO_LARGE, read_all, RequestBody, type MultipartParserFactory } from '../lib/body/index.js'

/** `@fastify/busboy`, loaded by the first multipart body rather than by `import 'fw'`. */
const busboy = lazy<typeof FastifyBusboy>('@fastify/busboy')

/** fw's multipart parser: `@fastify/busboy` with the reader's limits. */
export const busboy_parser: MultipartParserFactory = (headers, limits) => busboy().Busboy({
  headers: headers as BusboyHeaders,
  limits: { fields: limits.fields, fieldSize: limits.field_size, files: limits.files, fileSize: limits.file_size },
})

/** The route config key saying the route streams its body. */
export const FW_STREAM_BODY = 'fw_stream_body'

/** Replaces the instance's parsers (this encapsulated context only) by fw's. */
export function use_body_parser(instance: FastifyInstance, config: AppConfig): void {
  instance.removeAllContentTypeParsers()
  instance.addContentTypeParser('*', (freq: FastifyRequest, payload, done) => {
    const limit = freq.routeOptions.bodyLimit ?? config.body_limit
    const headers = freq.headers
    const options = { limit, form_limits: config.form_limits, multipart_parser: busboy_parser }
    // A declared length over the limit is refused before a byte is read, as Fastify's own parsers do.
    if (declared_too_large(headers['content-length'], limit)) return done(ERR_BODY_TOO_LARGE(limit), undefined)
    if ((freq.routeOptions.config as { [FW_STREAM_BODY]?: boolean } | undefined)?.[FW_STREAM_BODY] === true) {
      return done(null, new RequestBody(payload, headers, options))
    }
    read_all(payload, limit).then(
      (buf) => done(null, new RequestBody(buf, headers, options)),
      (err: Error) => done(err, undefined),
    )
  })
}

/** Binds a request's body to its response, so work waiting for the response's end (temporary files) runs then. */
export function bind_body(body: unknown, end: RequestBodyEnd): void {
  if (body instanceof RequestBody) body.bind_response(end)
}

type RequestBodyEnd = Parameters<RequestBody['bind_response']>[0]
