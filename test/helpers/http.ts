// Test helpers for real sockets: an HTTP request sent with its path exactly as written, raw bytes over TCP, and one
// request on an HTTP/2 session.
import http from 'node:http'
import type { ClientHttp2Session, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2'
import net from 'node:net'

/** A response read from a real socket. */
export interface SocketResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** What `send` sends; `path` goes on the wire as written (no normalisation of `..`, `%2e` or `//`). */
export interface SendOptions {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
}

/** Sends one request with node:http on a fresh connection and reads the whole response. */
export function send(port: number, options: SendOptions): Promise<SocketResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/**
 * Writes raw bytes to a TCP connection and resolves with the status code, headers and body the server answers, once it
 * closes the connection (send `Connection: close`). A server that answers nothing within `wait_ms` gives status 0.
 */
export function raw(port: number, bytes: string, wait_ms = 2000): Promise<SocketResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes))
    let text = ''
    const timer = setTimeout(() => socket.destroy(), wait_ms)
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(parse(text))
    })
  })
}

/** The status line, headers and body of one HTTP/1.1 answer's text (status 0 when its head is not whole). */
export function parse(text: string): SocketResponse {
  const end = text.indexOf('\r\n\r\n')
  if (end === -1) return { status: 0, headers: {}, body: text }
  const [status_line = '', ...lines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(status_line.split(' ')[1]), headers, body: text.slice(end + 4) }
}

/** What `h2_request` reads: the `:status`, the response headers and the body as text. */
export interface H2Response {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** Sends one bodiless request (`headers`: `:path`, `:method`...) on an HTTP/2 `session`; its answer once the stream closes. */
export function h2_request(session: ClientHttp2Session, headers: OutgoingHttpHeaders): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const s = session.request(headers)
    let got: IncomingHttpHeaders = {}
    let body = ''
    s.on('response', (h) => (got = h))
    s.setEncoding('utf8').on('data', (c: string) => (body += c))
    s.on('close', () => resolve({ status: Number(got[':status']), headers: got, body }))
    s.on('error', reject)
    s.end()
  })
}
