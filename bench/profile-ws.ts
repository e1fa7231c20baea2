// `npx tsx bench/profile-ws.ts [fw|@fastify/websocket] [echo|broadcast]` (`FW_PROFILE_NODE=<binary>` for another Node):
// a CPU profile (`--cpu-prof`) of one WebSocket bench server under the bench's own client, pinned as in the bench,
// summarised as bench/profile.ts does for HTTP. The .cpuprofile stays in the printed directory for Chrome DevTools.
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { profile_summary, start_profiled } from './cpu-profile.js'
import { COMPETITORS, run_client, SCENARIOS, type Run } from './websocket.js'
import { warm_and_settle } from './wrk.js'

const [name = 'fw', which = 'echo'] = process.argv.slice(2)
const competitor = COMPETITORS.find(([n]) => n === name)
if (competitor === undefined)
  throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map(([n]) => n).join(', ')}`)
const scenario = SCENARIOS.find((s) => s.name.startsWith(which))
if (scenario === undefined) throw new Error(`unknown scenario ${which}: echo or broadcast`)
const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-prof-'))
const server = await start_profiled(name, competitor[1], dir)
let from_us: number
try {
  await warm_and_settle([server], () => run_client([server], scenario.args(2)))
  from_us = Number(process.hrtime.bigint() / 1000n)
  const [r] = (await run_client([server], scenario.args(5))) as [Run]
  console.log(
    `${name} ${scenario.name}: ${r.cpu_us_per_message.toFixed(1)} µs CPU/message, ${Math.round(r.messages_per_s)} messages/s`,
  )
} finally {
  await server.stop()
}
console.log(await profile_summary(dir, from_us))
