// `npx tsx bench/profile.ts [<competitor> [<path> [POST]]]` (`FW_PROFILE_NODE=<binary>` for another Node): a CPU
// profile (`--cpu-prof`) of one HTTP bench server under wrk, pinned as in the bench, summarised as the functions with
// the most self time and the share of each layer (fw, Fastify, Node's internals, GC). The .cpuprofile stays in the
// printed directory for Chrome DevTools.
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { profile_summary, start_profiled } from './cpu-profile.js'
import { COMPETITORS, ECHO } from './http.js'
import { measure, warm_and_settle, type WrkLoad } from './wrk.js'

const [name = 'fw', url_path = '/hello', method = 'GET'] = process.argv.slice(2)
// POST sends the HTTP bench's JSON echo body.
const load: Omit<WrkLoad, 'duration_s'> = method === 'POST' ? { ...ECHO, path: url_path } : { path: url_path }
const competitor = COMPETITORS.find((c) => c.name === name)
if (competitor === undefined)
  throw new Error(`unknown competitor ${name}: one of ${COMPETITORS.map((c) => c.name).join(', ')}`)
const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-prof-'))
const server = await start_profiled(name, competitor.script, dir, {
  ...competitor.env,
  ...(competitor.log_file ? { FW_BENCH_LOG_FILE: path.join(dir, 'server.log') } : {}),
})
let from_us: number
try {
  await warm_and_settle([server], () => measure(server, { ...load, duration_s: 3 }))
  from_us = Number(process.hrtime.bigint() / 1000n)
  const f = await measure(server, { ...load, duration_s: 5 })
  console.log(
    `${name} ${method} ${url_path}: ${f.cpu_us_per_req.toFixed(1)} µs CPU/request, ${Math.round(f.rps)} req/s`,
  )
} finally {
  await server.stop()
}
console.log(await profile_summary(dir, from_us))
