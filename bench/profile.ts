// `npx tsx bench/profile.ts [<competitor> [<path> [POST]]]` (`FW_PROFILE_NODE=<binary>` for another Node,
// `FW_PROFILE=alloc` for bytes allocated per request by function): a CPU profile (`--cpu-prof`) of one HTTP bench
// server under wrk, pinned as in the bench, summarised as the functions with the most self time and the share of each
// layer (fw, Fastify, Node's internals, GC). The .cpuprofile stays in the printed directory for Chrome DevTools.
import path from 'node:path'
import { profile_server } from './cpu-profile.js'
import { COMPETITORS, ECHO } from './http.js'
import { measure, type WrkLoad } from './wrk.js'

const [name = 'fw', url_path = '/hello', method = 'GET'] = process.argv.slice(2)
// POST sends the HTTP bench's JSON echo body.
const load: Omit<WrkLoad, 'duration_s'> = method === 'POST' ? { ...ECHO, path: url_path } : { path: url_path }
const competitor = COMPETITORS.find((c) => c.name === name)
if (competitor === undefined)
  throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map((c) => c.name).join(', ')}`)
console.log(
  await profile_server(name, competitor.script, {
    env: (dir) => ({
      ...competitor.env,
      ...(competitor.log_file ? { FW_BENCH_LOG_FILE: path.join(dir, 'server.log') } : {}),
    }),
    warm_s: 3,
    async load(server, duration_s) {
      const f = await measure(server, { ...load, duration_s })
      const text = `${name} ${method} ${url_path}: ${f.cpu_us_per_req.toFixed(1)} µs CPU/request, ${Math.round(f.rps)} req/s`
      return { text, units: f.requests }
    },
  }),
)
