// `npx tsx bench/profile-body.ts [fw|fastify] [upload|download|sse]` (`FW_PROFILE_NODE=<binary>` for another Node,
// `FW_PROFILE=alloc` for bytes allocated per request by function): a CPU profile (`--cpu-prof`) of one body bench
// server under one of bench/body.ts's loads, pinned as in the bench, summarised as bench/profile.ts does.
import { COMPETITORS, sse_fan_out, WRK_SCENARIOS } from './body.js'
import { profile_server } from './cpu-profile.js'
import { measure, type PinnedServer } from './wrk.js'

const [name = 'fw', scenario = 'upload'] = process.argv.slice(2)
const script = COMPETITORS.find(([n]) => n === name)?.[1]
if (script === undefined)
  throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map(([n]) => n).join(', ')}`)
const wrk = WRK_SCENARIOS.find((s) => s.name.includes(scenario))
if (wrk === undefined && scenario !== 'sse') throw new Error(`unknown scenario ${scenario}: upload, download or sse`)
const SSE_CLIENTS = 50

/** One load of the scenario: server CPU µs per request (or per SSE client stream), and the requests (or streams). */
async function load(server: PinnedServer, duration_s: number): Promise<{ cpu_us: number; units: number }> {
  if (wrk !== undefined) {
    const f = await measure(server, { ...wrk.load, duration_s })
    return { cpu_us: f.cpu_us_per_req, units: f.requests }
  }
  let sum = 0
  for (let i = 0; i < duration_s; i++) sum += (await sse_fan_out(server, SSE_CLIENTS, 1000)).cpu_us
  return { cpu_us: sum / duration_s, units: SSE_CLIENTS * duration_s }
}

console.log(
  await profile_server(name, script, {
    async load(server, duration_s) {
      const { cpu_us, units } = await load(server, duration_s)
      return { text: `${name} ${scenario}: ${cpu_us.toFixed(1)} µs CPU per request`, units }
    },
  }),
)
