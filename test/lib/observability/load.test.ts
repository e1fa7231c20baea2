import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { LoadMonitor, LoopDelay } from '../../../lib/observability/load.js'

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

t.test('LoadMonitor option bounds', async (t) => {
  t.test('refuses a Retry-After that is not a whole number of seconds from 1', async (t) => {
    for (const v of [Infinity, NaN, 0, 1.5, -1]) {
      t.throws(() => new LoadMonitor({ retry_after_s: v }), {
        code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
        message: `load: retry_after_s must be an integer from 1 to ${2 ** 31 - 1}; got ${v}`,
      })
    }
    t.equal(new LoadMonitor({ retry_after_s: 30 }).retry_after_s, 30)
  })

  t.test('refuses a sample interval a Node timer cannot wait (Infinity or 2^31 became a 1 ms timer)', async (t) => {
    for (const v of [Infinity, 2 ** 31, 0, 0.5, NaN]) {
      t.throws(() => new LoadMonitor({ sample_interval_ms: v }), {
        code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
        message: `load: sample_interval_ms must be an integer from 1 to ${2 ** 31 - 1}; got ${v}`,
      })
    }
    t.doesNotThrow(() => new LoadMonitor({ sample_interval_ms: 2 ** 31 - 1 }))
  })

  t.test('refuses a recover_ratio or threshold that is not a number', async (t) => {
    t.throws(() => new LoadMonitor({ recover_ratio: '0.5' as unknown as number }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'load: recover_ratio must be a number > 0 and <= 1; got "0.5"',
    })
    t.throws(() => new LoadMonitor({ max_rss_bytes: '2e9' as unknown as number }), {
      message: 'load: max_rss_bytes must be a number > 0; got "2e9"',
    })
  })
})

t.test('LoadMonitor sampling', async (t) => {
  t.test('an idle loop reads under a 12 ms threshold: the 10 ms sampling tick is not counted as delay', async (t) => {
    const m = new LoadMonitor({ max_event_loop_delay_ms: 12, sample_interval_ms: 40 })
    const seen: boolean[] = []
    const sample = m.sample.bind(m)
    m.sample = (r) => {
      const over = sample(r)
      seen.push(over)
      return over
    }
    m.start()
    t.teardown(() => m.stop())
    // Blocks until a sample sees it (each one should: see 'counts a block that starts just after a reading').
    for (let i = 0; i < 10 && !seen.includes(true); i++) {
      const until = Date.now() + 40
      while (Date.now() < until); // blocks the loop for 40 ms
      await sleep(60)
    }
    t.ok(seen.includes(true), 'a 40 ms block passes the threshold')
    const on = seen.indexOf(true)
    for (let i = 0; i < 100 && !seen.slice(on).includes(false); i++) await sleep(20)
    t.ok(seen.slice(on).includes(false), 'shedding stops once the loop is idle again')
  })
})

t.test('LoadMonitor sampling around a reading', async (t) => {
  t.test('counts a block that starts just after a reading, before the next tick of the loop', async (t) => {
    const m = new LoadMonitor({ max_event_loop_delay_ms: 20, sample_interval_ms: 50 })
    // What each reading after a block said; a block starts only after a reading that was under the threshold.
    const after_block: boolean[] = []
    let blocked = false
    const sample = m.sample.bind(m)
    m.sample = (r) => {
      const over = sample(r)
      if (blocked) after_block.push(over)
      blocked = !blocked && !over
      // Right after the reading, before any timer of the next turn of the loop: a 40 ms block.
      if (blocked) setImmediate(() => block(40))
      return over
    }
    m.start()
    t.teardown(() => m.stop())
    for (let i = 0; i < 200 && after_block.length < 5; i++) await sleep(20)
    t.same(after_block, [true, true, true, true, true], 'every 40 ms block passes a 20 ms threshold')
  })
})

t.test('LoopDelay', async (t) => {
  /** Ticks every 10 ms from `from` (excluded) to `to` (included), as an idle loop runs the timer. */
  const idle = (d: LoopDelay, from: number, to: number) => {
    for (let now = from + 10; now <= to; now += 10) d.tick(now)
  }

  t.test('reads an idle loop as 0: the tick itself is no delay', async (t) => {
    const d = new LoopDelay(0)
    idle(d, 0, 1000)
    t.equal(d.take(1000), 0)
    idle(d, 1000, 2000)
    t.equal(d.take(2003), 0, 'a reading between two ticks is no delay either')
  })

  t.test('counts a block that starts 1 ms after a reading, before the next tick', async (t) => {
    const d = new LoopDelay(0)
    idle(d, 0, 1000)
    t.equal(d.take(1000), 0)
    // Blocked from 1001 to 1041: the tick due at 1010 runs at 1041.
    d.tick(1041)
    idle(d, 1041, 2000)
    t.equal(d.take(2001), 31, 'the 41 ms gap less the 10 ms tick')
    idle(d, 2001, 3000)
    t.equal(d.take(3001), 0, 'and only in that reading')
  })

  t.test('counts a block across a reading once, in the reading it ends in, whichever timer runs first', async (t) => {
    for (const tick_first of [false, true]) {
      const d = new LoopDelay(0)
      idle(d, 0, 990)
      // Blocked from 995 to 1035: the reading due at 1000 and the tick due at 1000 both run at 1035.
      if (tick_first) d.tick(1035)
      t.equal(d.take(1035), 35, `the tick ${tick_first ? 'before' : 'after'} the reading`)
      if (!tick_first) d.tick(1035)
      idle(d, 1035, 2000)
      t.equal(d.take(2005), 0, 'not counted again in the next reading')
    }
  })
})

/** Blocks the event loop for `ms`. */
function block(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}
