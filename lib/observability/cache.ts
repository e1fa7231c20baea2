// What http_cache reports of each decision: the metrics event and, in a traced request, a span with the outcome.
import { observed, report } from './events.js'
import { decision_span } from './tracing.js'

/** One http_cache decision. */
export type CacheOutcome = 'hit' | 'miss' | 'stale' | 'bypass'

/**
 * Reports a cache decision: counted by `app.metrics()` (`fw_cache_lookups_total{outcome}`) and, in a traced request, an
 * `http_cache` span child of the request's span with `fw.cache.outcome`. Costs two checks when neither is on.
 * @example
 * cache_decided('hit')
 */
export function cache_decided(outcome: CacheOutcome): void {
  if (observed()) report({ kind: 'cache', outcome })
  decision_span('http_cache', { 'fw.cache.outcome': outcome })
}
