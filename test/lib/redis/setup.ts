// Shared pieces of the Redis store tests: a client on the test server, disconnected at teardown, and a TCP proxy in
// front of the server that can cut a connection before a command reaches Redis or before its reply reaches the client.
import { once } from 'node:events'
import net from 'node:net'
import type { Redis } from 'ioredis'
import type { Teardown } from '../../helpers/build.js'
import { create_redis_client } from '../../../lib/redis/index.js'

/** An ioredis client with the fail-fast settings on 127.0.0.1:`port`, disconnected when the test ends. */
export function client(t: Teardown, port: number, command_timeout_ms = 1000): Redis {
  const redis = create_redis_client({ host: '127.0.0.1', port, commandTimeout: command_timeout_ms })
  t.teardown(() => redis.disconnect())
  return redis
}

/** A proxy of a Redis server on 127.0.0.1 (see `redis_proxy`). */
export interface RedisProxy {
  readonly port: number
  /**
   * Cuts the next reply: the first bytes Redis sends to any client after this call are dropped together with that
   * client's connection (Redis ran the command; the client never hears it). Resolves once it has cut.
   */
  cut_next_reply(): Promise<void>
  /** Cuts the next command: the next bytes any client sends are dropped with its connection (Redis never sees them). */
  cut_next_command(): Promise<void>
}

/** A TCP proxy on a free port of 127.0.0.1 to the Redis server on `redis_port`, closed when the test ends. */
export async function redis_proxy(t: Teardown, redis_port: number): Promise<RedisProxy> {
  // The cut each direction is asked for: 'command' for the bytes a client sends, 'reply' for those Redis sends.
  const pending: { command?: () => void; reply?: () => void } = {}
  const sockets = new Set<net.Socket>()
  const server = net.createServer((front) => {
    const back = net.connect(redis_port, '127.0.0.1')
    for (const s of [front, back]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s)).on('error', () => {})
    }
    const relay = (from: net.Socket, to: net.Socket, which: 'command' | 'reply'): void =>
      void from.on('data', (d: Buffer) => {
        const done = pending[which]
        if (done === undefined) return void to.write(d)
        delete pending[which]
        front.destroy()
        back.destroy()
        done()
      })
    relay(front, back, 'command')
    relay(back, front, 'reply')
    front.on('close', () => back.destroy())
    back.on('close', () => front.destroy())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    server.close()
  })
  return {
    port: (server.address() as net.AddressInfo).port,
    cut_next_reply: () => new Promise<void>((resolve) => (pending.reply = resolve)),
    cut_next_command: () => new Promise<void>((resolve) => (pending.command = resolve)),
  }
}
