// WebSocket scenarios, fw against bare @fastify/websocket in the same run: echo round trips, and a broadcast of 1,000
// messages to a room of 200 clients. Each server is pinned to core 0, the Node `ws` client (bench/ws-client.ts) to core
// 1; wrk cannot speak WebSocket. Figures: messages per second, and the server's CPU time per message from
// /proc/<pid>/stat.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { between, type Allocated } from './allocations.js'
import { bytes_row } from './cpu.js'
import { cost_ratio, median, ratio, scenario_rows, type BenchReport, type BenchRow } from './report.js'
import { cpu_us, start_pinned, warm_and_settle, type PinnedServer } from './wrk.js'

/** The servers compared: name and script in bench/servers/. */
export const COMPETITORS = [
  ['fw', 'ws-fw.ts'],
  ['@fastify/websocket', 'ws-fastify.ts'],
] as const
/** Turns per server within one client run (bench/ws-client.ts). */
const SLICES = 8
const CLIENT = fileURLToPath(new URL('./ws-client.ts', import.meta.url))
const ECHO_CONNECTIONS = 50
const ROOM_CLIENTS = 200
const BROADCASTS = 1000

/** What one client run measured. */
export interface Run {
  messages_per_s: number
  cpu_us_per_message: number
  /** What V8 reported allocated in the server over the measured part, and the messages it carried. */
  allocated: Allocated
  messages: number
  /** The client's CPU time over the measured part as a share of it: near 1, the client set the pace. */
  client_busy: number
}

interface ClientOutput {
  results: Array<{ messages: number; ms: number }>
  client_cpu_us: number
}

/**
 * Runs the client pinned to core 1 against `servers`, which it loads in turn in short slices (bench/ws-client.ts); each
 * server's CPU is read once the client is connected and again when it is done (a server waiting for its turn is idle).
 */
