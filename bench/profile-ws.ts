// `npx tsx bench/profile-ws.ts [fw|@fastify/websocket] [echo|broadcast]` (`FW_PROFILE_NODE=<binary>` for another Node,
// `FW_PROFILE=alloc` for bytes allocated per message by function): a CPU profile (`--cpu-prof`) of one WebSocket bench
// server under the bench's own client, pinned as in the bench, summarised as bench/profile.ts does for HTTP. The
// .cpuprofile stays in the printed directory for Chrome DevTools.
import { profile_server } from './cpu-profile.js'
import { COMPETITORS, run_client, SCENARIOS, type Run } from './websocket.js'

const [name = 'fw', which = 'echo'] = process.argv.slice(2)
const competitor = COMPETITORS.find(([n]) => n === name)
if (competitor === undefined)
  throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map(([n]) => n).join(', ')}`)
const scenario = SCENARIOS.find((s) => s.name.startsWith(which))
if (scenario === undefined) throw new Error(`unknown scenario ${which}: echo or broadcast`)
console.log(
  await profile_server(name, competitor[1], {
    async load(server, duration_s) {
      const [r] = (await run_client([server], scenario.args(duration_s))) as [Run]
      const text = `${name} ${scenario.name}: ${r.cpu_us_per_message.toFixed(1)} µs CPU/message, ${Math.round(r.messages_per_s)} messages/s`
      return { text, units: r.messages }
    },
  }),
)
