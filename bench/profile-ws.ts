// `npx tsx bench/profile-ws.ts [fw|@fastify/websocket] [echo|broadcast]` (`FW_PROFILE_NODE=<binary>` for another Node):
// a CPU profile (`--cpu-prof`) of one WebSocket bench server under the bench's own client, pinned as in the bench,
// summarised as bench/profile.ts does for HTTP. The .cpuprofile stays in the printed directory for Chrome DevTools.
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { profile_summary } from './cpu-profile.js'
import { COMPETITORS, run_client, SCENARIOS, type Run } from './websocket.js'
import { start_pinned } from './wrk.js'

const [name = 'fw', which = 'echo'] = process.argv.slice(2)
const competitor = COMPETITORS.find(([n]) => n === name)
if (competitor === undefined)
  throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map(([n]) => n).join(', ')}`)
const scenario = SCENARIOS.find((s) => s.name.startsWith(which))
if (scenario === undefined) throw new Error(`unknown scenario ${which}: echo or broadcast`)
const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-prof-'))
const server = await start_pinned(name, competitor[1], {
  node_args: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  ...(process.env.FW_PROFILE_NODE ? { node: process.env.FW_PROFILE_NODE } : {}),
})
let from_us: number
try {
  // Warmed up, settled and warmed up again, as the bench's servers are (bench/wrk.ts `settle`).
  await run_client([server], scenario.args(2))
  await server.settle()
  await run_client([server], scenario.args(2))
  from_us = Number(process.hrtime.bigint() / 1000n)
  const [r] = (await run_client([server], scenario.args(5))) as [Run]
  console.log(
    `${name} ${scenario.name}: ${r.cpu_us_per_message.toFixed(1)} µs CPU/message, ${Math.round(r.messages_per_s)} messages/s`,
  )
} finally {
  await server.stop()
}
console.log(await profile_summary(dir, from_us))
