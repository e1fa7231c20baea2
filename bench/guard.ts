// The CI regression guard (`.ci/run`, after `npm test`): fw / Fastify in CPU per request on the JSON hello, in quick
// rounds, on the same server files as `npm run bench` (bench/servers/http-*.ts, which import nothing of the harness).
// It fails only on a gross regression, above 1.35x in two measured tries: single runs of the same build on a shared
// 2-core machine spread by about ±10%, so a tighter gate, or one try, would fail CI by chance. A ratio, never a time;
// the bytes ratio is printed beside it, not held to a limit.
//
// Each try also runs a second Fastify process, the control pair: when the two Fastify processes land more than 1.2x
// apart, the try measured the machine rather than fw (a CI run once gave 1.56x and 1.42x with bytes at 1.07x, where
// the same build gave 0.97-1.08x here), so it is printed, not counted, and another is run. It fails, saying so, when five
// tries give fewer than two measured ones. Every try prints the processes that took CPU beside the servers, and the
// CPU time the hypervisor took (steal), so that a failure says what else ran. The rule itself is bench/guard-rule.ts.
import { readdir, readFile } from 'node:fs/promises'
import { COMPETITORS } from './http.js'
import { control_name, cost_ratios, cpu_rounds, cpu_rows, nodes } from './cpu.js'
import { CONTROL_LIMIT, guard_verdict, LIMIT, MEASURED, noisy, TRIES, type GuardTry } from './guard-rule.js'
import { stat_cpu_us } from './wrk.js'

const ROUNDS = 5
const SCENARIO = 'json hello'

/** One measurement of fw / Fastify and of the control pair per request on GET /hello, logging off. */
async function try_once(): Promise<GuardTry & { bytes: number }> {
  const [node] = await nodes(true)
  const fastify = COMPETITORS.find((c) => c.name === 'fastify')!
  const control = { ...fastify, name: control_name('fastify') }
  const competitors = [...COMPETITORS.filter((c) => c.name === 'fw' || c.name === 'fastify'), control]
  const names = competitors.map((c) => c.name)
  const scenarios = [{ name: SCENARIO, load: { path: '/hello' }, competitors: names }]
  const figures = await cpu_rounds({ competitors, scenarios, rounds: ROUNDS, duration_s: 1, warm_up_s: 1, node: node! })
  const rows = cpu_rows(figures, node!.label)
  const [cpu, bytes] = cost_ratios(rows, SCENARIO, node!.label, 'fw', 'fastify')
  const [control_cpu] = cost_ratios(rows, SCENARIO, node!.label, control.name, 'fastify')
  return { cpu: cpu!.value, bytes: bytes!.value, control: control_cpu!.value }
}

/** CPU time in µs of every process, keyed by pid and command. */
async function process_cpu(): Promise<Map<string, number>> {
  const cpu = new Map<string, number>()
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    if (stat.includes(')'))
      cpu.set(`${pid} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`, stat_cpu_us(stat))
  }
  return cpu
}

/** The machine's steal and total ticks (the `cpu` line of /proc/stat). */
async function machine_ticks(): Promise<{ steal: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number)
  return { steal: fields[7]!, total: fields.reduce((a, b) => a + b, 0) }
}

/** What else ran during a try: processes alive at both ends that took over 0.1 s, and the share stolen. */
async function neighbours<T>(run: () => Promise<T>): Promise<{ result: T; report: string }> {
  const [before, machine_before] = [await process_cpu(), await machine_ticks()]
  const result = await run()
  const [after, machine_after] = [await process_cpu(), await machine_ticks()]
  const own = `${process.pid} `
  const busy = [...after]
    .filter(([key]) => before.has(key) && !key.startsWith(own))
    .map(([key, us]) => [key, (us - before.get(key)!) / 1e6] as const)
    .filter(([, s]) => s > 0.1)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
  const total = machine_after.total - machine_before.total
  const steal = total > 0 ? (machine_after.steal - machine_before.steal) / total : 0
  const others = busy.length === 0 ? 'none' : busy.map(([key, s]) => `${key} ${s.toFixed(1)} s`).join(', ')
  return { result, report: `other processes over 0.1 s CPU: ${others}; stolen ${(steal * 100).toFixed(1)}%` }
}

const tries: GuardTry[] = []
for (let verdict = guard_verdict(tries); verdict === 'more'; verdict = guard_verdict(tries)) {
  const { result: r, report } = await neighbours(try_once)
  tries.push(r)
  console.log(
    `bench guard: fw / fastify CPU per request on ${SCENARIO}: ${r.cpu.toFixed(2)}x (limit ${LIMIT}x, try ` +
      `${tries.length} of at most ${TRIES}); bytes allocated per request ${r.bytes.toFixed(2)}x; control pair ` +
      `${r.control.toFixed(2)}x${noisy(r) ? ` (beyond ${CONTROL_LIMIT}x: not counted)` : ''}; ${report}`,
  )
}
if (guard_verdict(tries) === 'pass') process.exit(0)
const measured = tries.filter((t) => !noisy(t)).length
console.log(
  measured === MEASURED
    ? `bench guard: FAILED: above ${LIMIT}x in ${MEASURED} measured tries`
    : `bench guard: FAILED: ${measured} of ${TRIES} tries measured (the control pair landed beyond ${CONTROL_LIMIT}x ` +
        'in the others): this machine was too busy to tell',
)
process.exit(1)
