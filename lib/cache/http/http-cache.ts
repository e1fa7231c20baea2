// The response cache as App middleware: GET answers kept under a request key, shared by concurrent misses, and served
// stale when the handler fails.
import { Cache } from '../cache.js'
import { RequestOutcome, type CacheContext } from '../cache-context.js'
import type { CacheEntry } from '../cache-entry.js'
import type { CachePolicy, CachePolicyOptions } from '../cache-policy.js'
import type { CacheStore } from '../cache-store.js'
import { key_builder, type KeyBuilder } from '../cache-key.js'
import { contextFromProbeAndOutcome } from '../context-mapper.js'
import { ERR_CACHE_BAD_OPTION } from '../errors.js'
import { LruMemoryStore } from '../lru-memory-store.js'
import type { OnlineState } from '../network-probe.js'
import type { Middleware, Next } from '../../compose.js'
import { option_checker } from '../../options.js'
import type { Request } from '../../request.js'
import { HTTP_TOKEN, type Response } from '../../response.js'
import { age_seconds, replay, restore, snapshot, storable } from './http-cache-entry.js'
import { cache_decided } from '../../observability/cache.js'

/**
 * What the cache did for one request. `stale` is an entry past its ttl served because the handler failed (header
 * `hit`).
 */
export type HttpCacheDecision = 'hit' | 'miss' | 'bypass' | 'stale'

/**
 * More about a decision: the age of the entry served, and the error behind a bypass, a failed store or a stale answer.
 */
export interface HttpCacheDetail {
  /** Age in seconds of the entry served (`hit`, `stale`). */
  age_s?: number
  /**
   * `bypass`: the store's error; `miss`: the store's error on put; `stale`: what the handler threw (absent for a 5xx).
   */
  error?: unknown
}

/** What `http_cache` asks of a probe: `isOnline`, and `refresh` when it has one (a `NetworkProbe` does). */
export type HttpCacheProbe = OnlineState & { refresh?(now_ms: number): unknown }

/** Options of `http_cache`. */
export interface HttpCacheOptions {
  /** Freshness and stale windows (default `new CachePolicy()`: ttl 60 s, stale after an error up to 300 s). */
  policy?: CachePolicy | CachePolicyOptions
  /**
   * Where entries live (default a new `LruMemoryStore`, 1024 entries); a store answering with promises, such as Redis, works too.
   */
  store?: CacheStore
  /** A ready `Cache` to use instead of `policy` and `store` (give one or the other, not both). */
  cache?: Cache
  /** Request headers that take part in the key, such as `accept-language` (default none). */
  include_headers?: readonly string[]
  /** Called once per GET or HEAD request with the decision and the key, for logs and metrics. */
  on_decision?: (decision: HttpCacheDecision, key: string, detail: HttpCacheDetail) => void
  /**
   * Serve and store answers to requests that carry `Authorization` or `Cookie` (default false: such a request is a
   * `bypass`, unless `include_headers` names the header, which keys the entry per credential). Turn it on only for
   * routes whose answer is the same for every caller.
   */
  cache_credentialed?: boolean
  /**
   * Whether the upstream the routes depend on is reachable, for stale-if-offline: while `probe.isOnline(now)` is false,
   * an entry past its ttl but within `stale_if_offline_ms` answers without running the handler. A `NetworkProbe` is
   * refreshed (at most once per its `min_interval_ms`, never awaited) as requests arrive. Default: always online.
   */
  probe?: HttpCacheProbe
  /** The clock in ms (default `Date.now`); tests pass a fake one. */
  now?: () => number
}

const check = option_checker(ERR_CACHE_BAD_OPTION, 'http_cache')
/** The probe when none is given: the upstream is always reachable, so only failures of the handler serve stale. */
const ALWAYS_ONLINE: HttpCacheProbe = { isOnline: () => true }
/** Request headers that make an answer personal unless the key includes them (a shared cache's rule, RFC 9111 3.5). */
const CREDENTIALS = ['authorization', 'cookie']

/** The `Cache` the options describe, after checking them. */
function cache_of({ policy, store, cache }: HttpCacheOptions): Cache {
  if (cache === undefined) {
    if (policy !== undefined && (typeof policy !== 'object' || policy === null)) {
      check.fail('policy', 'a CachePolicy or its options', policy)
    }
    return new Cache(policy ?? {}, store ?? new LruMemoryStore())
  }
  if (!(cache instanceof Cache)) check.fail('cache', 'a Cache', cache)
  if (policy !== undefined) check.fail('policy', 'left out when cache is given', policy)
  if (store !== undefined) check.fail('store', 'left out when cache is given', store)
  return cache
}

