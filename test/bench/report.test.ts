import t from 'tap'
import { render_markdown } from '../../bench/render.js'
import { median, median_interval, round_ratio, settled, verdict_text, type BenchRatio } from '../../bench/report.js'

/** C(n, k) exactly. */
function choose(n: number, k: number): bigint {
  let c = 1n
  for (let i = 0; i < k; i++) c = (c * BigInt(n - i)) / BigInt(i + 1)
  return c
}

/** The exact coverage of [x(k), x(n+1-k)] as an interval of the median: 1 - 2 P(B < k), B ~ Binomial(n, 1/2). */
function coverage(n: number, k: number): number {
  let below = 0n
  for (let i = 0; i < k; i++) below += choose(n, i)
  return 1 - (2 * Number(below)) / 2 ** n
}

t.test('median_interval', async (t) => {
  t.test('takes the 2nd and 8th of 9 rounds, the whole range of 5 and 7, whatever their order', async (t) => {
    const nine = [9, 1, 8, 2, 7, 3, 6, 4, 5]
    t.same(median_interval(nine), { low: 2, high: 8, coverage: 1 - 20 / 512 })
    t.same(median_interval([7, 1, 6, 2, 5, 3, 4]), { low: 1, high: 7, coverage: 1 - 2 / 128 })
    t.same(median_interval([5, 1, 4, 2, 3]), { low: 1, high: 5, coverage: 1 - 2 / 32 })
    t.same(nine, [9, 1, 8, 2, 7, 3, 6, 4, 5], 'the input is left as it was')
  })

  t.test('picks, for every count of rounds from 6 to 40, the narrowest pair that keeps 95%', async (t) => {
    for (let n = 6; n <= 40; n++) {
      const xs = Array.from({ length: n }, (_, i) => i + 1)
      const i = median_interval(xs)!
      const k = i.low
      t.equal(i.high, n + 1 - k, `n=${n}: symmetric`)
      t.ok(Math.abs(i.coverage - coverage(n, k)) < 1e-12, `n=${n}: coverage is exact`)
      t.ok(i.coverage >= 0.95, `n=${n}: k=${k} keeps 95% (${i.coverage})`)
      if (k + 1 <= n + 1 - (k + 1)) t.ok(coverage(n, k + 1) < 0.95, `n=${n}: k=${k + 1} would not`)
      t.ok(i.low <= median(xs) && median(xs) <= i.high, `n=${n}: holds the median`)
    }
  })

  t.test('gives none for fewer than 2 figures or a figure that was not measured', async (t) => {
    t.equal(median_interval([]), undefined)
    t.equal(median_interval([1.2]), undefined)
    t.equal(median_interval([1, Number.NaN, 2]), undefined)
    t.same(median_interval([2, 1]), { low: 1, high: 2, coverage: 0.5 })
  })

  t.test('round_ratio gives the interval of the same pairing as its median', async (t) => {
    const a = [10, 20, 30, 40, 50]
    const b = [10, 10, 10, 10, 10]
    t.equal(round_ratio(a, b).value, 3)
    t.same(round_ratio(a, b).interval, { low: 1, high: 5, coverage: 0.9375 })
    t.same(round_ratio(b, a).interval, { low: 0.2, high: 1, coverage: 0.9375 })
  })
})

t.test('settled and verdict_text', async (t) => {
  const ceiling = (value: number, low: number, high: number): BenchRatio => ({
    scenario: 's',
    label: 'fw / fastify CPU',
    value,
    target: 1.1,
    at_most: true,
    interval: { low, high, coverage: 0.96 },
  })
  t.test('a ceiling: met, missed, or decided by the median alone', async (t) => {
    t.equal(verdict_text(ceiling(1.0, 0.9, 1.05)), 'met')
    t.equal(verdict_text(ceiling(1.2, 1.15, 1.3)), 'missed')
    t.equal(verdict_text(ceiling(1.05, 0.95, 1.2)), 'met by the median; the interval crosses the target')
    t.equal(verdict_text(ceiling(1.15, 1.0, 1.3)), 'missed by the median; the interval crosses the target')
    t.equal(settled(ceiling(1.1, 1.0, 1.1)), true, 'an end on the target meets it')
  })

  t.test('a floor, a ratio with no interval and one with no target', async (t) => {
    const floor: BenchRatio = { scenario: 's', label: 'speed', value: 0.95, target: 0.9 }
    t.equal(verdict_text({ ...floor, interval: { low: 0.91, high: 1.0, coverage: 0.96 } }), 'met')
    t.equal(settled({ ...floor, interval: { low: 0.85, high: 1.0, coverage: 0.96 } }), false)
    t.equal(verdict_text(floor), 'met')
    t.equal(verdict_text({ ...floor, value: 0.8 }), 'missed')
    t.equal(settled({ scenario: 's', label: 'x', value: 2, interval: { low: 0, high: 9, coverage: 1 } }), true)
  })
})

t.test('render_markdown gives each ratio its interval and verdict', async (t) => {
  const md = render_markdown(
    [
      {
        name: 'http',
        rows: [],
        ratios: [
          {
            scenario: 'json hello (node v20)',
            label: 'fw / fastify CPU',
            value: 1.04,
            target: 1.1,
            at_most: true,
            interval: { low: 0.93, high: 1.18, coverage: 0.9609375 },
          },
          { scenario: 'json hello (node v20)', label: 'fw / fastify bytes', value: 1.3, target: 1.25, at_most: true },
        ],
      },
    ],
    {},
  )
  t.match(
    md,
    '| json hello (node v20) | fw / fastify CPU | 1.04x | 0.93-1.18x, 96% | met by the median; the interval crosses the target (<= 1.1) |',
  )
  t.match(md, '| json hello (node v20) | fw / fastify bytes | 1.30x |  | **missed** (<= 1.25) |')
})
