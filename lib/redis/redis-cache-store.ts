// Cache entries in Redis: a CacheStore answering with promises for the Cache facade and http_cache, one string key per entry.
import { CacheEntry } from '../cache/cache-entry.js'
import type { CacheStore, EntryPredicate } from '../cache/cache-store.js'
import { LuaScript } from './lua-script.js'
import { ERR_REDIS_BAD_OPTION } from './errors.js'
import { option_checker } from '../options.js'
import { RedisConnection, type RedisStoreOptions } from './redis-connection.js'

const NAME = 'RedisCacheStore'
const check = option_checker(ERR_REDIS_BAD_OPTION, NAME)
const SCAN_COUNT = 500

/** Deletes each of KEYS whose value still equals the ARGV at the same index; answers how many went. */
const DELETE_UNCHANGED = new LuaScript(`
local n = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then n = n + redis.call('DEL', key) end
end
return n
`)

/** Options of `RedisCacheStore`. */
export interface RedisCacheStoreOptions extends RedisStoreOptions {
  /**
   * Let Redis drop an entry this many ms after its `put` (default: kept until erased); `policy.max_useful_age_ms` fits.
   */
  expire_after_ms?: number
}

/** The entry a stored text describes, or undefined when it does not describe one. */
function parse_entry(text: string): CacheEntry | undefined {
  try {
    return new CacheEntry(JSON.parse(text) as CacheEntry)
  } catch {
    return undefined
  }
}

/** `text` with the glob characters of SCAN's MATCH escaped. */
function glob_escape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&')
}

/**
 * Cache entries shared by every instance that uses the same Redis and prefix, under `<prefix>cache:<key>` as JSON. Every
 * method answers with a promise, so `new Cache(policy, store)` does too. Like every store it never judges freshness;
 * Redis drops entries only with `expire_after_ms`. A stored text that is not an entry reads as none. While Redis cannot
 * answer every method rejects with `FW_ERR_REDIS_UNAVAILABLE` (status 503), which `http_cache` treats as a bypass.
 * @example
 * const cache = new Cache(new CachePolicy({ ttl_ms: 30_000 }), new RedisCacheStore({ client: redis }))
 * await cache.put('GET /a?', { body: 'hello', created_at_ms: Date.now() })
 * (await cache.get('GET /a?', Date.now()))?.body // 'hello'
 */
export class RedisCacheStore implements CacheStore {
  readonly expire_after_ms: number | undefined
  readonly #redis: RedisConnection

  constructor({ expire_after_ms, ...options }: RedisCacheStoreOptions = {}) {
    this.expire_after_ms = expire_after_ms === undefined ? undefined : check.int('expire_after_ms', expire_after_ms, 1)
    this.#redis = new RedisConnection(NAME, options)
  }

  /** The Redis key of a cache key. */
  key(key: string): string {
    return `${this.#redis.prefix}cache:${key}`
  }

  /** Stores or replaces the entry under `key`. One SET. */
  async put(key: string, entry: CacheEntry): Promise<void> {
    const { status, body, headers, created_at_ms } = entry
    const text = JSON.stringify({ status, body, headers, created_at_ms })
    const ms = this.expire_after_ms
    await this.#redis.run('put', (r) =>
      ms === undefined ? r.set(this.key(key), text) : r.set(this.key(key), text, 'PX', ms),
    )
  }

  /** The entry under `key`, or undefined. One GET. */
  async get(key: string): Promise<CacheEntry | undefined> {
    const text = await this.#redis.run('get', (r) => r.get(this.key(key)))
    return text === null ? undefined : parse_entry(text)
  }

  /** Removes the entry under `key`, if any. One DEL. */
  async erase(key: string): Promise<void> {
    await this.#redis.run('erase', (r) => r.del(this.key(key)))
  }

  /** Removes every entry under this prefix (SCAN and UNLINK in batches; other keys stay). */
  async clear(): Promise<void> {
    await this.#scan('clear', async (keys) => {
      await this.#redis.client.unlink(...keys)
    })
  }

  /**
   * Removes every entry the predicate picks, and every stored text that is not an entry, and answers how many went. An
   * entry replaced between the read and the removal stays (the removal compares the stored text first). An error the
   * predicate throws stops the scan and comes out as it is: it is the caller's, not a Redis failure.
   */
  async eraseIf(pred: EntryPredicate): Promise<number> {
    const strip = this.key('').length
    let removed = 0
    let failed: { error: unknown } | undefined
    const picks = (key: string, entry: CacheEntry): boolean => {
      try {
        return pred(key, entry)
      } catch (error) {
        failed = { error }
        throw error
      }
    }
    await this.#scan('eraseIf', async (keys) => {
      const texts = await this.#redis.client.mget(...keys)
      const picked: string[] = []
      const seen: string[] = []
      keys.forEach((k, i) => {
        const text = texts[i]
        if (text === null || text === undefined) return
        const entry = parse_entry(text)
        if (entry !== undefined && !picks(k.slice(strip), entry)) return
        picked.push(k)
        seen.push(text)
      })
      if (picked.length > 0) removed += Number(await DELETE_UNCHANGED.run(this.#redis.client, picked, seen))
    }).catch((err: unknown) => {
      throw failed === undefined ? err : failed.error
    })
    return removed
  }

  /**
   * Calls `batch` with each non-empty batch of this store's keys that SCAN finds, as commands name them: without the
   * client's `keyPrefix`, which SCAN matches and answers but every other command adds itself.
   */
  #scan(operation: string, batch: (keys: string[]) => Promise<void>): Promise<void> {
    const own = this.#redis.client_prefix
    const pattern = glob_escape(own + this.key('')) + '*'
    return this.#redis.run(operation, async (r) => {
      let cursor = '0'
      do {
        const [next, keys] = await r.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT)
        if (keys.length > 0) await batch(own === '' ? keys : keys.map((k) => k.slice(own.length)))
        cursor = next
      } while (cursor !== '0')
    })
  }

  /** Closes the Redis client when the store made it from options. */
  close(): Promise<void> {
    return this.#redis.close()
  }
}