function header_names(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && HTTP_TOKEN.test(v))) {
    return check.fail('include_headers', 'a list of header names', value)
  }
  return [...new Set(value.map((v: string) => v.toLowerCase()))]
}

/** One request through the cache: what it answers with, and how it reports. */
interface Exchange {
  readonly res: Response
  readonly next: Next
  readonly key: string
}

/** One `http_cache` middleware: its checked options, and the misses of it running their handler now. */
class HttpCache {
  readonly #cache: Cache
  readonly #key_of: KeyBuilder
  readonly #now: () => number
  /** Request headers that make a request a bypass: the credentials `include_headers` does not key on. */
  readonly #personal: readonly string[]
  readonly #probe: HttpCacheProbe
  readonly #on_decision: HttpCacheOptions['on_decision']
  /** The `Vary` of every answer: the request headers the key includes, so a shared cache downstream keys as this one. */
  readonly #vary: string
  /** The misses running their handler now, by key: each resolves with the entry its answer gave, if it could be stored. */
  readonly #flights = new Map<string, Promise<CacheEntry | undefined>>()

  constructor(options: HttpCacheOptions) {
    this.#cache = cache_of(options)
    const include_headers = header_names(options.include_headers ?? [])
    this.#key_of = key_builder(include_headers)
    this.#vary = include_headers.join(', ')
    this.#now = check.fn('now', options.now ?? Date.now)
    const cache_credentialed = check.bool('cache_credentialed', options.cache_credentialed ?? false)
    this.#personal = cache_credentialed ? [] : CREDENTIALS.filter((h) => !include_headers.includes(h))
    this.#probe = options.probe ?? ALWAYS_ONLINE
    if (typeof this.#probe?.isOnline !== 'function') {
      check.fail('probe', 'an object with isOnline(now_ms), such as a NetworkProbe', this.#probe)
    }
    this.#on_decision = options.on_decision === undefined ? undefined : check.fn('on_decision', options.on_decision)
  }

  /** Answers one request: from the cache, through the handler, or past the cache (other methods, bypasses). */
  async handle(req: Request, res: Response, next: Next): Promise<void> {
    const method = req.method()
    if (method !== 'GET' && method !== 'HEAD') return next()
    const x: Exchange = { res, next, key: this.#key_of('GET', req.path(), req.query_string(), req.raw.headers) }
    if (req.header('x-fw-cache').trim().toLowerCase() === 'bypass') return this.#bypass(x, {})
    if (this.#personal.some((h) => req.raw.headers[h] !== undefined)) return this.#bypass(x, {})
    let flight = this.#flights.get(x.key)
    if (flight === undefined) {
      let entry: CacheEntry | undefined
      const t = this.#now()
      try {
        entry = await this.#cache.get(x.key, t, this.#context_at(t))
      } catch (error) {
        return this.#bypass(x, { error })
      }
      // Past its ttl, an entry can only have come back because the probe says offline: a stale answer.
      if (entry !== undefined)
        return this.#serve(x, entry, this.#cache.policy.is_fresh(t - entry.created_at_ms) ? 'hit' : 'stale')
      // Another miss of this key may have started while the store answered.
      flight = this.#flights.get(x.key)
    }
    if (flight !== undefined) {
      const shared = await flight
      if (shared !== undefined) return this.#serve(x, shared, 'hit')
    }
    return this.#fetch(x, flight === undefined && method === 'GET', method === 'GET')
  }

  /**
   * The context of a lookup at `now_ms`: what the probe knows (and a refresh started for next time), and the outcome.
   */
  #context_at(now_ms: number, outcome: RequestOutcome = RequestOutcome.Ok): CacheContext {
    void this.#probe.refresh?.(now_ms)
    return contextFromProbeAndOutcome(this.#probe, now_ms, outcome)
  }

  #decide(x: Exchange, decision: HttpCacheDecision, detail: HttpCacheDetail = {}): void {
    x.res.header('x-fw-cache-status', decision === 'stale' ? 'hit' : decision)
    if (this.#vary !== '') x.res.header('Vary', this.#vary)
    cache_decided(decision)
    this.#on_decision?.(decision, x.key, detail)
  }

  #serve(x: Exchange, entry: CacheEntry, decision: 'hit' | 'stale', failure?: { error?: unknown }): void {
    const age_s = age_seconds(entry, this.#now())
    replay(x.res, entry, age_s)
    this.#decide(x, decision, { age_s, ...failure })
  }

  /** Runs the rest of the chain without the cache; the status header stays on a failure passing through too. */
  async #bypass(x: Exchange, detail: HttpCacheDetail): Promise<void> {
    try {
      await x.next()
    } finally {
      this.#decide(x, 'bypass', detail)
    }
  }

  /** Stores `entry`; a store that fails only loses the entry, and the error goes to `on_decision`. */
  async #put(key: string, entry: CacheEntry): Promise<HttpCacheDetail> {
    try {
      await this.#cache.put(key, entry)
      return {}
    } catch (error) {
      return { error }
    }
  }

  /** The entry the policy allows after a failed request, or undefined (also when the store cannot answer). */
  async #stale_entry(key: string): Promise<CacheEntry | undefined> {
    try {
      const t = this.#now()
      return await this.#cache.get(key, t, this.#context_at(t, RequestOutcome.NetworkError))
    } catch {
      return undefined
    }
  }

