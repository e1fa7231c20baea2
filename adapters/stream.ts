// Streamed answers on Fastify: the Response's stream or SSE producer becomes a Readable that Fastify pipes to the socket.
// Fastify destroys it when the client goes away, answers an error before the first byte through the error handler (500
// JSON), and after it cuts the connection and logs the error.
import type { FastifyReply } from 'fastify'
import { discard_body, open_body, type StreamedBody } from '../lib/stream/index.js'

/** Sends a streamed body; a HEAD request gets the headers only and the source is let go unread. */
export function send_streamed(reply: FastifyReply, body: StreamedBody): FastifyReply {
  if (reply.request.method === 'HEAD') {
    discard_body(body)
    return reply.send()
  }
  const id = reply.request.headers['last-event-id']
  const readable = open_body(body, typeof id === 'string' ? id : undefined)
  // Before the first byte Fastify's error handler logs and answers 500; after it, only this line tells what happened.
  readable.once('error', (err) => {
    if (reply.raw.headersSent) reply.log.error({ err }, 'stream failed after the first byte')
  })
  return reply.send(readable)
}
