// WebSocket scenarios, fw against bare @fastify/websocket in the same run: echo round trips, and a broadcast of 1,000
// messages to a room of 200 clients. Each server is pinned to core 0, the Node `ws` client (bench/ws-client.ts) to core
// 1; wrk cannot speak WebSocket. Figures: messages per second, and the server's CPU time per message from
// /proc/<pid>/stat.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { between, type Allocated } from './allocations.js'
import { bytes_row, control_name, nodes } from './cpu.js'
import {
  cost_ratio,
  median,
  round_ratio,
  scenario_rows,
  type BenchRatio,
  type BenchReport,
  type BenchRow,
} from './report.js'
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

const FW = 'fw'
const PLUGIN = '@fastify/websocket'
/** A second process of the @fastify/websocket server, measured in the same client runs: the error bar. */
const CONTROL = control_name(PLUGIN)

/** Per scenario and competitor: each round's figure. */
type Figures = Map<string, Map<string, number[]>>

/**
 * Runs the WebSocket scenarios on each Node binary (the machine's alone when quick), the @fastify/websocket server
 * twice (the second as control) in full runs; `quick` shortens the echo runs.
 */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const duration_s = opts.quick ? 1 : 2
  const competitors: ReadonlyArray<readonly [string, string]> = opts.quick
    ? COMPETITORS
    : [...COMPETITORS, [CONTROL, COMPETITORS[1][1]]]
  const rows: BenchRow[] = []
  const ratios: BenchRatio[] = []
  const busy_notes: string[] = []
  for (const node of await nodes(opts.quick)) {
    const m = await measure_node(competitors, node.path, opts, duration_s)
    const r = report(m, node.label, !opts.quick)
    rows.push(...r.rows)
    ratios.push(...r.ratios)
    busy_notes.push(`${node.label}: ${busy_shares(m.busy, m.rate, m.cpu)}`)
  }
  return {
    name: 'websocket',
    rows,
    ratios,
    notes: [
      `servers pinned to core 0 (taskset), a Node ws client (bench/ws-client.ts, on the machine's Node) pinned to core 1: wrk cannot speak WebSocket; the servers run on the machine's Node and on Node 24`,
      'every server is warmed up (a 1 s client run of each scenario), settled (one full collection while idle: a heap snapshot by signal, deleted) and warmed up again before the measured rounds',
      `one client run per scenario and round loads every server in turn, in ${SLICES} slices each (the order alternating), so a change of the shared machine's load falls on all alike; a server's figures sum its slices`,
      `echo: ${ECHO_CONNECTIONS} connections per server each sending a 20-byte text and waiting for its echo, ${duration_s} s per server; messages/s counts round trips`,
      `broadcast: ${ROOM_CLIENTS} clients in one room per server, one more asks for ${BROADCASTS} broadcasts; messages/s counts deliveries (${ROOM_CLIENTS * BROADCASTS} a run), timed from each request to its last delivery`,
      `busy share of a core over the measured part (medians): ${busy_notes.join('; ')}; when neither the client nor the server is near 100%, round trips wait on the scheduler of the shared machine and messages/s follows its load more than the servers, while CPU per message still compares them`,
      "server CPU: utime+stime of the server process over the measured part (connections already open) per message; messages/s and CPU ratios are higher-is-better for fw (CPU ratios are @fastify/websocket / fw), each the median of the rounds' ratios",
      'server bytes: V8 heap bytes the server allocated over the measured part (its --trace-gc-nvp lines) per message, all rounds pooled; the bytes ratio is fw / @fastify/websocket (lower is better for fw)',
      `"${CONTROL}" is a second process of the same server as "${PLUGIN}", in the same client runs: its ratios to "${PLUGIN}" show how far two identical servers land apart in this run`,
    ],
  }
}

/** One Node binary's rounds: each scenario's messages/s, CPU per message and heap windows per competitor. */
interface NodeFigures {
  rate: Figures
  cpu: Figures
  busy: Figures
  heap: Map<string, Array<{ allocated: Allocated; units: number }>>
}

