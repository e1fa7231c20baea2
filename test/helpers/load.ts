// A load monitor the tests push into shedding at will, with no real sampling.
import { LoadMonitor } from '../../lib/observability/index.js'

/**
 * A `LoadMonitor` whose heap threshold is 100 bytes (`retry_after_s` as given), and `overload()`, which feeds it one
 * sample of 101 bytes: it sheds from then on.
 */
export function heap_monitor(options: { retry_after_s?: number } = {}): { monitor: LoadMonitor; overload: () => void } {
  const monitor = new LoadMonitor({ max_heap_bytes: 100, ...options })
  return { monitor, overload: () => monitor.sample({ event_loop_delay_ms: 0, heap_used_bytes: 101, rss_bytes: 0 }) }
}
