import t from 'tap'
import { CachePolicy } from '../../../lib/cache/cache-policy.js'
import { ERR_CACHE_BAD_OPTION } from '../../../lib/cache/errors.js'

t.test('CachePolicy', async (t) => {
  t.test('has the documented defaults', async (t) => {
    const p = new CachePolicy()
    t.same(
      [p.ttl_ms, p.stale_if_error_ms, p.stale_if_offline_ms, p.allow_stale_if_error, p.allow_stale_if_offline],
      [60_000, 300_000, 600_000, true, true],
    )
    t.equal(p.max_useful_age_ms, 600_000)
  })

  t.test('takes every field and freezes itself', async (t) => {
    const p = new CachePolicy({
      ttl_ms: 1,
      stale_if_error_ms: 2,
      stale_if_offline_ms: 3,
      allow_stale_if_error: false,
      allow_stale_if_offline: false,
    })
    t.same(
      [p.ttl_ms, p.stale_if_error_ms, p.stale_if_offline_ms, p.allow_stale_if_error, p.allow_stale_if_offline],
      [1, 2, 3, false, false],
    )
    t.equal(Object.isFrozen(p), true)
  })

  t.test(
    'rejects negative, fractional, NaN and infinite windows with a coded error that quotes the value',
    async (t) => {
      const cases: [string, unknown, string][] = [
        ['ttl_ms', -1, 'CachePolicy: ttl_ms must be an integer >= 0; got -1'],
        ['ttl_ms', NaN, 'CachePolicy: ttl_ms must be an integer >= 0; got NaN'],
        ['ttl_ms', 1.5, 'CachePolicy: ttl_ms must be an integer >= 0; got 1.5'],
        ['stale_if_error_ms', Infinity, 'CachePolicy: stale_if_error_ms must be an integer >= 0; got Infinity'],
        ['stale_if_offline_ms', '10', 'CachePolicy: stale_if_offline_ms must be an integer >= 0; got "10"'],
        ['allow_stale_if_error', 1, 'CachePolicy: allow_stale_if_error must be a boolean; got 1'],
        ['allow_stale_if_offline', null, 'CachePolicy: allow_stale_if_offline must be a boolean; got null'],
      ]
      for (const [field, value, message] of cases) {
        t.throws(() => new CachePolicy({ [field]: value }), { code: ERR_CACHE_BAD_OPTION.code, message }, field)
      }
    },
  )

  t.test('accepts zero windows', async (t) => {
    const p = new CachePolicy({ ttl_ms: 0, stale_if_error_ms: 0, stale_if_offline_ms: 0 })
    t.equal(p.is_fresh(0), false)
    t.equal(p.allow_stale_error(0), false)
    t.equal(p.allow_stale_offline(0), false)
    t.equal(p.max_useful_age_ms, 0)
  })
})

t.test('CachePolicy.is_fresh', async (t) => {
  const p = new CachePolicy({ ttl_ms: 1000 })

  t.test('is true from age 0 up to ttl_ms - 1 and false from ttl_ms on', async (t) => {
    t.same(
      [0, 1, 999, 999.5, 1000, 1001].map((a) => p.is_fresh(a)),
      [true, true, true, true, false, false],
    )
  })

  t.test(
    'counts a negative age (clock skew) by its size, so a clock that went back keeps no entry fresh for good',
    async (t) => {
      t.same(
        [-1, -999, -1000, -1e12, -Infinity].map((a) => p.is_fresh(a)),
        [true, true, false, false, false],
      )
      t.equal(new CachePolicy({ ttl_ms: 0 }).is_fresh(-5), false)
    },
  )

  t.test('is false for a NaN or infinite age', async (t) => {
    t.equal(p.is_fresh(NaN), false)
    t.equal(p.is_fresh(Infinity), false)
  })
})

const STALE_PREDICATES = [
  { name: 'allow_stale_error', window: 'stale_if_error_ms', flag: 'allow_stale_if_error', w: 500 },
  { name: 'allow_stale_offline', window: 'stale_if_offline_ms', flag: 'allow_stale_if_offline', w: 700 },
] as const

for (const { name, window, flag, w } of STALE_PREDICATES) {
  t.test(`CachePolicy.${name}`, async (t) => {
    t.test(`is true below ${window} and false at it`, async (t) => {
      const p = new CachePolicy({ ttl_ms: 10, [window]: w })
      t.same(
        [0, 10, w - 1, w, w + 1].map((a) => p[name](a)),
        [true, true, true, false, false],
      )
      t.equal(p[name](-3), true, 'a small negative age counts by its size')
      t.equal(p[name](-w), false, 'an entry stamped a whole window ahead is outside it')
      t.equal(p[name](NaN), false)
    })

    t.test(`is always false when ${flag} is off`, async (t) => {
      const p = new CachePolicy({ [window]: w, [flag]: false })
      t.same(
        [0, w - 1, -1].map((a) => p[name](a)),
        [false, false, false],
      )
    })
  })
}

t.test('CachePolicy.max_useful_age_ms', async (t) => {
  t.test('is the largest of ttl and each enabled stale window', async (t) => {
    t.equal(new CachePolicy({ ttl_ms: 100, stale_if_error_ms: 300, stale_if_offline_ms: 200 }).max_useful_age_ms, 300)
    t.equal(
      new CachePolicy({ ttl_ms: 100, stale_if_error_ms: 300, stale_if_offline_ms: 200, allow_stale_if_error: false })
        .max_useful_age_ms,
      200,
    )
    t.equal(
      new CachePolicy({
        ttl_ms: 100,
        stale_if_error_ms: 300,
        stale_if_offline_ms: 200,
        allow_stale_if_error: false,
        allow_stale_if_offline: false,
      }).max_useful_age_ms,
      100,
    )
    t.equal(new CachePolicy({ ttl_ms: 900, stale_if_error_ms: 300, stale_if_offline_ms: 200 }).max_useful_age_ms, 900)
  })
})
