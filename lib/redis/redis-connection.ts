// How a Redis store reaches Redis: a client given by the caller or made from options, a key prefix, and error mapping.
import { once } from 'node:events'
import { Redis, ReplyError, type RedisOptions } from 'ioredis'
import { in_span } from '../observability/tracing.js'
import { ERR_REDIS_BAD_OPTION, ERR_REDIS_COMMAND_FAILED, ERR_REDIS_UNAVAILABLE } from './errors.js'
import { option_checker, type OptionChecker } from '../options.js'

/** An ioredis client, its connection options, or a `redis://` / `rediss://` URL. */
export type RedisClientOption = Redis | RedisOptions | string

/** Options every Redis store takes. */
export interface RedisStoreOptions {
  /**
   * The client to use (shared, closed by its owner), or options / a URL for a client the store makes and closes
   * (default localhost:6379).
   */
  client?: RedisClientOption
  /** Prefix of every key the store writes (default `fw:`); give each app its own when apps share one Redis. */
  prefix?: string
}

/**
 * Settings for a client that fails fast instead of holding requests while Redis is down: a command waits at most
 * `commandTimeout` ms (queued ones included), queued commands fail after one reconnect attempt, and reconnecting never
 * stops (every 100 ms at first, then every second), so service resumes within about a second of Redis coming back. A
 * command sent before the connection dropped is not sent again on the next one (it fails by its timeout): Redis may
 * have run it already, and a rate limit hit or a broadcast run twice counts or arrives twice.
 */
export const FAIL_FAST_OPTIONS = {
  commandTimeout: 1000,
  connectTimeout: 2000,
  maxRetriesPerRequest: 1,
  retryStrategy: (times: number): number => Math.min(times * 100, 1000),
  autoResendUnfulfilledCommands: false,
} as const satisfies RedisOptions

/**
 * A new ioredis client with `FAIL_FAST_OPTIONS` under the given options. Connection errors are left to the commands
 * that fail because of them (no unhandled 'error' event).
 * @example
 * const redis = create_redis_client({ host: '10.0.0.5', commandTimeout: 500 })
 * const sessions = new RedisSessionStore({ client: redis })
 * app.on_close(() => redis.quit())
 */
export function create_redis_client(options: RedisOptions | string = {}): Redis {
  return make_client(option_checker(ERR_REDIS_BAD_OPTION, 'create_redis_client'), 'options', options)
}

const CLIENT_EXPECTED = 'an ioredis client, connection options or a redis:// or rediss:// URL'

/** Whether `value` is a plain object (an object literal or `Object.create(null)`), as connection options are. */
function is_plain_object(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * `create_redis_client` for an owner and option named in errors. A text must be a `redis://` or `rediss://` URL:
 * ioredis would read any other (`http://...`) as one, and a bad one is quoted without its password. Options must be a
 * plain object: a client of another kind (a `Cluster`, a `Redis` of another copy of ioredis) spread as options has no
 * host or port of its own and would quietly become a client of localhost:6379.
 */
function make_client(check: OptionChecker, option: string, options: RedisOptions | string): Redis {
  if (typeof options === 'string') check.url(option, options, ['redis:', 'rediss:'], CLIENT_EXPECTED)
  // An object that is not plain (a list, a client of another kind) may hold a password: described by its shape only.
  else if (!is_plain_object(options)) {
    check.fail(option, CLIENT_EXPECTED, options, { secret: typeof options === 'object' && options !== null })
  }
  // The stores read replies in the RESP2 shapes ('legacy'), whatever protocol the connection speaks.
  const client =
    typeof options === 'string'
      ? new Redis(options, { ...FAIL_FAST_OPTIONS, replyMapping: 'legacy' })
      : new Redis({ ...FAIL_FAST_OPTIONS, ...options, replyMapping: 'legacy' })
  // Each failed command carries the cause to its caller; the event would only repeat it (and ioredis logs unheard
  // ones).
  client.on('error', () => {})
  return client
}

/**
 * Server replies that mean "not now" rather than "never": a retry on a healthy server would succeed. `OOM` is a server
 * at `maxmemory` refusing writes (policy `noeviction`) until keys expire or memory is raised, an outage like `MISCONF`.
 */
const TRANSIENT_REPLY = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF|OOM)\b/

/** What a failed command means for the caller: unavailable (503) or refused (500), with the original as cause. */
function coded(store: string, operation: string, err: unknown): Error {
  const reason = err instanceof Error ? err.message : String(err)
  const refused = err instanceof ReplyError && !TRANSIENT_REPLY.test(reason)
  return (refused ? ERR_REDIS_COMMAND_FAILED : ERR_REDIS_UNAVAILABLE)(store, operation, reason, { cause: err })
}

/** The client, key prefix and error mapping one store uses. */
export class RedisConnection {
  readonly client: Redis
  readonly prefix: string
  /**
   * The client's own ioredis `keyPrefix` ('' without one): ioredis adds it to every key a command names, but not to a
   * SCAN pattern, and SCAN answers keys with it, which a command given them would prefix again.
   */
  readonly client_prefix: string
  readonly #store: string
  readonly #owned: boolean

  constructor(store: string, { client = {}, prefix = 'fw:' }: RedisStoreOptions) {
    const check = option_checker(ERR_REDIS_BAD_OPTION, store)
    if (typeof prefix !== 'string' || /[\s\p{Cc}]/u.test(prefix)) {
      check.fail('prefix', 'a string without spaces or control characters', prefix)
    }
    const given = client instanceof Redis
    this.client = given ? client : make_client(check, 'client', client)
    this.prefix = prefix
    this.client_prefix = this.client.options.keyPrefix ?? ''
    this.#store = store
    this.#owned = !given
  }

  /**
   * Runs one store operation, turning any failure into `FW_ERR_REDIS_UNAVAILABLE` or `FW_ERR_REDIS_COMMAND_FAILED`. In
   * a traced request it is a `redis <operation>` span, child of the request's span.
   */
  async run<T>(operation: string, call: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await in_span(
        `redis ${operation}`,
        { 'db.system.name': 'redis', 'db.operation.name': operation, 'fw.store': this.#store },
        () => call(this.client),
      )
    } catch (err) {
      throw coded(this.#store, operation, err)
    }
  }

  /** Closes the client when the store made it; a client passed in stays open for its owner. */
  async close(): Promise<void> {
    if (this.#owned) await close_client(this.client)
  }
}

/**
 * Closes a client for good. A connected one gets QUIT, whose reply comes after those of the commands already sent, so
 * none of them is cut off; a client without a connection is dropped at once, since QUIT would wait for one just to
 * say goodbye.
 */
export async function close_client(client: Redis): Promise<void> {
  if (client.status === 'end') return
  if (client.status !== 'ready') return client.disconnect()
  const ended = once(client, 'end')
  await client.quit().catch(() => client.disconnect())
  await ended
}
