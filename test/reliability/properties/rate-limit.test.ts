// Property of rate_limit: for any arrival times, any order in which a slow store answers, and any number of concurrent
// requests, no fixed window lets more than max_requests through, and no interval of one window length more than twice
// that (the sliding estimate weighs the previous window; refused requests count too).
import fc from 'fast-check'
import t from 'tap'
import * as fw from '../../../index.js'
import {
  MemoryRateLimitStore,
  type RateLimitResult,
  type RateLimitStore,
} from '../../../lib/middleware/security/rate-limit-store.js'
import { build } from '../../helpers/build.js'

/**
 * A store that counts at once (as Redis does atomically) but answers after a random number of turns of the event loop.
 */
class SlowStore implements RateLimitStore {
  readonly #inner = new MemoryRateLimitStore()
  readonly #delays: number[]
  #n = 0

  constructor(delays: number[]) {
    this.#delays = delays
  }

  async hit(key: string, now_ms: number, window_ms: number): Promise<RateLimitResult> {
    const result = this.#inner.hit(key, now_ms, window_ms)
    for (let i = this.#delays[this.#n++ % this.#delays.length] ?? 0; i > 0; i--)
      await new Promise((resolve) => setImmediate(resolve))
    return result
  }
}

const WINDOW_MS = 1000

t.test('rate_limit', async (t) => {
  const scenario = fc.record({
    max: fc.integer({ min: 1, max: 8 }),
    // Bursts: a moment and how many requests arrive together at it.
    bursts: fc.array(
      fc.record({ at: fc.integer({ min: 0, max: 4 * WINDOW_MS }), size: fc.integer({ min: 1, max: 6 }) }),
      { minLength: 1, maxLength: 12 },
    ),
    delays: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
  })
  await fc.assert(
    fc.asyncProperty(scenario, async ({ max, bursts, delays }) => {
      let now = 0
      const app = build(t, (app) => {
        app.use(
          fw.middleware.app.rate_limit({
            max_requests: max,
            window_seconds: WINDOW_MS / 1000,
            store: new SlowStore(delays),
            now: () => now,
          }),
        )
        app.get('/x', (_req, res) => void res.json('ok', true))
      })
      await app.ready()
      const passed: number[] = []
      for (const { at, size } of [...bursts].sort((a, b) => a.at - b.at)) {
        now = at
        const answers = await Promise.all(Array.from({ length: size }, () => app.inject({ url: '/x' })))
        for (const a of answers) if (a.statusCode === 200) passed.push(at)
      }
      await app.close()
      for (let start = 0; start <= 4 * WINDOW_MS; start += WINDOW_MS) {
        if (passed.filter((p) => p >= start && p < start + WINDOW_MS).length > max) return false
      }
      return passed.every((p) => passed.filter((q) => q >= p && q < p + WINDOW_MS).length <= 2 * max)
    }),
    { numRuns: 200 },
  )
  t.pass('no window let more than max_requests through over 200 random schedules')
})
