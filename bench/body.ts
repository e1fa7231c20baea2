// Body scenarios: a 1 MiB binary upload echoing its length and a 10 MB streamed download (wrk, server CPU per request),
// an SSE fan-out of 1,000 events to 50 clients (a Node client: wrk cannot read event streams), and the RSS growth of a
// 100 MB streamed download. fw against Fastify doing the same with its own APIs, rounds interleaved.
import http from 'node:http'
import { readFile, writeFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { between, type Allocated } from './allocations.js'
import { bytes_row } from './cpu.js'
import { cost_ratio, ratio, scenario_rows, type BenchReport, type BenchRatio, type BenchRow } from './report.js'
import { measure, start_pinned, type PinnedServer, type WrkLoad } from './wrk.js'

/** Each competitor and its server script. */
export const COMPETITORS = [
  ['fastify', 'body-fastify.ts'],
  ['fw', 'body-fw.ts'],
] as const
const UPLOAD = Buffer.alloc(1024 * 1024, 0x5a)

/** The scenarios wrk drives. */
export const WRK_SCENARIOS: Array<{ name: string; load: Omit<WrkLoad, 'duration_s'> }> = [
  {
    name: '1 MiB upload',
    load: {
      path: '/upload',
      method: 'POST',
      body: UPLOAD,
      headers: { 'content-type': 'application/octet-stream' },
      connections: 8,
    },
  },
  { name: '10 MB download', load: { path: '/download?mb=10', connections: 4 } },
]

/** Seconds of each untimed warm-up run. */
const WARM_UP_S = 2

/** Runs the body scenarios; `quick` shortens them for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 2 : 5
  const servers: PinnedServer[] = []
  try {
    for (const [name, script] of COMPETITORS) servers.push(await start_pinned(name, script))
    const cpu = new Map<string, number[]>()
    const heap = new Map<string, Window[]>()
    const add = (key: string, v: number, w: Window): void => {
      cpu.set(key, [...(cpu.get(key) ?? []), v])
      heap.set(key, [...(heap.get(key) ?? []), w])
    }
    // Untimed warm-up, so the measured rounds do not include JIT compilation; then every server is settled (one full
    // collection while idle, bench/wrk.ts) and warmed up again, as the CPU benches do.
    const warm_up = async (): Promise<void> => {
      for (const server of servers) {
        for (const s of WRK_SCENARIOS) await measure(server, { ...s.load, duration_s: WARM_UP_S })
        await sse_fan_out(server, 50, 100)
      }
    }
    if (!opts.quick) {
      await warm_up()
      for (const server of servers) await server.settle()
      await warm_up()
    }
    for (let round = 0; round < opts.rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) {
        for (const s of WRK_SCENARIOS) {
          const f = await measure(server, { ...s.load, duration_s })
          add(`${s.name}|${server.name}`, f.cpu_us_per_req, { allocated: f.allocated, units: f.requests })
        }
        const sse = await sse_fan_out(server, 50, 1000)
        add(`sse fan-out|${server.name}`, sse.cpu_us, { allocated: sse.allocated, units: 50 })
      }
    }
    const rss = new Map<string, number[]>()
    for (const [name, script] of COMPETITORS) rss.set(name, [await fresh_rss_growth_mb(name, script, 100)])
    return report(cpu, heap, rss)
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

/** A measured run's V8 allocation and its units of work (requests, client streams). */
type Window = { allocated: Allocated; units: number }

function report(cpu: Map<string, number[]>, heap: Map<string, Window[]>, rss: Map<string, number[]>): BenchReport {
  const rows: BenchRow[] = []
  const ratios: BenchRatio[] = []
  for (const scenario of [...WRK_SCENARIOS.map((s) => s.name), 'sse fan-out']) {
    const figures = new Map(
      [...cpu].filter(([k]) => k.startsWith(`${scenario}|`)).map(([k, v]) => [k.split('|')[1]!, v]),
    )
    const unit = scenario === 'sse fan-out' ? 'server µs CPU per 1,000-event client' : 'server µs CPU per request'
    const { rows: r, row } = scenario_rows(scenario, figures, unit)
    for (const x of r) x.lower_is_better = true
    rows.push(...r)
    ratios.push(ratio(scenario, 'fw vs fastify (CPU)', row('fw'), row('fastify'), 0.95))
    const bytes_unit = scenario === 'sse fan-out' ? 'B allocated per 1,000-event client' : 'B allocated/request'
    const bytes = (c: string): BenchRow => bytes_row(scenario, c, bytes_unit, heap.get(`${scenario}|${c}`)!)
    rows.push(bytes('fw'), bytes('fastify'))
    ratios.push(cost_ratio(scenario, 'fw / fastify bytes', bytes('fw'), bytes('fastify')))
  }
  const { rows: mem } = scenario_rows('100 MB download RSS growth', rss, 'MB')
  for (const x of mem) x.lower_is_better = true
  rows.push(...mem)
  return {
    name: 'body',
    rows,
    ratios,
    notes: [
      'Upload and download: wrk on core 1, the server pinned to core 0, server CPU (utime+stime) per answered request.',
      'Every server is warmed up (2 s of each wrk scenario and a short SSE fan-out), settled (one full collection while idle: a heap snapshot by signal, deleted) and warmed up again before the measured rounds.',
      'SSE fan-out: 50 Node clients (this process) read 1,000 events each; the figure is server CPU per client stream.',
      'A CPU ratio above 1 means fw used less CPU than Fastify; a bytes ratio (fw / fastify V8 heap bytes allocated, all rounds pooled; Buffer contents live outside the heap) below 1 means fw allocated less. RSS growth: a server started for it alone, warmed by a 1 MB download, then its peak RSS (VmHWM, reset before) during one 100 MB download minus its RSS before (target < 50 MB).',
    ],
  }
}

/** Server CPU in µs: utime + stime of /proc/<pid>/stat (clock ticks of 10 ms). */
async function cpu_us(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12])) * 10_000
}