  /**
   * Runs the rest of the chain. A failure is answered stale when the policy allows (undefined is returned) and passes
   * through otherwise; a success gives the entry to store, if the answer may be stored.
   */
  async #run(x: Exchange, store: boolean): Promise<{ entry: CacheEntry | undefined } | undefined> {
    const before = snapshot(x.res)
    let failure: { error?: unknown } | undefined
    try {
      await x.next()
      if (x.res.status_code >= 500) failure = {}
    } catch (error) {
      failure = { error }
    }
    if (failure === undefined) return { entry: store ? storable(x.res, before, this.#now()) : undefined }
    const stale = await this.#stale_entry(x.key)
    if (stale !== undefined) {
      restore(x.res, before)
      this.#serve(x, stale, 'stale', failure)
      return undefined
    }
    if (!('error' in failure)) return { entry: undefined }
    this.#decide(x, 'miss')
    throw failure.error
  }

  /** A miss: runs the handler (as the leader of concurrent misses when `lead`), stores what may be stored. */
  async #fetch(x: Exchange, lead: boolean, store: boolean): Promise<void> {
    let settle: ((entry: CacheEntry | undefined) => void) | undefined
    if (lead) this.#flights.set(x.key, new Promise((resolve) => (settle = resolve)))
    let ran: { entry: CacheEntry | undefined } | undefined
    try {
      ran = await this.#run(x, store)
    } finally {
      if (settle !== undefined) {
        this.#flights.delete(x.key)
        settle(ran?.entry)
      }
    }
    if (ran === undefined) return
    // A streamed answer is never stored: the cache stood aside.
    if (x.res.streamed !== undefined) return this.#decide(x, 'bypass')
    this.#decide(x, 'miss', ran.entry === undefined ? {} : await this.#put(x.key, ran.entry))
  }
}

/**
 * The response cache in front of the routes it is mounted on. GET requests are looked up under
 * `CacheKey.fromRequest('GET', path, raw query, headers, include_headers)`; a fresh entry answers at once with `Age`,
 * and a miss runs the handler and stores a 200 that has no `Set-Cookie` and no `no-store` or `private`. Every GET and
 * HEAD answer carries `x-fw-cache-status: hit|miss|bypass` and, with `include_headers`, names them in `Vary`; other methods pass through untouched. HEAD answers from the
 * GET entry but never stores. `x-fw-cache: bypass` on the request skips lookup and store, and so does a request with
 * `Authorization` or `Cookie` unless `include_headers` names it or `cache_credentialed` is set. When the handler throws
 * or answers 5xx, an entry the policy still allows after an error is served instead (status `hit`, its `Age` past the
 * ttl); otherwise the failure passes through. Concurrent misses of one key run the handler once and share its answer
 * when it could be stored. A store that fails (Redis down) makes the request a `bypass`: the handler runs, the cache
 * never answers 500.
 * @example
 * const cache = fw.middleware.app.http_cache({ policy: { ttl_ms: 30_000 }, include_headers: ['accept-language'] })
 * app.use('/api/catalog', cache)
 */
export function http_cache(options: HttpCacheOptions = {}): Middleware {
  const cache = new HttpCache(options)
  return function http_cache(req, res, next) {
    return cache.handle(req, res, next)
  }
}
