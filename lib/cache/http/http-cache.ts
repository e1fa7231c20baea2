// The response cache as App middleware: GET answers kept under a request key, shared by concurrent misses, and served
// stale when the handler fails.
import type { Cache } from '../cache.js'
import { RequestOutcome, type CacheContext } from '../cache-context.js'
import type { CacheEntry } from '../cache-entry.js'
import { key_builder, type KeyBuilder, type RequestHeaders } from '../cache-key.js'
import { contextFromProbeAndOutcome } from '../context-mapper.js'
import { with_route_options, type Middleware, type Next } from '../../compose.js'
import type { Request } from '../../request.js'
import type { Response } from '../../response.js'
import {
  age_seconds,
  larger_than,
  matches,
  may_serve_stale,
  not_modified,
  replay,
  replayable,
  restore,
  snapshot,
  storable,
  within_own_lifetime,
} from './http-cache-entry.js'
import {
  ALWAYS_ONLINE,
  cache_of,
  DEFAULT_MAX_BODY_BYTES,
  check,
  header_names,
  personal_headers,
  type HttpCacheDecision,
  type HttpCacheDetail,
  type HttpCacheOptions,
  type HttpCacheProbe,
} from './http-cache-options.js'
import { cache_decided } from '../../observability/cache.js'
import { logger } from '../../log/index.js'

const log = logger('cache')

/** What a log line may say of a key: its method and path, without the query or the request's header values. */
function route_of(key: string): string {
  const query = key.indexOf('?')
  return query === -1 ? key : key.slice(0, query)
}

export type { HttpCacheDecision, HttpCacheDetail, HttpCacheOptions, HttpCacheProbe } from './http-cache-options.js'

/** One request through the cache: what it answers with, and how it reports. */
interface Exchange {
  readonly res: Response
  readonly next: Next
  readonly key: string
  /** The request's headers, which an entry's `Vary` record must match. */
  readonly headers: RequestHeaders
}

/** What a handler run gave: the entry to store, if any, and whether its body was too large to store. */
interface Ran {
  readonly entry: CacheEntry | undefined
  readonly oversized?: boolean
}

/**
 * Whether a failure of the chain may be answered stale: one that becomes a 5xx. A thrown error carrying a 4xx `status`
 * (an `HttpError` 404 or 429, a body error's 413) is the answer to this request, not a failure of the upstream.
 */
function server_failure(failure: { error?: unknown }): boolean {
  if (!('error' in failure)) return true
  const status = (failure.error as { status?: unknown } | null | undefined)?.status
  return !(typeof status === 'number' && status >= 400 && status < 500)
}

/** One `http_cache` middleware: its checked options, and the misses of it running their handler now. */
class HttpCache {
  readonly #cache: Cache
  readonly #key_of: KeyBuilder
  readonly #now: () => number
  /** Request headers that make a request a bypass: the credentials (and `credential_headers`) not keyed on. */
  readonly #personal: readonly string[]
  readonly #probe: HttpCacheProbe
  readonly #on_decision: HttpCacheOptions['on_decision']
  /**
   * The `Vary` of every answer: `include_headers`, so a shared cache downstream keys as this one (the host, which the
   * key also includes, is part of the URI that cache keys on).
   */
  readonly #vary: string
  /** The largest body, in UTF-8 bytes, that is stored; a larger answer goes out as it is, a bypass. */
  readonly #max_body_bytes: number
  /** The misses running their handler now, by key: each resolves with the entry its answer gave, if it could be stored. */
  readonly #flights = new Map<string, Promise<CacheEntry | undefined>>()
  /** The entries found that cannot be replayed and were logged, each once. */
  readonly #refused = new WeakSet<CacheEntry>()

