// Summarises a V8 CPU profile (`--cpu-prof`) of a bench server: the functions with the most self time and the share of
// each layer (fw, Fastify, Node's internals, GC), and runs the profiled server. bench/profile.ts (HTTP),
// bench/profile-body.ts (bodies) and bench/profile-ws.ts (WebSocket) use it; with FW_PROFILE=alloc they give the bytes
// each function allocates per request or message instead (bench/alloc-profile.ts).
import { mkdtemp, readdir, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { free_port } from '../test/helpers/redis-server.js'
import { alloc_summary, start_alloc_sampling } from './alloc-profile.js'
import { source_of, type CallFrame } from './source-position.js'
import { start_pinned, warm_and_settle, type PinnedServer } from './wrk.js'

/** What one load served: a line to print, and how many requests (or messages, streams) it was. */
export interface Served {
  text: string
  units: number
}

/** How `profile_server` runs its server: the load, its environment, and how long it is warmed up. */
export interface ProfiledRun {
  /** Loads the server for `duration_s` seconds; its text for the measured part is printed. */
  load: (server: PinnedServer, duration_s: number) => Promise<Served>
  /** The server's environment, given the directory the profile goes to. */
  env?: (dir: string) => Record<string, string>
  /** Seconds of load to warm up with, before and after settling (default 2). */
  warm_s?: number
}

/**
 * Profiles one bench server: starts bench/servers/<script> pinned as in the bench and profiled, on the Node binary
 * `FW_PROFILE_NODE` names, else the machine's; warms it up and settles it as the bench does, measures 5 s of `load`,
 * stops it, and gives the summary of the measured part: CPU self time (`--cpu-prof` into a new directory,
 * `profile_summary`), or with `FW_PROFILE=alloc` the bytes allocated per unit of load by function (`alloc_summary`);
 * `FW_PROFILE_ROWS` functions (25).
 */
export async function profile_server(name: string, script: string, run: ProfiledRun): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-prof-'))
  const env = run.env?.(dir)
  const inspector = process.env.FW_PROFILE === 'alloc' ? await free_port() : undefined
  const server = await start_pinned(name, script, {
    ...(env === undefined ? {} : { env }),
    node_args: inspector === undefined ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [`--inspect=127.0.0.1:${inspector}`],
    ...(process.env.FW_PROFILE_NODE ? { node: process.env.FW_PROFILE_NODE } : {}),
  })
  let from_us: number
  try {
    await warm_and_settle([server], () => run.load(server, run.warm_s ?? 2))
    from_us = Number(process.hrtime.bigint() / 1000n)
    const sampling = inspector === undefined ? undefined : await start_alloc_sampling(inspector)
    const served = await run.load(server, 5)
    console.log(served.text)
    if (sampling !== undefined) return alloc_summary(await sampling.stop(), served.units, rows())
  } finally {
    await server.stop()
  }
  return profile_summary(dir, from_us, rows())
}

/** How many functions a summary lists: `FW_PROFILE_ROWS`, else 25. */
const rows = (): number => Number(process.env.FW_PROFILE_ROWS ?? 25)

interface ProfileNode {
  id: number
  callFrame: CallFrame
}
export interface Profile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** The layer a function belongs to, from its source file's path or URL. */
function layer(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : 'native'
  if (
    url.includes('/node_modules/fastify/') ||
    url.includes('/node_modules/find-my-way/') ||
    url.includes('/node_modules/light-my-request/')
  )
    return 'fastify'
  if (url.includes('/node_modules/ws/')) return 'ws'
  if (url.includes('/node_modules/')) return 'other packages'
  if (url.includes('/lib/') || url.includes('/adapters/')) return 'fw'
  if (url.includes('async_hooks')) return 'async hooks'
  if (url.startsWith('node:')) return 'node internals'
  return 'other'
}

/**
 * Self time per function and per layer, as shares of the total sampled from `from_us` on (idle excluded). Sample times
 * are V8's monotonic clock in µs, the clock of `process.hrtime` in every process, so startup and warm-up stay out.
 */
export function summarise(profile: Profile, from_us: number, top = 25): string {
  const fns = new Map<string, number>()
  const layers = new Map<string, number>()
  let total = 0
  for (const [key, { us, layer }] of self_time(profile, (at) => at >= from_us)) {
    total += us
    fns.set(key, us)
    layers.set(layer, (layers.get(layer) ?? 0) + us)
  }
  const pct = (us: number): string => `${((100 * us) / total).toFixed(1).padStart(5)}%`
  const sorted = (m: Map<string, number>): Array<[string, number]> => [...m].sort((a, b) => b[1] - a[1])
  return [
    'layers:',
    ...sorted(layers).map(([k, v]) => `${pct(v)}  ${k}`),
    '',
    'functions (self time):',
    ...sorted(fns)
      .slice(0, top)
      .map(([k, v]) => `${pct(v)}  ${k}`),
  ].join('\n')
}

/**
 * Self time per function (`name file:line`, idle left out) over the samples taken at the times `keep` accepts, with
 * the function's layer.
 */
export function self_time(
  profile: Profile,
  keep: (at_us: number) => boolean,
): Map<string, { us: number; layer: string }> {
  // Each node's key and layer, found once (through its script's source map) rather than once per sample.
  const by_id = new Map(
    profile.nodes.map((n) => {
      const { url, key } = source_of(n.callFrame)
      return [n.id, { key, layer: layer(url, n.callFrame.functionName), idle: n.callFrame.functionName === '(idle)' }]
    }),
  )
  const out = new Map<string, { us: number; layer: string }>()
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    const node = by_id.get(id)!
    if (!keep(at) || node.idle) return
    const entry = out.get(node.key) ?? out.set(node.key, { us: 0, layer: node.layer }).get(node.key)!
    entry.us += delta
  })
  return out
}

/** The .cpuprofile written in `dir` (the only one). */
export async function read_profile(dir: string): Promise<Profile> {
  const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no profile written in ${dir}`)
  return JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Profile
}

/** The path of the one .cpuprofile written in `dir`, then its summary from `from_us` on. */
export async function profile_summary(dir: string, from_us: number, top?: number): Promise<string> {
  const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no profile written in ${dir}`)
  const profile = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Profile
  return `${path.join(dir, file)}\n${summarise(profile, from_us, top)}`
}
