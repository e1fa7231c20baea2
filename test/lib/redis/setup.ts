// Shared pieces of the Redis store tests: a client on the test server, disconnected at teardown.
import type { Redis } from 'ioredis'
import type { Teardown } from '../../helpers/build.js'
import { create_redis_client } from '../../../lib/redis/index.js'

/** An ioredis client with the fail-fast settings on 127.0.0.1:`port`, disconnected when the test ends. */
export function client(t: Teardown, port: number, command_timeout_ms = 1000): Redis {
  const redis = create_redis_client({ host: '127.0.0.1', port, commandTimeout: command_timeout_ms })
  t.teardown(() => redis.disconnect())
  return redis
}