  constructor(options: HttpCacheOptions) {
    this.#cache = cache_of(options)
    const include_headers = header_names('include_headers', options.include_headers ?? [])
    // The host keys every entry (RFC 9111 keys on the whole target URI): an answer built from one request's Host is
    // never served to another host's request. It is not named in Vary: a cache downstream keys on the URI already.
    this.#key_of = key_builder([...include_headers, 'host'])
    this.#vary = include_headers.join(', ')
    this.#now = check.fn('now', options.now ?? Date.now)
    this.#personal = personal_headers(options, include_headers)
    this.#probe = options.probe ?? ALWAYS_ONLINE
    if (typeof this.#probe?.isOnline !== 'function') {
      check.fail('probe', 'an object with isOnline(now_ms), such as a NetworkProbe', this.#probe)
    }
    this.#on_decision = options.on_decision === undefined ? undefined : check.fn('on_decision', options.on_decision)
    this.#max_body_bytes = check.int('max_body_bytes', options.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES)
  }

  /** Answers one request: from the cache, through the handler, or past the cache (other methods, bypasses). */
  async handle(req: Request, res: Response, next: Next): Promise<void> {
    const method = req.method()
    if (method !== 'GET' && method !== 'HEAD') return next()
    const headers = req.raw.headers
    const x: Exchange = { res, next, key: this.#key_of('GET', req.path(), req.query_string(), headers), headers }
    if (req.header('x-fw-cache').trim().toLowerCase() === 'bypass') return this.#bypass(x, {})
    if (this.#personal.some((h) => headers[h] !== undefined)) return this.#bypass(x, {})
    let flight = this.#flights.get(x.key)
    if (flight === undefined) {
      let entry: CacheEntry | undefined
      let ctx: CacheContext
      const t = this.#now()
      try {
        ctx = this.#context_at(t)
        entry = await this.#cache.get(x.key, t, ctx)
      } catch (error) {
        return this.#bypass(x, { error })
      }
      // Fresh (inside the ttl and the lifetime its answer gave itself, a max-age or Expires under the ttl), a hit.
      // Past either, it is stale: while the probe says offline and the policy allows offline reuse at its age, a stale
      // answer, unless its answer forbids reuse once stale (must-revalidate), which makes it a miss; online, a miss (it
      // still answers a failure, as a stale one). One stored for other values of the headers its Vary names is a miss
      // too, whose answer replaces it, and so is one that cannot be replayed, which is removed from the store first.
      if (entry !== undefined && matches(entry, headers)) {
        const fresh = this.#fresh(entry, t)
        const usable =
          fresh ||
          (ctx.offline && this.#cache.policy.allow_stale_offline(t - entry.created_at_ms) && may_serve_stale(entry))
        if (usable) {
          if (this.#serve(x, entry, fresh ? 'hit' : 'stale')) return
          await this.#discard(x, entry)
        }
      }
      // Another miss of this key may have started while the store answered.
      flight = this.#flights.get(x.key)
    }
    if (flight !== undefined) {
      const shared = await flight
      if (shared !== undefined && matches(shared, headers) && this.#serve(x, shared, 'hit')) return
    }
    return this.#fetch(x, flight === undefined && method === 'GET', method === 'GET')
  }

  /** Whether `entry` is fresh at `now_ms`: inside the policy's ttl and the lifetime its answer gave itself. */
  #fresh(entry: CacheEntry, now_ms: number): boolean {
    const age = now_ms - entry.created_at_ms
    return this.#cache.policy.is_fresh(age) && within_own_lifetime(entry, age)
  }

  /**
   * The context of a lookup at `now_ms`: what the probe knows (and a refresh started for next time), and the outcome.
   */
  #context_at(now_ms: number, outcome: RequestOutcome = RequestOutcome.Ok): CacheContext {
    this.#refresh(now_ms)
    return contextFromProbeAndOutcome(this.#probe, now_ms, outcome)
  }

  /**
   * Starts a refresh of the probe, never awaited. A refresh that throws or rejects (a custom probe's failed health
   * check) is ignored: the probe keeps its last state, and the cache is never why a request fails or the process ends
   * on an unhandled rejection.
   */
  #refresh(now_ms: number): void {
    try {
      const started = this.#probe.refresh?.(now_ms)
      if (typeof (started as PromiseLike<unknown> | undefined)?.then === 'function') {
        Promise.resolve(started).catch(() => {})
      }
    } catch {
      // As a rejection: the refresh failed, the lookup goes on with what the probe knows.
    }
  }

  #decide(x: Exchange, decision: HttpCacheDecision, detail: HttpCacheDetail = {}): void {
    x.res.header('x-fw-cache-status', decision === 'stale' ? 'hit' : decision)
    if (this.#vary !== '') x.res.header('Vary', this.#vary)
    cache_decided(decision)
    this.#on_decision?.(decision, x.key, detail)
  }

  /**
   * Answers from `entry`; false, with nothing of it set on the response and no decision made, when it holds a header no
   * response may send, which the caller then answers as a miss (an entry from the store, `#discard`ed first).
   */
  #serve(x: Exchange, entry: CacheEntry, decision: 'hit' | 'stale', failure?: { error?: unknown }): boolean {
    const age_s = age_seconds(entry, this.#now())
    // Two property reads on a request with neither validator: the hit path stays as it was.
    const conditional = x.headers['if-none-match'] !== undefined || x.headers['if-modified-since'] !== undefined
    if (!replay(x.res, entry, age_s, conditional && not_modified(entry, x.headers))) return false
    this.#decide(x, decision, { age_s, ...failure })
    return true
  }

  /**
   * Removes `entry`, found under the request's key, from the store: it cannot be replayed (a header name that is no
   * token, a value with CR, LF, NUL or a character above U+00FF: put by hand, or by another app sharing the store).
   * Logged once per entry object, naming only its method and path, never the header; removed, it is not read again,
   * even from a store that gives a new object on every read, and the next request is a plain miss. A store that cannot
   * erase keeps it: the request goes on as a miss all the same.
   */
  async #discard(x: Exchange, entry: CacheEntry): Promise<void> {
    if (!this.#refused.has(entry)) {
      this.#refused.add(entry)
      log.logf('warn', 'http_cache entry cannot be replayed, answered as a miss', 'entry', route_of(x.key))
    }
    try {
      await this.#cache.store.erase(x.key)
    } catch {
      // As a store that cannot be read: the cache is never why the request fails.
    }
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

  /**
   * The entry the policy allows after a failed request and whose Vary record matches it, or undefined (also when the
   * store cannot answer, when the entry is stale and its answer forbids reuse once stale, and when it cannot be
   * replayed, which is removed from the store, so that the failure passes through as it was).
   */
  async #stale_entry(x: Exchange): Promise<CacheEntry | undefined> {
    try {
      const t = this.#now()
      const entry = await this.#cache.get(x.key, t, this.#context_at(t, RequestOutcome.NetworkError))
      if (entry === undefined || !matches(entry, x.headers)) return undefined
      if (!may_serve_stale(entry) && !this.#fresh(entry, t)) return undefined
      // Asked before the failed answer is undone: an entry that cannot stand in lets it pass through as it was.
      if (replayable(entry)) return entry
      await this.#discard(x, entry)
      return undefined
    } catch {
      return undefined
    }
  }

  /**
   * Runs the rest of the chain. A failure that becomes a 5xx is answered stale when the policy allows (undefined is
   * returned); other failures pass through; a success gives the entry to store, if the answer may be stored, or says
   * that its body is over `max_body_bytes`.
   */
  async #run(x: Exchange, store: boolean): Promise<Ran | undefined> {
    const before = snapshot(x.res)
    let failure: { error?: unknown } | undefined
    try {
      await x.next()
      if (x.res.status_code >= 500) failure = {}
    } catch (error) {
      failure = { error }
    }
    if (failure === undefined) {
      const entry = store ? storable(x.res, before, this.#now(), x.headers) : undefined
      // Too large to store, the answer is still one concurrent misses of the key may share.
      return { entry, oversized: entry !== undefined && larger_than(entry.body, this.#max_body_bytes) }
    }
    const stale = server_failure(failure) ? await this.#stale_entry(x) : undefined
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
    let ran: Ran | undefined
    try {
      ran = await this.#run(x, store)
    } finally {
      if (settle !== undefined) {
        this.#flights.delete(x.key)
        settle(ran?.entry)
      }
    }
    if (ran === undefined) return
    // A streamed answer is never stored, nor one over max_body_bytes: the cache stood aside.
    if (x.res.streamed !== undefined || ran.oversized === true) return this.#decide(x, 'bypass')
    this.#decide(x, 'miss', ran.entry === undefined ? {} : await this.#put(x.key, ran.entry))
  }
}

/**
 * The response cache in front of the routes it is mounted on. GET requests are looked up under
 * `CacheKey.fromRequest('GET', path, raw query, headers, [...include_headers, 'host'])` (the host, or HTTP/2's
 * `:authority`, always keys: a handler that reads another header to build its answer, such as `X-Forwarded-Host`,
 * must list it in `include_headers`); a fresh entry answers at once with `Age`,
 * and a miss runs the handler and stores a 200 that has no `Set-Cookie`, no `Vary: *`, and no `no-store`, `private`,
 * `no-cache` or zero `s-maxage` (else `max-age`, else an `Expires` at or before its `Date`, or no HTTP-date). An entry
 * is fresh for the policy's ttl, or for the answer's own `s-maxage` (else `max-age`, else `Expires` minus `Date`), less
 * the `Age` it came with, when that is shorter (its `Age` counts on in a hit's); past it, it only stands in for a
 * failure or while offline, and
 * never when its answer said `must-revalidate`, `proxy-revalidate` or `s-maxage` (RFC 9111 4.2.4). An entry answers only
 * requests whose values of the headers its answer's `Vary` names are those of the request that stored it; any other
 * is a miss. Every GET and HEAD answer carries `x-fw-cache-status: hit|miss|bypass` and, with `include_headers`, names
 * them in `Vary`; other methods pass through untouched. HEAD answers from the GET entry but never stores. An answer from
 * an entry is a 304 without a body when the request's `If-None-Match` is `*` or lists the entry's `ETag` (weak
 * comparison), or, without one, its `If-Modified-Since` is at or after the entry's `Last-Modified`. A body over
 * `max_body_bytes` (1 MiB) is not stored: the answer passes through, a `bypass`, as a streamed one does.
 * `x-fw-cache: bypass` on the request skips lookup and store, and so does a request with `Authorization`, `Cookie`, `X-Api-Key` or a header of
 * `credential_headers` unless `include_headers` names it or `cache_credentialed` is set. A hit runs none of the
 * middleware after this one: mount access control before it. When the handler answers 5xx or throws an error that
 * becomes one (a thrown 4xx passes through), an entry the policy still allows after an error is served instead (status
 * `hit`, its `Age` past the ttl); otherwise the failure passes through. Concurrent misses of one key run the handler
 * once and share its answer when it could be stored. A store that fails (Redis down) makes the request a `bypass`: the
 * handler runs, the cache never answers 500.
 * @example
 * const cache = fw.middleware.app.http_cache({ policy: { ttl_ms: 30_000 }, include_headers: ['accept-language'] })
 * app.use('/api/catalog', cache)
 */
export function http_cache(options: HttpCacheOptions = {}): Middleware {
  const cache = new HttpCache(options)
  const mw: Middleware = function http_cache(req, res, next) {
    return cache.handle(req, res, next)
  }
  return with_route_options(mw, { caches: 'http_cache' })
}
