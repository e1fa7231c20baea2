// The module `fw/observability`: Prometheus metrics, health probes, load shedding, tracing, and the module event API.
export { type FwEvent, type FwEventListener, observed, report, on_event } from './events.js'
export { Metrics, type MetricsOptions } from './metrics.js'
export { route_template, UNMATCHED_ROUTE } from './route.js'
export { Health, type HealthOptions, type HealthCheck, type CheckResult, redis_ping } from './health.js'
export { LoadMonitor, type LoadOptions, type LoadReading } from './load.js'
export { CODE_OVERLOADED, CODE_NOT_READY, ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
export {
  HttpTracing,
  span_fields,
  attach_span,
  span_of,
  request_span,
  in_span,
  decision_span,
  type ServerRequestInfo,
} from './tracing.js'
export { cache_decided, type CacheOutcome } from './cache.js'
