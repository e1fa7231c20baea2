// Demo `cache`: http_cache in front of an upstream route with a short ttl, and a switch that makes the upstream fail,
// so a client sees a miss, hits, and the stale answer served while the upstream is down.
import type { Router } from '../index.js'
import * as log from '../lib/log/index.js'
import { http_cache, type HttpCacheDecision, type HttpCacheDetail } from '../lib/middleware/app/index.js'
import type { Demo } from './demo.js'

/** The demo's policy: fresh for 5 s, then served stale for up to a minute while the upstream fails. */
export const CACHE_DEMO_POLICY = Object.freeze({ ttl_ms: 5_000, stale_if_error_ms: 60_000 })

/** Options of `setup_cache`. */
export interface CacheDemoOptions {
  /** The clock in ms (default `Date.now`); tests pass a fake one. */
  now?: () => number
}

/**
 * One log line per decision: info for hits, misses and bypasses, warning when an error is behind it (stale, store
 * down).
 */
function log_decision(lines: log.Logger): (decision: HttpCacheDecision, key: string, detail: HttpCacheDetail) => void {
  return (decision, key, { age_s, error }) => {
    if (error === undefined)
      lines.logf(log.LogLevel.Info, 'http_cache', 'decision', decision, 'key', key, 'age_s', age_s ?? '-')
    else {
      const message = error instanceof Error ? error.message : String(error)
      lines.logf(
        log.LogLevel.Warn,
        'http_cache',
        'decision',
        decision,
        'key',
        key,
        'age_s',
        age_s ?? '-',
        'error',
        message,
      )
    }
  }
}

/**
 * Registers the demo's routes on `r`:
 * - `GET /data`: the upstream behind `http_cache`, answering `{ok, n, at}` with a counter of upstream calls and its time;
 *   while the upstream fails it throws, so the App answers 500 unless the cache serves a stale entry;
 * - `POST /upstream/fail` and `POST /upstream/ok`: switch the upstream to failing and back, answering `{ok, upstream}`.
 * @example
 * setup_cache(app)
 */
export function setup_cache(r: Router, { now = Date.now }: CacheDemoOptions = {}): void {
  // Each decision's line is written after awaits (the store's read, the handler), where on Node 20 and 22 a request's
  // context follows only once request code wrote a line: the very first line would have no rid=. The demo writes one
  // per request anyway, so following from the first costs nothing more.
  log.follow_context()
  const upstream = { failing: false, calls: 0 }
  r.use('/data', http_cache({ policy: CACHE_DEMO_POLICY, now, on_decision: log_decision(log.logger('cache')) }))
  r.get('/data', (_req, res) => {
    if (upstream.failing) throw new Error('upstream is failing')
    res.json('ok', true, 'n', ++upstream.calls, 'at', new Date(now()).toISOString())
  })
  r.post('/upstream/fail', (_req, res) => {
    upstream.failing = true
    res.json('ok', true, 'upstream', 'failing')
  })
  r.post('/upstream/ok', (_req, res) => {
    upstream.failing = false
    res.json('ok', true, 'upstream', 'ok')
  })
}

export const demo: Demo = {
  name: 'cache',
  description:
    'GET /data behind http_cache (5 s fresh); POST /upstream/fail makes it serve stale, /upstream/ok restores',
  setup(_app, r) {
    setup_cache(r)
  },
}