async function measure_node(
  competitors: ReadonlyArray<readonly [string, string]>,
  node: string,
  opts: { rounds: number; quick?: boolean },
  duration_s: number,
): Promise<NodeFigures> {
  const servers: PinnedServer[] = []
  try {
    for (const [name, script] of competitors) servers.push(await start_pinned(name, script, { node }))
    // Untimed warm-up, so the measured rounds do not include JIT compilation, around settling as the CPU benches do.
    if (!opts.quick)
      await warm_and_settle(servers, async () => {
        for (const sc of SCENARIOS) await run_client(servers, sc.args(1))
      })
    const figures: NodeFigures = { rate: new Map(), cpu: new Map(), busy: new Map(), heap: new Map() }
    const record = (m: Figures, sc: string, c: string, v: number): void => {
      const inner = m.get(sc) ?? new Map<string, number[]>()
      inner.set(c, [...(inner.get(c) ?? []), v])
      m.set(sc, inner)
    }
    for (let round = 0; round < opts.rounds; round++) {
      for (const sc of SCENARIOS) {
        // Alternate which server goes first, so none always runs on a machine warmed by another.
        const order = round % 2 ? [...servers].reverse() : servers
        const runs = await run_client(order, sc.args(duration_s))
        order.forEach((s, i) => {
          record(figures.rate, sc.name, s.name, runs[i]!.messages_per_s)
          record(figures.cpu, sc.name, s.name, runs[i]!.cpu_us_per_message)
          const key = `${sc.name}|${s.name}`
          const windows = figures.heap.get(key) ?? []
          figures.heap.set(key, [...windows, { allocated: runs[i]!.allocated, units: runs[i]!.messages }])
        })
        record(figures.busy, sc.name, 'client', runs[0]!.client_busy)
      }
    }
    return figures
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

/**
 * How much faster `a` is than `b`, the median of the rounds' ratios (a round pairs two slices of one client run):
 * figures where higher is better (messages/s), inverted where lower is (CPU per message).
 */
function paired(scenario: string, label: string, a: BenchRow, b: BenchRow, target?: number): BenchRatio {
  const [x, y] = a.lower_is_better ? [b.rounds, a.rounds] : [a.rounds, b.rounds]
  const r: BenchRatio = { scenario, label, ...round_ratio(x, y) }
  if (target !== undefined) r.target = target
  return r
}

function report(m: NodeFigures, node_label: string, control: boolean): { rows: BenchRow[]; ratios: BenchRatio[] } {
  const rows: BenchRow[] = []
  const ratios: BenchRatio[] = []
  for (const sc of SCENARIOS) {
    const at = `${sc.name} (${node_label})`
    const r = scenario_rows(at, m.rate.get(sc.name)!, 'messages/s')
    const cpu_at = `${sc.name} (server CPU, ${node_label})`
    const c = scenario_rows(cpu_at, m.cpu.get(sc.name)!, 'CPU µs/message')
    for (const row of c.rows) row.lower_is_better = true
    const bytes_at = `${sc.name} (server bytes, ${node_label})`
    const bytes = (name: string): BenchRow =>
      bytes_row(bytes_at, name, 'B allocated/message', m.heap.get(`${sc.name}|${name}`)!)
    const names = control ? [FW, PLUGIN, CONTROL] : [FW, PLUGIN]
    const b = new Map(names.map((n) => [n, bytes(n)]))
    rows.push(...r.rows, ...c.rows, ...b.values())
    ratios.push(
      paired(at, `${FW} / ${PLUGIN}`, r.row(FW), r.row(PLUGIN), 0.9),
      paired(cpu_at, `${FW} / ${PLUGIN}`, c.row(FW), c.row(PLUGIN), 0.9),
      cost_ratio(bytes_at, `${FW} / ${PLUGIN} bytes`, b.get(FW)!, b.get(PLUGIN)!),
    )
    if (control)
      ratios.push(
        paired(cpu_at, `${CONTROL} / ${PLUGIN}`, c.row(CONTROL), c.row(PLUGIN)),
        cost_ratio(bytes_at, `${CONTROL} / ${PLUGIN} bytes`, b.get(CONTROL)!, b.get(PLUGIN)!),
      )
  }
  return { rows, ratios }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}

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
