// The soak in short: 30 seconds of the showcase under the wrk mix, with SSE subscribers and chat WebSocket clients
// beside it, in 10-second buckets, through `bench/soak.ts`. It must pass the soak's rules (no 5xx, no WebSocket 1011,
// no heap growth after a forced GC) and see the mix's answers: 2xx, 401, 409 and 429, events on every stream and chat
// messages.
import t from 'tap'
import { soak } from '../../bench/soak.js'

t.setTimeout(120_000)

t.test('npm run soak, 30 seconds', async (t) => {
  const clients = { sse: 20, ws: 10 }
  const report = await soak(Number(process.env.FW_SOAK_SECONDS ?? 30), 10, 50, clients)
  for (const b of report.buckets) t.comment(JSON.stringify(b))
  t.equal(
    report.buckets.length,
    Number(process.env.FW_SOAK_SECONDS ?? 30) / 10,
    'one set of figures per 10-second bucket',
  )
  t.ok(report.totals.requests > 1000, `the server answered ${report.totals.requests} requests`)
  // tap runs two test files at once: a p99 of 10 s buckets follows the neighbours, and RSS follows V8's heap growth,
  // which at ~10k req/s climbs for longer than 30 s between collections. Both are reported here and enforced by `npm
  // run soak`, whose buckets are minutes; the heap read after a forced GC is what a leak grows, and is enforced here.
  const reported = report.failures.filter((f) => f.startsWith('p99') || f.startsWith('RSS'))
  t.same(
    report.failures.filter((f) => !reported.includes(f)),
    [],
    'no 5xx, no WebSocket 1011, no heap growth after GC',
  )
  t.comment(
    reported.length === 0
      ? 'p99 and RSS did not grow'
      : `rules enforced by npm run soak, not here: ${reported.join('; ')}`,
  )
  const seen = Object.keys(report.totals.statuses).sort()
  t.same(
    seen,
    ['200', '201', '401', '409', '429'],
    'the mix reaches reads, writes, auth failures, conflicts and the rate limit',
  )
  t.equal(
    report.buckets.reduce((a, b) => a + b.socket_errors, 0),
    0,
    'no socket errors',
  )
  for (const [i, b] of report.buckets.entries()) {
    const s = b.streams
    // The showcase's stream sends an event a second; the chat room echoes each message to every member.
    t.ok(
      s.sse_events >= clients.sse && s.ws_messages >= clients.ws,
      `bucket ${i + 1}: ${s.sse_events} SSE events, ${s.ws_messages} chat messages`,
    )
    t.same([s.sse_errors, s.ws_errors], [0, 0], `bucket ${i + 1}: no SSE or WebSocket errors`)
  }
})
