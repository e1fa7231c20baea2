// A Lua script run by its SHA1 (one round trip), loaded again when the server does not know it (after a restart).
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

/**
 * A server-side script: Redis runs it atomically, so a read-modify-write in it needs no lock and no retry. Arguments go
 * as strings, so numbers reach the script exactly as JavaScript printed them.
 */
export class LuaScript {
  readonly source: string
  readonly sha1: string

  constructor(source: string) {
    this.source = source
    this.sha1 = createHash('sha1').update(source).digest('hex')
  }

  /** Runs the script with `keys` and `args`; EVALSHA first, EVAL when the server answers NOSCRIPT. */
  async run(client: Redis, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha1, keys.length, ...keys, ...args)
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
      return client.eval(this.source, keys.length, ...keys, ...args)
    }
  }
}