/**
 * `clients` concurrent readers of `/events?n=<events>`; resolves with the server's CPU µs per client stream and what V8
 * allocated meanwhile.
 */
export async function sse_fan_out(
  server: PinnedServer,
  clients: number,
  events: number,
): Promise<{ cpu_us: number; allocated: Allocated }> {
  const heap_before = await server.allocated()
  const before = await cpu_us(server.pid)
  await Promise.all(
    Array.from({ length: clients }, () => read_all(server.port, `/events?n=${events}`, `id: ${events}\n`)),
  )
  const cpu = ((await cpu_us(server.pid)) - before) / clients
  return { cpu_us: cpu, allocated: between(heap_before, await server.allocated()) }
}

/** GETs `path` and discards the body; with `mark`, fails unless the body contained it. */
function read_all(port: number, path: string, mark?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let tail = ''
        let seen = mark === undefined
        res.on('data', (c: Buffer) => {
          if (seen) return
          tail = (tail + c.toString('latin1')).slice(-256)
          seen = tail.includes(mark!)
        })
        res.on('end', () => (seen ? resolve() : reject(new Error(`${path}: ${mark} never arrived`))))
      })
      .on('error', reject)
  })
}

/**
 * Peak RSS growth (MB) of a server started for this alone while a client downloads `mb` megabytes (after a 1 MB
 * download has loaded and compiled the code involved). A server that already served the other scenarios holds the
 * memory of their 1 MiB uploads freed but not returned to the system, which a download reuses without any growth: both
 * servers showed 0.0 MB there. VmHWM, the kernel's own peak RSS, is reset to the current RSS first (writing 5 to
 * /proc/<pid>/clear_refs), so it holds the download's peak however brief it was, where timer samples can miss it.
 */
async function fresh_rss_growth_mb(name: string, script: string, mb: number): Promise<number> {
  const server = await start_pinned(name, script)
  try {
    const status_kb = async (field: 'VmRSS' | 'VmHWM'): Promise<number> =>
      Number(new RegExp(`${field}:\\s+(\\d+)`).exec(await readFile(`/proc/${server.pid}/status`, 'utf8'))![1])
    await read_all(server.port, '/download?mb=1')
    await writeFile(`/proc/${server.pid}/clear_refs`, '5')
    const before = await status_kb('VmRSS')
    await read_all(server.port, `/download?mb=${mb}`)
    return Math.round(((await status_kb('VmHWM')) - before) / 102.4) / 10
  } finally {
    await server.stop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href)
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
