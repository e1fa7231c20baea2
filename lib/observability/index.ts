// The module `fw/observability`: Prometheus metrics, health probes, load shedding, tracing, and the module event API.
// Only what users call: the hooks modules and the adapter share (`observed`, `report`, `route_template`, `span_of`,
// `cache_decided`...) are imported from their own files.
export { type FwEvent, type FwEventListener, on_event } from './events.js'
export { Metrics, type MetricsOptions } from './metrics.js'
export { Health, type HealthOptions, type HealthCheck, type CheckResult, redis_ping } from './health.js'
export { LoadMonitor, type LoadOptions, type LoadReading } from './load.js'
export { CODE_OVERLOADED, CODE_NOT_READY, ERR_OBSERVABILITY_BAD_OPTION } from './errors.js'
export { HttpTracing, request_span, in_span, decision_span, type ServerRequestInfo } from './tracing.js'
