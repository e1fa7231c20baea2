// The CI regression guard (`.ci/run`, after `npm test`): fw / Fastify in CPU per request on the JSON hello, in quick
// rounds, on the same server files as `npm run bench` (bench/servers/http-*.ts, which import nothing of the harness).
// It fails only on a gross regression, above 1.35x in two consecutive tries: single runs of the same build on a shared
// 2-core machine spread by about ±10%, so a tighter gate, or one try, would fail CI by chance. A ratio, never a time;
// the bytes ratio is printed beside it, not held to a limit.
import { COMPETITORS } from './http.js'
import { cost_ratios, cpu_rounds, cpu_rows, nodes } from './cpu.js'

const LIMIT = 1.35
const TRIES = 2
const SCENARIO = 'json hello'

/** One quick measurement of fw / Fastify per request on GET /hello, logging off, on the machine's Node. */
async function try_once(): Promise<{ cpu: number; bytes: number }> {
  const [node] = await nodes(true)
  const competitors = COMPETITORS.filter((c) => c.name === 'fw' || c.name === 'fastify')
  const scenarios = [{ name: SCENARIO, load: { path: '/hello' }, competitors: ['fw', 'fastify'] }]
  const figures = await cpu_rounds({ competitors, scenarios, rounds: 3, duration_s: 1, warm_up_s: 2, node: node! })
  const [cpu, bytes] = cost_ratios(cpu_rows(figures, node!.label), SCENARIO, node!.label, 'fw', 'fastify')
  return { cpu: cpu!.value, bytes: bytes!.value }
}

for (let i = 1; i <= TRIES; i++) {
  const { cpu, bytes } = await try_once()
  console.log(
    `bench guard: fw / fastify CPU per request on ${SCENARIO}: ${cpu.toFixed(2)}x (limit ${LIMIT}x, try ${i} of ${TRIES}); ` +
      `bytes allocated per request ${bytes.toFixed(2)}x`,
  )
  if (cpu <= LIMIT) process.exit(0)
}
console.log(`bench guard: FAILED: above ${LIMIT}x in ${TRIES} consecutive tries`)
process.exit(1)
