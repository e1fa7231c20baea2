// Validation by CPU per request (bench/cpu.ts): a POST whose body has 20 fields on 2 nested levels and one array,
// validated by fw with its schema and by Fastify with the equivalent JSON Schema (Ajv, compiled). Each server pinned to
// core 0, wrk on core 1, on the machine's Node and on Node 24.
import { pathToFileURL } from 'node:url'
import { fw_against, on_each_node } from './cpu.js'
import type { BenchReport } from './report.js'
import { ORDER_TEXT } from './validation-body.js'

const SCENARIO = 'POST 20 fields, 2 levels, 1 array'
const NAMES = ['fw', 'fastify']

/** Runs the validation scenario on each Node binary; `quick` runs 1 s rounds on the machine's Node only. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const competitors = NAMES.map((name) => ({ name, script: `validation-${name}.ts`, env: { FW_LOG_LEVEL: 'off' } }))
  const load = { path: '/orders', method: 'POST', body: ORDER_TEXT, headers: { 'content-type': 'application/json' } }
  const scenarios = [{ name: SCENARIO, load, competitors: NAMES }]
  const control = { scenario: SCENARIO, of: 'fastify' }
  const { rows, ratios, note } = await on_each_node(opts, { competitors, scenarios, control }, (node_rows, node) =>
    // Target: at least 0.9x of Fastify + Ajv's speed, so fw's CPU per request at most 1 / 0.9 of it.
    fw_against(node_rows, SCENARIO, node, { fastify: { cpu: 1 / 0.9 } }),
  )
  return {
    name: 'validation',
    rows,
    ratios,
    notes: [
      note,
      'fw with its defaults and FW_LOG_LEVEL=off validates the body with its schema (app.post(path, { body }, handler)); Fastify with the same rules as JSON Schema, compiled by its Ajv; both answer the item count of the valid body',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}
