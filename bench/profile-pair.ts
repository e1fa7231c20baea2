// `npx tsx bench/profile-pair.ts [<path> [POST]] [rounds]`: CPU profiles (`--cpu-prof`) of fw and raw Fastify serving
// the same HTTP scenario, in interleaved wrk runs, compared per request: each function's self time divided by the
// requests answered during the measured runs, side by side, the largest differences first. On a loaded machine the
// absolute figures move; the differences between the two columns of one run are what to read. `FW_PAIR_BASE=<dir>`
// (a copy of .bench-build made at an earlier commit) compares that fw with the fw built now instead, for a change's
// before and after; `FW_PAIR_ROWS` sets how many functions are listed (45).
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { read_profile, self_time } from './cpu-profile.js'
import { COMPETITORS, ECHO } from './http.js'
import { measure, start_pinned, warm_and_settle, type PinnedServer, type WrkLoad } from './wrk.js'

const [url_path = '/hello', method = 'GET', rounds_arg = '3'] = process.argv.slice(2)
const rounds = Number(rounds_arg)
const load: Omit<WrkLoad, 'duration_s'> = method === 'POST' ? { ...ECHO, path: url_path } : { path: url_path }
const base = process.env.FW_PAIR_BASE
const fw_env = { FW_LOG_LEVEL: 'off' }
const script = (name: string): string => COMPETITORS.find((x) => x.name === name)!.script
const pair: Array<[string, string, Record<string, string>]> = base
  ? [
      ['new', script('fw'), fw_env],
      [
        'base',
        path.relative(path.resolve('.bench-build/bench/servers'), path.join(base, 'bench/servers/http-fw.js')),
        fw_env,
      ],
    ]
  : [
      ['fw', script('fw'), fw_env],
      ['fastify', script('fastify'), {}],
    ]
const names = pair.map((p) => p[0])
type Side = {
  server: PinnedServer
  dir: string
  windows: Array<[number, number]>
  requests: number
  bytes: number
  cpu: number[]
}
const sides = new Map<string, Side>()
for (const [name, file, env] of pair) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `fw-pair-${name}-`))
  const server = await start_pinned(name, file, { env, node_args: ['--cpu-prof', `--cpu-prof-dir=${dir}`] })
  sides.set(name, { server, dir, windows: [], requests: 0, bytes: 0, cpu: [] })
}
const now = (): number => Number(process.hrtime.bigint() / 1000n)
try {
  const servers = [...sides.values()].map((s) => s.server)
  await warm_and_settle(servers, async () => {
    for (const server of servers) await measure(server, { ...load, duration_s: 3 })
  })
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? names : [...names].reverse()) {
      const s = sides.get(name)!
      const from = now()
      const f = await measure(s.server, { ...load, duration_s: 3 })
      s.windows.push([from, now()])
      s.requests += f.requests
      s.bytes += f.allocated.bytes
      s.cpu.push(f.cpu_us_per_req)
      console.log(
        `${name}: ${f.cpu_us_per_req.toFixed(1)} µs CPU/req, ${Math.round(f.allocated.bytes / f.requests)} B/req`,
      )
    }
  }
} finally {
  for (const s of sides.values()) await s.server.stop()
}

/** Self µs per request, by function, over the side's measured runs; `TOTAL` the sum. */
async function per_request(s: Side): Promise<Map<string, number>> {
  const kept = self_time(await read_profile(s.dir), (at) => s.windows.some(([a, b]) => at >= a && at <= b))
  const out = new Map([...kept].map(([key, { us }]) => [key, us / s.requests]))
  out.set(
    'TOTAL',
    [...out.values()].reduce((x, y) => x + y, 0),
  )
  return out
}

const fw = await per_request(sides.get(names[0]!)!)
const fa = await per_request(sides.get(names[1]!)!)
const [a, b] = names.map((n) => sides.get(n)!.cpu)
const ratios = a!.map((x, i) => x / b![i]!).sort((x, y) => x - y)
console.log(`${names[0]} / ${names[1]} CPU per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`)
for (const [name, s] of sides) console.log(`${name}: ${Math.round(s.bytes / s.requests)} B/req pooled`)
const keys = new Set([...fw.keys(), ...fa.keys()])
const rows = [...keys].map((k) => [k, fw.get(k) ?? 0, fa.get(k) ?? 0] as const)
rows.sort((a, b) => Math.abs(b[1] - b[2]) - Math.abs(a[1] - a[2]))
console.log(`µs/req ${names.join(' ')} diff function (self time within the measured runs)`)
for (const [k, x, y] of rows.slice(0, Number(process.env.FW_PAIR_ROWS ?? 45)))
  console.log(`${x.toFixed(2).padStart(8)} ${y.toFixed(2).padStart(8)} ${(x - y).toFixed(2).padStart(7)}  ${k}`)
