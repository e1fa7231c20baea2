// `npm run soak [-- --minutes N]`: the showcase under a mixed wrk load (bench/soak/mix.lua) for N minutes (default 5),
// with SSE subscribers and chat WebSocket clients beside it (bench/soak/clients.ts: `--sse N --ws M`), after a 5 s
// warm-up, measured per bucket (a minute; `--seconds S --bucket B` for short runs). Fails (exit 1) on any 5xx or
// WebSocket close with 1011, on a p99 of the last bucket above twice the first one's, on the heap after a forced GC or
// the RSS growing more than 15% after the first bucket. `--save` writes bench/results/soak.json. The server runs on
// core 0 and wrk on core 1 when taskset and two cores are there.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { SoakClients, type SoakClientOptions, type StreamFigures } from './soak/clients.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const WARM_UP_S = 5
/** How long the server may take to print its listening line. */
const START_TIMEOUT_MS = 20_000

/** One bucket's figures. */
export interface SoakBucket {
  end_s: number
  requests: number
  rps: number
  socket_errors: number
  statuses: Record<string, number>
  p50_ms: number
  p99_ms: number
  p999_ms: number
  rss_mib: number
  /** Heap used right after a forced full GC: what the process keeps, not what it has yet to collect. */
  heap_mib: number
  loop_p99_ms: number
  loop_max_ms: number
  /** The SSE and WebSocket clients' figures over the bucket. */
  streams: StreamFigures
}

/** The whole run: buckets, totals and the verdict. */
export interface SoakReport {
  bucket_s: number
  connections: number
  clients: SoakClientOptions
  pinned: boolean
  buckets: SoakBucket[]
  totals: { requests: number; statuses: Record<string, number>; server_errors: number; ws_1011: number }
  failures: string[]
}

function has(command: string): boolean {
  try {
    execFileSync('which', [command], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits

/** Starts the soak server (pinned to core 0 when possible) and resolves with its pid, port and a stop function. */
async function start_server(pin: boolean): Promise<{ pid: number; port: number; stop: () => Promise<number | null> }> {
  // --expose-gc: the stats route collects before it reads the heap, so growth is told from garbage not yet collected.
  const node = [process.execPath, '--expose-gc', '--import', 'tsx', 'bench/soak/server.ts']
  const command = pin ? ['taskset', '-c', '0', ...node] : node
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, FW_PORT: '0', FW_ACCESS_LOG: 'false', FW_LOG_LEVEL: 'warning' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  // A soak that fails or times out must not leave its server running.
  const kill = (): boolean => child.kill('SIGKILL')
  process.once('exit', kill)
  child.once('exit', () => process.off('exit', kill))
  let out = ''
  child.stdout.setEncoding('utf8')
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      kill()
      reject(new Error(`the soak server printed no 'listening on' line within ${START_TIMEOUT_MS} ms:\n${out}`))
    }, START_TIMEOUT_MS)
    child.stdout.on('data', (d: string) => {
      out += d
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the soak server exited (${code}) before listening:\n${out}`))
    })
  })
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null) return child.exitCode
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    return ((await exited) as [number | null])[0]
  }
  return { pid: child.pid!, port, stop }
}

async function get(port: number, path: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`)
}

/** Session cookies for the mix to rotate over (a flood of cookieless requests would only measure session creation). */
async function session_cookies(port: number, n: number): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < n; i++) out.push((await get(port, '/session')).headers.getSetCookie()[0]!.split(';')[0]!)
  return out
}

/** One wrk run of `seconds`, pinned to core 1 when possible; its JSON summary line. */
function wrk(
  port: number,
  seconds: number,
  connections: number,
  cookies: string[],
  pin: boolean,
): Promise<Record<string, unknown>> {
  // A 10 s timeout: a slow answer counts in the latency figures instead of vanishing as a socket error.
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    'bench/soak/mix.lua',
    `http://127.0.0.1:${port}`,
    '--',
    cookies.join(','),
  ]
  const command = pin ? ['taskset', '-c', '1', 'wrk', ...args] : ['wrk', ...args]
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
      if (code !== 0 || line === undefined) reject(new Error(`wrk failed (${code}):\n${out}`))
      else resolve(JSON.parse(line) as Record<string, unknown>)
    })
  })
}

function rss_mib(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
}

/** Growth of `key` from the first bucket to the peak of the others, as a failure past 15%. */
function growth(buckets: SoakBucket[], key: 'rss_mib' | 'heap_mib', what: string): string[] {
  const first = buckets[0]
  if (!first || buckets.length < 2) return []
  const peak = Math.max(...buckets.slice(1).map((b) => b[key]))
  return peak > first[key] * 1.15
    ? [`${what} grew from ${first[key]} MiB after the first bucket to ${peak} MiB (more than 15%)`]
    : []
}

