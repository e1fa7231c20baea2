import t from 'tap'
import { LoadMonitor } from '../../../lib/observability/load.js'

const reading = (delay: number) => ({ event_loop_delay_ms: delay, heap_used_bytes: 0, rss_bytes: 0 })

t.test('LoadMonitor', async (t) => {
  t.test('does not flap at the edge: on past the threshold, off only under the lower mark', async (t) => {
    const m = new LoadMonitor({ max_event_loop_delay_ms: 100, recover_ratio: 0.5 })
    const seen = [50, 101, 99, 60, 101, 49, 99].map((d) => m.sample(reading(d)))
    t.same(seen, [false, true, true, true, true, false, false])
  })

  t.test('watches only the thresholds given', async (t) => {
    const m = new LoadMonitor({ max_rss_bytes: 10 })
    t.equal(m.sample({ event_loop_delay_ms: 1e9, heap_used_bytes: 1e12, rss_bytes: 9 }), false)
    t.equal(m.sample({ event_loop_delay_ms: 0, heap_used_bytes: 0, rss_bytes: 11 }), true)
  })

  t.test('rejects bad options with their name', async (t) => {
    t.throws(() => new LoadMonitor({ max_heap_bytes: -1 }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'load: max_heap_bytes must be a number > 0; got -1',
    })
    t.throws(() => new LoadMonitor({ recover_ratio: 2 }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'load: recover_ratio must be a number > 0 and <= 1; got 2',
    })
  })
})
