// Property of Cache.get: it answers exactly what a reference model of the spec's five rules answers, for random ages
// (negative ones included), contexts and policies.
import fc from 'fast-check'
import t from 'tap'
import { Cache, CacheContext, CacheEntry, CachePolicy, MemoryStore } from '../../../lib/cache/index.js'

interface Policy {
  ttl_ms: number
  stale_if_error_ms: number
  stale_if_offline_ms: number
  allow_stale_if_error: boolean
  allow_stale_if_offline: boolean
}

/**
 * The spec's table, written from its words: an age is inside a window w when 0 <= age < w. An age below 0 (an entry
 * stamped ahead of now: clock skew) is fw's reading, in docs/decisions.md: it counts by its size, inside when -w < age.
 */
function reference(
  stored: boolean,
  age: number,
  ctx: { offline: boolean; network_error: boolean },
  p: Policy,
): boolean {
  const inside = (w: number): boolean => Math.abs(age) < w
  if (!stored) return false // 1
  if (inside(p.ttl_ms)) return true // 2
  if (ctx.offline && p.allow_stale_if_offline && inside(p.stale_if_offline_ms)) return true // 3
  if (ctx.network_error && p.allow_stale_if_error && inside(p.stale_if_error_ms)) return true // 4
  return false // 5
}

t.test('Cache.get decision rule', async (t) => {
  const ms = fc.integer({ min: 0, max: 10_000 })
  const policy = fc.record({
    ttl_ms: ms,
    stale_if_error_ms: ms,
    stale_if_offline_ms: ms,
    allow_stale_if_error: fc.boolean(),
    allow_stale_if_offline: fc.boolean(),
  })
  const ctx = fc.record({ offline: fc.boolean(), network_error: fc.boolean() })
  const age = fc.oneof(
    fc.integer({ min: -1000, max: 12_000 }),
    ms.map((n) => n),
    fc.constantFrom(0, -1),
  )
  fc.assert(
    fc.property(policy, ctx, age, fc.boolean(), (p, c, a, stored) => {
      const cache = new Cache(new CachePolicy(p), new MemoryStore())
      const now = 1_700_000_000_000
      if (stored) cache.put('k', new CacheEntry({ body: 'b', created_at_ms: now - a }))
      return (cache.get('k', now, new CacheContext(c)) !== undefined) === reference(stored, a, c, p)
    }),
    { numRuns: 2000 },
  )
  // Ages on window edges, where off-by-one mistakes live.
  fc.assert(
    fc.property(
      policy,
      ctx,
      fc.integer({ min: -1, max: 1 }),
      fc.constantFrom('ttl_ms', 'stale_if_error_ms', 'stale_if_offline_ms'),
      (p, c, d, w) => {
        const cache = new Cache(new CachePolicy(p), new MemoryStore())
        const a = (p[w as keyof Policy] as number) + d
        cache.put('k', new CacheEntry({ body: 'b', created_at_ms: 1000 - a }))
        return (cache.get('k', 1000, new CacheContext(c)) !== undefined) === reference(true, a, c, p)
      },
    ),
    { numRuns: 1000 },
  )
  t.pass('Cache.get equals the reference model on 3000 random cases')
})
