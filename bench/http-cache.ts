// http_cache: an fw route whose handler does 1 ms of CPU work (a busy-wait, standing for rendering or serialising),
// bare against the same route behind http_cache answering hits. One server process (this file started again with
// bench/servers/http-cache-fw.ts), rounds interleaved with the order alternated, autocannon on 127.0.0.1.
import { pathToFileURL } from 'node:url'
import { between, type Allocated } from './allocations.js'
import { BYTES_UNIT, bytes_row } from './cpu.js'
import { cost_ratio, ratio, scenario_rows, type BenchReport } from './report.js'
import { load, start_server, warm_up, WARM_UP_S } from './servers.js'

const WORK_MS = 1
const ROUTES = [
  ['uncached', '/work'],
  ['http_cache hit', '/cached/work'],
] as const
const SCENARIO = `handler with ${WORK_MS} ms CPU`

async function calls(port: number): Promise<number> {
  return ((await (await fetch(`http://127.0.0.1:${port}/calls`)).json()) as { calls: number }).calls
}

/** Runs the benchmark; `quick` shortens each run for a smoke test. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const server = await start_server('fw', 'http-cache-fw.ts')
  try {
    // The first request stores the entry, so every request of the cached runs is a hit.
    const first = await fetch(`http://127.0.0.1:${server.port}/cached/work`)
    if (first.headers.get('x-fw-cache-status') !== 'miss') throw new Error('the first cached request was not a miss')
    if (!opts.quick)
      await warm_up(
        [server],
        ROUTES.map(([, path]) => ({ path, pipelining: 1 })),
      )
    const figures = new Map<string, number[]>(ROUTES.map(([name]) => [name, []]))
    const heap = new Map<string, Array<{ allocated: Allocated; units: number }>>(ROUTES.map(([name]) => [name, []]))
    const before = await calls(server.port)
    for (let round = 0; round < opts.rounds; round++) {
      for (const [name, path] of round % 2 ? [...ROUTES].reverse() : ROUTES) {
        const heap_before = await server.allocated()
        const r = await load(server.port, { path, pipelining: 1, duration_s })
        figures.get(name)!.push(r.rps)
        heap.get(name)!.push({ allocated: between(heap_before, await server.allocated()), units: r.answered })
      }
    }
    return report(figures, heap, duration_s, (await calls(server.port)) - before)
  } finally {
    await server.stop()
  }
}

function report(
  figures: Map<string, number[]>,
  heap: Map<string, Array<{ allocated: Allocated; units: number }>>,
  duration_s: number,
  cached_calls: number,
): BenchReport {
  const { rows, row } = scenario_rows(SCENARIO, figures, 'req/s')
  const bytes = ROUTES.map(([name]) => bytes_row(SCENARIO, name, BYTES_UNIT, heap.get(name)!))
  return {
    name: 'http-cache',
    rows: [...rows, ...bytes],
    ratios: [
      ratio(SCENARIO, 'hit / uncached', row('http_cache hit'), row('uncached'), 1.5),
      cost_ratio(SCENARIO, 'hit / uncached bytes', bytes[1]!, bytes[0]!),
    ],
    notes: [
      `GET with a handler that busy-waits ${WORK_MS} ms and answers JSON; http_cache over the default LruMemoryStore, ttl 1 h`,
      `autocannon -c 100 -p 1, ${duration_s} s per run after ${WARM_UP_S} s of untimed warm-up, the two routes alternating first; req/s medians; V8 heap bytes the server allocated per answered request, all rounds pooled`,
      `handler runs behind http_cache during the measured runs: ${cached_calls}${cached_calls === 0 ? ' (every request a hit)' : ''}`,
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 5 }), null, 2))
}