/** The verdict of the rules. */
function judge(buckets: SoakBucket[], server_errors: number, ws_1011: number): string[] {
  const failures: string[] = []
  if (server_errors > 0) failures.push(`${server_errors} answers with a 5xx status`)
  if (ws_1011 > 0) failures.push(`${ws_1011} WebSocket closes with 1011 or upgrades answered with a 5xx`)
  const first = buckets[0]
  const last = buckets.at(-1)
  if (first && last && buckets.length > 1 && last.p99_ms > 2 * first.p99_ms) {
    failures.push(
      `p99 grew from ${first.p99_ms} ms in the first bucket to ${last.p99_ms} ms in the last (more than 2x)`,
    )
  }
  return [...failures, ...growth(buckets, 'heap_mib', 'heap after GC'), ...growth(buckets, 'rss_mib', 'RSS')]
}

/** Runs the soak and answers its report. */
export async function soak(
  total_s: number,
  bucket_s: number,
  connections: number,
  clients: SoakClientOptions = { sse: 20, ws: 10 },
): Promise<SoakReport> {
  const pinned = has('taskset') && availableParallelism() >= 2
  const server = await start_server(pinned)
  const buckets: SoakBucket[] = []
  const streams = new SoakClients(server.port, clients)
  try {
    const cookies = await session_cookies(server.port, 20)
    streams.start()
    // Warm-up, not reported: the first seconds measure the JIT compiling the routes, not the steady state.
    await wrk(server.port, WARM_UP_S, connections, cookies, pinned)
    streams.take()
    for (let end = bucket_s; end <= total_s; end += bucket_s) {
      const w = await wrk(server.port, bucket_s, connections, cookies, pinned)
      const stats = (await (await get(server.port, '/__soak/stats')).json()) as Record<string, number>
      const us = (k: string): number => round(Number(w[k]) / 1000)
      buckets.push({
        end_s: end,
        requests: Number(w.requests),
        rps: Math.round(Number(w.requests) / bucket_s),
        socket_errors: Number(w.errors),
        statuses: w.statuses as Record<string, number>,
        p50_ms: us('p50_us'),
        p99_ms: us('p99_us'),
        p999_ms: us('p999_us'),
        rss_mib: round(rss_mib(server.pid), 1),
        heap_mib: round(stats.heap_used! / 1048576, 1),
        loop_p99_ms: stats.loop_p99_ms!,
        loop_max_ms: stats.loop_max_ms!,
        streams: streams.take(),
      })
      print_bucket(buckets.at(-1)!)
    }
  } finally {
    streams.stop()
    const code = await server.stop()
    if (code !== 0) console.error(`the soak server exited with ${code}`)
  }
  const statuses: Record<string, number> = {}
  for (const b of buckets) for (const [s, n] of Object.entries(b.statuses)) statuses[s] = (statuses[s] ?? 0) + n
  const sum = (f: (b: SoakBucket) => number): number => buckets.reduce((a, b) => a + f(b), 0)
  const server_errors =
    Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((a, [, n]) => a + n, 0) + sum((b) => b.streams.sse_5xx)
  const ws_1011 = sum((b) => b.streams.ws_1011)
  const totals = { requests: sum((b) => b.requests), statuses, server_errors, ws_1011 }
  return { bucket_s, connections, clients, pinned, buckets, totals, failures: judge(buckets, server_errors, ws_1011) }
}

function print_bucket(b: SoakBucket): void {
  const non_2xx = Object.entries(b.statuses)
    .filter(([s]) => !s.startsWith('2'))
    .map(([s, n]) => `${s}:${n}`)
    .join(' ')
  console.log(
    `${String(b.end_s).padStart(5)} s  ${String(b.rps).padStart(6)} req/s  p50 ${b.p50_ms} p99 ${b.p99_ms} p99.9 ${b.p999_ms} ms  ` +
      `rss ${b.rss_mib} MiB heap after GC ${b.heap_mib} MiB  loop p99 ${b.loop_p99_ms} max ${b.loop_max_ms} ms  non-2xx ${non_2xx || 'none'}`,
  )
  const s = b.streams
  console.log(
    `         sse ${s.sse_events} events, ${s.sse_disconnects} ended, ${s.sse_errors} errors  ` +
      `ws ${s.ws_messages} messages, ${s.ws_disconnects} closed ${JSON.stringify(s.ws_close_codes)}, ${s.ws_errors} errors`,
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '5' },
      seconds: { type: 'string' },
      bucket: { type: 'string' },
      connections: { type: 'string', default: '50' },
      save: { type: 'boolean', default: false },
      sse: { type: 'string', default: '20' },
      ws: { type: 'string', default: '10' },
    },
  })
  const total_s = values.seconds === undefined ? Number(values.minutes) * 60 : Number(values.seconds)
  const bucket_s = Number(values.bucket ?? (values.seconds === undefined ? 60 : 10))
  const report = await soak(total_s, bucket_s, Number(values.connections), {
    sse: Number(values.sse),
    ws: Number(values.ws),
  })
  console.log(
    `total ${report.totals.requests} requests; by status ${JSON.stringify(report.totals.statuses)}; 5xx ${report.totals.server_errors}; ` +
      `WebSocket 1011 ${report.totals.ws_1011}`,
  )
  if (values.save) writeFileSync(`${ROOT}bench/results/soak.json`, JSON.stringify(report, null, 2) + '\n')
  for (const f of report.failures) console.error(`FAIL: ${f}`)
  process.exit(report.failures.length === 0 ? 0 : 1)
}
