// Streamed answers on Fastify: the Response's stream or SSE producer becomes a Readable that Fastify pipes to the
// socket. Fastify destroys it when the client goes away, answers an error before the first byte through the error
// handler (500 JSON), and after it cuts the connection and logs the error. Open SSE answers are ended when the server
// closes.
import type { Server } from 'node:http'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { LogCore } from '../lib/log/core.js'
import { discard_body, open_body, OpenStreams, type StreamedBody } from '../lib/stream/index.js'
import { log_failure } from './failure-line.js'

/** The open SSE answers of each server an app is mounted on. */
const open_streams = new WeakMap<Server, OpenStreams>()

/**
 * Ends the SSE answers of `instance`'s server before it stops (at most `grace_ms`), so they end instead of being cut.
 */
export function end_streams_on_close(instance: FastifyInstance, grace_ms: number): void {
  const server = instance.server as Server
  if (open_streams.has(server)) return
  const streams = new OpenStreams()
  open_streams.set(server, streams)
  instance.addHook('preClose', () => streams.end_all(grace_ms))
}

/** Sends a streamed body; a HEAD request gets the headers only and the source is let go unread. */
export function send_streamed(reply: FastifyReply, body: StreamedBody, log: LogCore | undefined): FastifyReply {
  if (reply.request.method === 'HEAD') {
    discard_body(body)
    return reply.send()
  }
  const id = reply.request.headers['last-event-id']
  const readable = open_body(body, typeof id === 'string' ? id : undefined)
  // Before the first byte Fastify's error handler logs and answers 500; after it, only this line tells what happened.
  readable.once('error', (err) => {
    if (reply.raw.headersSent) log_failure(reply.request, log, 'stream failed after the first byte', err)
  })
  if (body.kind === 'sse')
    open_streams
      .get(reply.server.server as Server)
      ?.add(readable, new Promise((resolve) => reply.raw.once('close', resolve)))
  return reply.send(readable)
}
