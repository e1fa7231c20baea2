// A RawSocket in memory for WebSocketConnection tests: records what is sent, lets the test play the peer.
import { EventEmitter } from 'node:events'
import type { RawSocket } from '../../../lib/websocket/index.js'

/** What the fake socket was asked to do. */
export class FakeSocket extends EventEmitter implements RawSocket {
  readyState = 1
  bufferedAmount = 0
  readonly sent: Array<{ data: string | Buffer; binary: boolean }> = []
  closed_with: { code: number | undefined; reason: string | undefined } | undefined
  pings = 0
  terminated = false
  /** Whether the connection paused its reading; the test may still emit messages, as ws does with what it had read. */
  paused = false

  /** As ws: without options, a string goes as a text frame and bytes as a binary one. */
  send(data: string | Buffer, options?: { binary: boolean }): void {
    this.sent.push({ data, binary: options?.binary ?? typeof data !== 'string' })
  }

  close(code?: number, reason?: string): void {
    this.closed_with = { code, reason }
    this.readyState = 2
  }

  terminate(): void {
    this.terminated = true
    this.peer_closed(1006)
  }

  ping(): void {
    this.pings++
  }

  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
  }

  /** The peer (or the network) closed the connection. */
  peer_closed(code = 1000, reason = ''): void {
    this.readyState = 3
    this.emit('close', code, Buffer.from(reason))
  }

  /** The peer sent a message. */
  message(data: string | Buffer, binary = typeof data !== 'string'): void {
    this.emit('message', Buffer.from(data), binary)
  }

  /** Texts sent so far. */
  texts(): string[] {
    return this.sent.map((s) => s.data.toString())
  }
}
