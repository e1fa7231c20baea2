// Rate limit counts in Redis: the memory store's fixed-window counters, kept in one hash per key and updated by a Lua
// script.
import { window_start, type RateLimitResult, type RateLimitStore } from '../middleware/security/rate-limit-store.js'
import { ERR_REDIS_COMMAND_FAILED } from './errors.js'
import { LuaScript } from './lua-script.js'
import { RedisConnection, type RedisStoreOptions } from './redis-connection.js'

const NAME = 'RedisRateLimitStore'

/**
 * One hit, atomically. KEYS[1]: the key's hash (s = window start, c = current count, p = previous count). ARGV: the
 * current window's start, the previous window's start, ms until the counts stop mattering, the next window's start.
 * The same steps as `MemoryRateLimitStore.hit`: a hit in the stored window counts on; in the next window the stored
 * count becomes the previous one; further on, both restart. A hit older than the stored window (an instance whose
 * clock is behind another's) never moves it back, which would wipe the counts of the instances ahead: one window
 * behind, it counts in that window (the stored previous one) and answers that count, with no window before it;
 * further behind, it counts in the stored window. Starts are stored and matched as the strings JavaScript printed,
 * never printed by Lua, which would round them; only their order is read as numbers (exact below 2^53).
 */
const HIT = new LuaScript(`
local h = redis.call('HMGET', KEYS[1], 's', 'c', 'p')
if h[1] == ARGV[4] then
  local previous = tonumber(h[3]) + 1
  redis.call('HSET', KEYS[1], 'p', previous)
  return {previous, 0}
end
local stored = h[1] and tonumber(h[1])
if stored and stored > tonumber(ARGV[1]) then
  local current = tonumber(h[2]) + 1
  redis.call('HSET', KEYS[1], 'c', current)
  return {current, tonumber(h[3])}
end
local current, previous = 1, 0
if h[1] == ARGV[1] then
  current = tonumber(h[2]) + 1
  previous = tonumber(h[3])
elseif h[1] == ARGV[2] then
  previous = tonumber(h[2])
end
redis.call('HSET', KEYS[1], 's', ARGV[1], 'c', current, 'p', previous)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {current, previous}
`)

function is_counts(v: unknown): v is [number, number] {
  return Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n) && n >= 0)
}

/**
 * Counts shared by every instance that uses the same Redis and prefix, with exactly the results of
 * `MemoryRateLimitStore` for the same hits and clock readings (but for a hit behind the stored window, see `HIT`), so
 * `rate_limit` sends the same headers. One EVALSHA per hit: Redis runs the script atomically, so N concurrent hits from
 * any number of processes get N distinct counts. The time is the caller's `now_ms` (not Redis TIME), so instances
 * should keep their clocks in sync; a hit from one behind the others never restarts the counts they made. A key
 * expires when it can no longer change a result (after the window following its last hit). While Redis cannot
 * answer, `hit` rejects with `FW_ERR_REDIS_UNAVAILABLE`; `rate_limit` then follows its `fail_open` option.
 * @example
 * const store = new RedisRateLimitStore({ client: redis })
 * app.use(fw.middleware.app.rate_limit({ max_requests: 100, window_seconds: 60, store, namespace: 'api' }))
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisConnection

  constructor(options: RedisStoreOptions = {}) {
    this.#redis = new RedisConnection(NAME, options)
  }

  /** The Redis key of a counting key. */
  key(key: string): string {
    return `${this.#redis.prefix}rl:${key}`
  }

  /** Counts one hit of `key` at `now_ms` and answers the window counts. */
  async hit(key: string, now_ms: number, window_ms: number): Promise<RateLimitResult> {
    const start = window_start(now_ms, window_ms)
    const expire_ms = Math.max(1, Math.ceil(start + 2 * window_ms - now_ms))
    const args = [String(start), String(start - window_ms), String(expire_ms), String(start + window_ms)]
    const reply = await this.#redis.run('hit', (r) => HIT.run(r, [this.key(key)], args))
    if (!is_counts(reply))
      throw ERR_REDIS_COMMAND_FAILED(NAME, 'hit', `unexpected script reply ${JSON.stringify(reply)}`)
    return { current: reply[0], previous: reply[1], window_start_ms: start }
  }

  /** Closes the Redis client when the store made it from options. */
  close(): Promise<void> {
    return this.#redis.close()
  }
}