export async function run_client(servers: readonly PinnedServer[], args: string[]): Promise<Run[]> {
  const ports = servers.map((s) => s.port).join(',')
  const child = spawn(
    'taskset',
    ['-c', '1', process.execPath, '--import', 'tsx', CLIENT, args[0]!, ports, ...args.slice(1), String(SLICES)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  while (!out.includes('ready\n')) await once(child.stdout, 'data')
  const heap_before = await Promise.all(servers.map((s) => s.allocated()))
  const before = await Promise.all(servers.map((s) => cpu_us(s.pid)))
  child.stdin.write('go\n')
  const [code] = (await once(child, 'exit')) as [number]
  const after = await Promise.all(servers.map((s) => cpu_us(s.pid)))
  const heap_after = await Promise.all(servers.map((s) => s.allocated()))
  const line = out.split('\n').find((l) => l.startsWith('{'))
  if (code !== 0 || line === undefined) throw new Error(`the ws client failed (${code}): ${out}`)
  const { results, client_cpu_us } = JSON.parse(line) as ClientOutput
  const ms = results.reduce((sum, r) => sum + r.ms, 0)
  return results.map(({ messages, ms: server_ms }, i) => ({
    messages_per_s: messages / (server_ms / 1000),
    cpu_us_per_message: (after[i]! - before[i]!) / messages,
    allocated: between(heap_before[i]!, heap_after[i]!),
    messages,
    client_busy: client_cpu_us / (ms * 1000),
  }))
}

/** The scenarios, each with the client's arguments for a run of `d` seconds. */
export const SCENARIOS = [
  { name: 'echo round trip', args: (d: number) => ['echo', String(ECHO_CONNECTIONS), String(d * 1000)] },
  {
    name: `broadcast ${BROADCASTS} to ${ROOM_CLIENTS}`,
    args: () => ['broadcast', String(ROOM_CLIENTS), String(BROADCASTS)],
  },
]

/** Runs the WebSocket scenarios; `quick` shortens the echo runs. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const servers: PinnedServer[] = []
  try {
    for (const [name, script] of COMPETITORS) servers.push(await start_pinned(name, script))
    // Untimed warm-up, so the measured rounds do not include JIT compilation, around settling as the CPU benches do.
    if (!opts.quick)
      await warm_and_settle(servers, async () => {
        for (const sc of SCENARIOS) await run_client(servers, sc.args(1))
      })
    const rate = new Map<string, Map<string, number[]>>()
    const cpu = new Map<string, Map<string, number[]>>()
    const busy = new Map<string, Map<string, number[]>>()
    const heap = new Map<string, Array<{ allocated: Allocated; units: number }>>()
    const record = (m: Map<string, Map<string, number[]>>, sc: string, c: string, v: number): void => {
      const inner = m.get(sc) ?? new Map<string, number[]>()
      inner.set(c, [...(inner.get(c) ?? []), v])
      m.set(sc, inner)
    }
    for (let round = 0; round < opts.rounds; round++) {
      for (const sc of SCENARIOS) {
        // Alternate which server goes first, so neither always runs on a machine warmed by the other.
        const order = round % 2 ? [...servers].reverse() : servers
        const runs = await run_client(order, sc.args(duration_s))
        order.forEach((s, i) => {
          record(rate, sc.name, s.name, runs[i]!.messages_per_s)
          record(cpu, sc.name, s.name, runs[i]!.cpu_us_per_message)
          const key = `${sc.name}|${s.name}`
          heap.set(key, [...(heap.get(key) ?? []), { allocated: runs[i]!.allocated, units: runs[i]!.messages }])
        })
        record(busy, sc.name, 'client', runs[0]!.client_busy)
      }
    }
    return report(rate, cpu, heap, busy, duration_s)
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

function report(
  rate: Map<string, Map<string, number[]>>,
  cpu: Map<string, Map<string, number[]>>,
  heap: Map<string, Array<{ allocated: Allocated; units: number }>>,
  busy: Map<string, Map<string, number[]>>,
  duration_s: number,
): BenchReport {
  const rows: BenchRow[] = []
  const ratios = []
  for (const sc of SCENARIOS) {
    const r = scenario_rows(sc.name, rate.get(sc.name)!, 'messages/s')
    const c = scenario_rows(`${sc.name} (server CPU)`, cpu.get(sc.name)!, 'CPU µs/message')
    for (const row of c.rows) row.lower_is_better = true
    const bytes = (name: string): BenchRow =>
      bytes_row(`${sc.name} (server bytes)`, name, 'B allocated/message', heap.get(`${sc.name}|${name}`)!)
    const [fw, other] = [bytes('fw'), bytes('@fastify/websocket')]
    rows.push(...r.rows, ...c.rows, fw, other)
    ratios.push(
      ratio(sc.name, 'fw / @fastify/websocket', r.row('fw'), r.row('@fastify/websocket'), 0.9),
      ratio(`${sc.name} (server CPU)`, 'fw / @fastify/websocket', c.row('fw'), c.row('@fastify/websocket'), 0.9),
      cost_ratio(`${sc.name} (server bytes)`, 'fw / @fastify/websocket bytes', fw, other),
    )
  }
  return {
    name: 'websocket',
    rows,
    ratios,
    notes: [
      `servers pinned to core 0 (taskset), a Node ws client (bench/ws-client.ts) pinned to core 1: wrk cannot speak WebSocket`,
      'every server is warmed up (a 1 s client run of each scenario), settled (one full collection while idle: a heap snapshot by signal, deleted) and warmed up again before the measured rounds',
      `one client run per scenario and round loads both servers in turn, in ${SLICES} slices each (the order alternating), so a change of the shared machine's load falls on both alike; a server's figures sum its slices`,
      `echo: ${ECHO_CONNECTIONS} connections per server each sending a 20-byte text and waiting for its echo, ${duration_s} s per server; messages/s counts round trips`,
      `broadcast: ${ROOM_CLIENTS} clients in one room per server, one more asks for ${BROADCASTS} broadcasts; messages/s counts deliveries (${ROOM_CLIENTS * BROADCASTS} a run), timed from each request to its last delivery`,
      `busy share of a core over the measured part (medians): ${busy_shares(busy, rate, cpu)}; when neither the client nor the server is near 100%, round trips wait on the scheduler of the shared machine and messages/s follows its load more than the servers, while CPU per message still compares them`,
      'server CPU: utime+stime of the server process over the measured part (connections already open) per message; ratios are higher-is-better for fw (CPU ratios are @fastify/websocket / fw)',
      'server bytes: V8 heap bytes the server allocated over the measured part (its --trace-gc-nvp lines) per message, all rounds pooled; the bytes ratio is fw / @fastify/websocket (lower is better for fw)',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}

type Figures = Map<string, Map<string, number[]>>

/** The client's and each server's CPU time over wall time, per scenario. */
function busy_shares(busy: Figures, rate: Figures, cpu: Figures): string {
  const pct = (x: number): string => `${Math.round(100 * x)}%`
  return SCENARIOS.map((sc) => {
    const servers = [...rate.get(sc.name)!].map(
      ([c, v]) => `${c} ${pct((median(v) * median(cpu.get(sc.name)!.get(c)!)) / 1e6)}`,
    )
    return `${sc.name.split(' ')[0]}: client ${pct(median(busy.get(sc.name)!.get('client')!))}, ${servers.join(', ')}`
  }).join('; ')
}
