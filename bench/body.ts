// Body scenarios: a 1 MiB binary upload echoing its length and a 10 MB streamed download (wrk, server CPU and bytes
// per request, on the shared harness of bench/cpu.ts), an SSE fan-out of 1,000 events to 50 clients (a Node client:
// wrk cannot read event streams), and the RSS growth of a 100 MB streamed download. fw against Fastify doing the same
// with its own APIs, rounds interleaved.
import http from 'node:http'
import { readFile, writeFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { between, type Allocated } from './allocations.js'
import { bytes_row, fw_against, on_each_node } from './cpu.js'
import { cost_ratio, ratio, scenario_rows, type BenchReport, type BenchRatio, type BenchRow } from './report.js'
import { cpu_us, start_pinned, warm_and_settle, type PinnedServer, type WrkLoad } from './wrk.js'

/** Each competitor and its server script. */
export const COMPETITORS = [
  ['fastify', 'body-fastify.ts'],
  ['fw', 'body-fw.ts'],
] as const
const UPLOAD = Buffer.alloc(1024 * 1024, 0x5a)

/**
 * The scenarios wrk drives, each with the share of Fastify's speed its CPU per request is held to: at least 0.9x for
 * the upload, 0.95x for the download.
 */
export const WRK_SCENARIOS: Array<{ name: string; load: Omit<WrkLoad, 'duration_s'>; at_least: number }> = [
  {
    name: '1 MiB upload',
    load: {
      path: '/upload',
      method: 'POST',
      body: UPLOAD,
      headers: { 'content-type': 'application/octet-stream' },
      connections: 8,
    },
    at_least: 0.9,
  },
  { name: '10 MB download', load: { path: '/download?mb=10', connections: 4 }, at_least: 0.95 },
]

/** What the SSE fan-out's CPU per client stream is held to: at least 0.95x of Fastify's speed. */
const SSE_AT_LEAST = 0.95

/**
 * Runs the body scenarios: upload and download on the shared CPU harness (bench/cpu.ts: interleaved rounds of settled
 * servers, per-round ratios, a control pair on the upload, the machine's Node and Node 24), then the SSE fan-out and
 * the RSS growth on the machine's Node; `quick` shortens them for a smoke run.
 */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const names = COMPETITORS.map(([name]) => name)
  const competitors = COMPETITORS.map(([name, script]) => ({ name, script }))
  const scenarios = WRK_SCENARIOS.map((s) => ({ ...s, competitors: names }))
  const control = { scenario: WRK_SCENARIOS[0]!.name, of: 'fastify' }
  const wrk = await on_each_node(opts, { competitors, scenarios, control }, (node_rows, node) =>
    WRK_SCENARIOS.flatMap((s) => fw_against(node_rows, s.name, node, { fastify: { cpu: 1 / s.at_least } })),
  )
  const sse = sse_figures(await sse_rounds(opts))
  const rss = new Map<string, number[]>()
  for (const [name, script] of COMPETITORS) rss.set(name, [await fresh_rss_growth_mb(name, script, 100)])
  const { rows: mem } = scenario_rows('100 MB download RSS growth', rss, 'MB')
  for (const x of mem) x.lower_is_better = true
  return {
    name: 'body',
    rows: [...wrk.rows, ...sse.rows, ...mem],
    ratios: [...wrk.ratios, ...sse.ratios],
    notes: [
      wrk.note,
      'Upload and download: fw with its defaults (request ids and the access log on, the log level at warn as for every server) against Fastify, each server answering with its own APIs.',
      'SSE fan-out: 50 Node clients (this process) read 1,000 events each; the figure is server CPU per client stream, a ratio above 1 meaning fw used less CPU than Fastify. Every server is warmed up (a short fan-out), settled (one full collection while idle: a heap snapshot by signal, deleted) and warmed up again before the measured rounds.',
      'Bytes ratios are fw / fastify V8 heap bytes allocated, all rounds pooled (Buffer contents live outside the heap), below 1 meaning fw allocated less. RSS growth: a server started for it alone, warmed by a 1 MB download, then its peak RSS (VmHWM, reset before) during one 100 MB download minus its RSS before (target < 50 MB).',
    ],
  }
}

/** A measured run's V8 allocation and its units of work (client streams). */
type Window = { allocated: Allocated; units: number }

/** Each competitor's SSE fan-out rounds: server CPU µs per client stream, and what V8 allocated. */
type SseRounds = Map<string, { cpu: number[]; heap: Window[] }>

/**
 * The SSE fan-out's rounds: both servers warmed up, settled (one full collection while idle, bench/wrk.ts) and warmed
 * up again, as the CPU harness does, then measured in turn, the order alternating.
 */
async function sse_rounds(opts: { rounds: number; quick?: boolean }): Promise<SseRounds> {
  const servers: PinnedServer[] = []
  try {
    for (const [name, script] of COMPETITORS) servers.push(await start_pinned(name, script))
    if (!opts.quick)
      await warm_and_settle(servers, async () => {
        for (const server of servers) await sse_fan_out(server, 50, 100)
      })
    const rounds: SseRounds = new Map(servers.map((s) => [s.name, { cpu: [], heap: [] }]))
    for (let round = 0; round < opts.rounds; round++) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const sse = await sse_fan_out(server, 50, 1000)
        const mine = rounds.get(server.name)!
        mine.cpu.push(sse.cpu_us)
        mine.heap.push({ allocated: sse.allocated, units: 50 })
      }
    }
    return rounds
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

const SSE = 'sse fan-out'

/** The SSE fan-out's rows (CPU and bytes per client stream) and ratios. */
function sse_figures(rounds: SseRounds): { rows: BenchRow[]; ratios: BenchRatio[] } {
  const cpu = new Map([...rounds].map(([name, r]) => [name, r.cpu]))
  const { rows, row } = scenario_rows(SSE, cpu, 'server µs CPU per 1,000-event client')
  for (const x of rows) x.lower_is_better = true
  const bytes = (c: string): BenchRow => bytes_row(SSE, c, 'B allocated per 1,000-event client', rounds.get(c)!.heap)
  rows.push(bytes('fw'), bytes('fastify'))
  return {
    rows,
    ratios: [
      ratio(SSE, 'fw vs fastify (CPU)', row('fw'), row('fastify'), SSE_AT_LEAST),
      cost_ratio(SSE, 'fw / fastify bytes', bytes('fw'), bytes('fastify')),
    ],
  }
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
