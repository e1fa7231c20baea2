// `npx tsx bench/profile.ts [<competitor> [<path> [POST]]]` (`FW_PROFILE_NODE=<binary>` to profile on another Node): a CPU profile (`--cpu-prof`) of one HTTP bench server
// under wrk, pinned as in the bench, summarised as the functions with the most self time and the share of each layer
// (fw, Fastify, Node's internals, GC). The .cpuprofile stays in the printed directory for Chrome DevTools.
import { mkdtemp, readdir, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { COMPETITORS, ECHO } from './http.js'
import { measure, start_pinned, type WrkLoad } from './wrk.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
/** The parts of a V8 .cpuprofile the summary reads. */
export interface Profile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** The layer a function belongs to, from its script's URL. */
function layer(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : 'native'
  if (
    url.includes('/node_modules/fastify/') ||
    url.includes('/node_modules/find-my-way/') ||
    url.includes('/node_modules/light-my-request/')
  )
    return 'fastify'
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
  const by_id = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    if (at >= from_us) self.set(id, (self.get(id) ?? 0) + delta)
  })
  const fns = new Map<string, number>()
  const layers = new Map<string, number>()
  let total = 0
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = by_id.get(id)!.callFrame
    if (functionName === '(idle)') continue
    total += us
    const key = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''}`
    fns.set(key, (fns.get(key) ?? 0) + us)
    const l = layer(url, functionName)
    layers.set(l, (layers.get(l) ?? 0) + us)
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

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main()

/** Profiles the HTTP bench server named on the command line. */
async function main(): Promise<void> {
  const [name = 'fw', url_path = '/hello', method = 'GET'] = process.argv.slice(2)
  // POST sends the HTTP bench's JSON echo body.
  const load: Omit<WrkLoad, 'duration_s'> = method === 'POST' ? { ...ECHO, path: url_path } : { path: url_path }
  const competitor = COMPETITORS.find((c) => c.name === name)
  if (competitor === undefined)
    throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map((c) => c.name).join(', ')}`)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-prof-'))
  const server = await start_pinned(name, competitor.script, {
    env: { ...competitor.env, ...(competitor.log_file ? { FW_BENCH_LOG_FILE: path.join(dir, 'server.log') } : {}) },
    node_args: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    ...(process.env.FW_PROFILE_NODE ? { node: process.env.FW_PROFILE_NODE } : {}),
  })
  let from_us: number
  try {
    await measure(server, { ...load, duration_s: 3 })
    from_us = Number(process.hrtime.bigint() / 1000n)
    const f = await measure(server, { ...load, duration_s: 5 })
    console.log(
      `${name} ${method} ${url_path}: ${f.cpu_us_per_req.toFixed(1)} µs CPU/request, ${Math.round(f.rps)} req/s`,
    )
  } finally {
    await server.stop()
  }
  await print_profile(dir, from_us)
}

/** Prints the path and the summary of the profile a server wrote into `dir`, from `from_us` on. */
export async function print_profile(dir: string, from_us: number): Promise<void> {
  const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no profile written in ${dir}`)
  console.log(
    `${path.join(dir, file)}\n${summarise(JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Profile, from_us)}`,
  )
}
