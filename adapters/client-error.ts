// Requests Node's HTTP parser refuses before Fastify sees them (a malformed request line, bad chunking, a duplicate
// Content-Length, headers too large, a request timeout) answered in fw's `{ok:false, error, message}` shape.
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { httpCode } from '../lib/errors.js'
import { error_body } from '../lib/http-error.js'

const CODE_BAD_REQUEST = httpCode('bad_request')
const CODE_HEADERS_TOO_LARGE = httpCode('headers_too_large')
const CODE_TIMEOUT = httpCode('request_timeout')

/** The answer for a parser error code: status, `error` code and message. */
export function client_error_answer(code: string | undefined): { status: number; code: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, code: CODE_HEADERS_TOO_LARGE, message: 'Request headers are too large' }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: CODE_TIMEOUT, message: 'Request timeout' }
  return { status: 400, code: CODE_BAD_REQUEST, message: 'Bad Request' }
}

/** Fastify's `clientErrorHandler`: writes the answer on the raw socket and closes it, as Node's own handler does. */
export function client_error(err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  // A reset connection has nobody to answer; a socket that has already sent a response must not get a second one.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  if (!socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true) {
    socket.destroy(err)
    return
  }
  const a = client_error_answer(err.code)
  const body = JSON.stringify(error_body(a.code, a.message))
  socket.end(
    `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}
