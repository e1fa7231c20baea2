// Memory stores against Redis stores, same run: the session counter route and a rate-limited route, each server in its
// own process, one real redis-server on 127.0.0.1, autocannon from this process. Also counts Redis round trips per
// request from INFO commandstats deltas (commands the stores send; commands run inside the rate limit script are not
// round trips).
import { pathToFileURL } from 'node:url'
import autocannon from 'autocannon'
import { create_redis_client } from '../lib/redis/index.js'
import { start_redis } from '../test/helpers/redis-server.js'
import { between, type Allocated } from './allocations.js'
import { BYTES_UNIT, bytes_row } from './cpu.js'
import { cost_ratio, median, ratio, type BenchReport, type BenchRow } from './report.js'
import { start_server, type Server } from './servers.js'

const CONNECTIONS = 100
/** Commands the stores send as requests; the script's own HMGET, HSET and PEXPIRE run inside one EVALSHA. */
const ROUND_TRIP_COMMANDS = ['get', 'set', 'del', 'evalsha', 'eval']
const SCENARIOS = [
  { name: 'session counter', path: '/session' },
  { name: 'rate-limited route', path: '/limited' },
] as const

/**
 * One session cookie per connection, so requests of one connection share a session and connections do not queue on one.
 */
async function cookies(port: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const r = await fetch(`http://127.0.0.1:${port}/session`)
      return r.headers.get('set-cookie')!.split(';')[0]!
    }),
  )
}

/**
 * Requests per second and requests sent (answered or cut at the end) of one bounded run; non-2xx answers make it throw.
 */
async function load(
  port: number,
  path: string,
  duration_s: number,
  jar: string[],
): Promise<{ rps: number; sent: number; answered: number }> {
  let next = 0
  const r = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: duration_s,
    setupClient: (client) => client.setHeaders({ cookie: jar[next++ % jar.length]! }),
  })
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path} on ${port}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return { rps: r.requests.average, sent: r.requests.sent, answered: r.requests.total }
}

/** Calls of the round-trip commands so far, from INFO commandstats. */
async function round_trip_calls(info: () => Promise<string>): Promise<number> {
  let calls = 0
  for (const m of (await info()).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm))
    if (ROUND_TRIP_COMMANDS.includes(m[1]!)) calls += Number(m[2])
  return calls
}

/** Runs the benchmark; `quick` shortens each run for a smoke test. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const cleanup: Array<() => unknown> = []
  try {
    const redis = await start_redis({ teardown: (fn) => cleanup.push(fn) })
    const admin = create_redis_client({ host: '127.0.0.1', port: redis.port })
    cleanup.push(() => admin.disconnect())
    const servers: Server[] = []
    for (const store of ['memory', 'redis']) {
      const s = await start_server(store, 'redis-app.ts', { STORE: store, REDIS_PORT: String(redis.port) })
      cleanup.push(() => s.stop())
      servers.push(s)
    }
    const jars = new Map(await Promise.all(servers.map(async (s) => [s.name, await cookies(s.port)] as const)))
    const figures = new Map<string, number[]>()
    const trips = new Map<string, number[]>()
    const heap = new Map<string, Array<{ allocated: Allocated; units: number }>>()
    const record = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v])
    if (!opts.quick)
      for (const s of servers) for (const sc of SCENARIOS) await load(s.port, sc.path, 1, jars.get(s.name)!)
    for (let round = 0; round < opts.rounds; round++) {
      for (const sc of SCENARIOS) {
        // Alternate which store goes first, so neither always runs on a machine warmed by the other.
        for (const s of round % 2 ? [...servers].reverse() : servers) {
          const before = await round_trip_calls(() => admin.info('commandstats'))
          const heap_before = await s.allocated()
          const r = await load(s.port, sc.path, duration_s, jars.get(s.name)!)
          record(figures, `${sc.name}|${s.name}`, r.rps)
          const key = `${sc.name}|${s.name}`
          heap.set(key, [
            ...(heap.get(key) ?? []),
            { allocated: between(heap_before, await s.allocated()), units: r.answered },
          ])
          if (s.name !== 'redis') continue
          // Requests cut at the end of the run still reach the server: let their commands land before counting.
          await new Promise((resolve) => setTimeout(resolve, 200))
          record(trips, sc.name, ((await round_trip_calls(() => admin.info('commandstats'))) - before) / r.sent)
        }
      }
    }
    return report(figures, trips, heap, duration_s)
  } finally {
    for (const fn of cleanup.reverse()) await fn()
  }
}

function report(
  figures: Map<string, number[]>,
  trips: Map<string, number[]>,
  heap: Map<string, Array<{ allocated: Allocated; units: number }>>,
  duration_s: number,
): BenchReport {
  const rows: BenchRow[] = [...figures].map(([key, rounds]) => {
    const [scenario, competitor] = key.split('|') as [string, string]
    return { scenario, competitor, median: median(rounds), rounds, unit: 'req/s' }
  })
  for (const [scenario, rounds] of trips) {
    rows.push({
      scenario,
      competitor: 'redis round trips',
      median: median(rounds),
      rounds,
      unit: 'commands/request',
      lower_is_better: true,
    })
  }
  for (const [key, windows] of heap) {
    const [scenario, competitor] = key.split('|') as [string, string]
    rows.push(bytes_row(scenario, competitor, BYTES_UNIT, windows))
  }
  const row = (s: string, c: string, unit = 'req/s'): BenchRow =>
    rows.find((r) => r.scenario === s && r.competitor === c && r.unit === unit)!
  return {
    name: 'redis',
    rows,
    ratios: SCENARIOS.flatMap((sc) => [
      ratio(sc.name, 'redis / memory', row(sc.name, 'redis'), row(sc.name, 'memory')),
      cost_ratio(
        sc.name,
        'redis / memory bytes',
        row(sc.name, 'redis', BYTES_UNIT),
        row(sc.name, 'memory', BYTES_UNIT),
      ),
    ]),
    notes: [
      'GET /session: load, count up, save (a session per connection); GET /limited: rate_limit that never triggers, all hits on one key',
      `autocannon -c ${CONNECTIONS} -p 1, ${duration_s} s per run, stores alternating first; req/s medians; Redis on 127.0.0.1, no persistence`,
      'round trips: GET/SET/DEL/EVALSHA calls per request sent, from INFO commandstats deltas around each run',
      'bytes: V8 heap bytes the server allocated per answered request (its --trace-gc-nvp lines during each run), all rounds pooled',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 5 }), null, 2))
}
