// What fw's modules report for metrics: a few named events, free when no one listens, with no Fastify or prom-client.

/** One module event: a rate-limit refusal, a cache decision, a session store failure, or an auth refusal. */
export type FwEvent =
  | { readonly kind: 'rate_limit_refused'; readonly namespace: string }
  | { readonly kind: 'cache'; readonly outcome: 'hit' | 'miss' | 'stale' | 'bypass' }
  | { readonly kind: 'session_store_error' }
  | { readonly kind: 'auth_refused'; readonly code: string }

/** A function told of every event while subscribed. */
export type FwEventListener = (event: FwEvent) => void

const listeners = new Set<FwEventListener>()

/**
 * Whether anyone listens: modules test it before building an event, so reporting costs one check when metrics are off.
 */
export function observed(): boolean {
  return listeners.size !== 0
}

/**
 * Reports an event to every listener; a listener that throws is skipped, never failing the request that reported.
 * @example
 * if (observed()) report({ kind: 'cache', outcome: 'hit' })
 */
export function report(event: FwEvent): void {
  for (const listener of listeners) {
    try {
      listener(event)
    } catch {
      // Metrics must never turn an answer into a 500.
    }
  }
}

/** Subscribes `listener` to every event until the returned function is called. */
export function on_event(listener: FwEventListener): () => void {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}
