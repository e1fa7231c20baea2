import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import * as log from '../../../lib/log/index.js'

const INDEX = fileURLToPath(new URL('../../../lib/log/index.ts', import.meta.url))

t.test('fw/log', async (t) => {
  t.test('exports every operation of the spec under its name', async (t) => {
    const names = [
      'trace', 'debug', 'info', 'warn', 'error', 'critical', 'log', 'logf', 'configure', 'set_level', 'level', 'enabled',
      'set_format', 'set_async', 'set_context', 'context', 'clear_context', 'set_level_from_env', 'set_format_from_env',
      'parse_level', 'parse_format', 'global', 'run_with_context', 'flush', 'set_destination', 'logger', 'pino_logger',
      'redact_headers', 'redact_query',
    ]
    for (const name of names) t.type((log as Record<string, unknown>)[name], 'function', name)
    t.same(Object.keys(log.LogLevel), ['Trace', 'Debug', 'Info', 'Warn', 'Error', 'Critical', 'Off'])
    t.same(Object.keys(log.LogFormat), ['KV', 'JSON', 'JSON_PRETTY'])
  })

  t.test('loads without loading fastify', async (t) => {
    const script = `
      import { createRequire } from 'node:module'
      await import(${JSON.stringify(INDEX)})
      const loaded = Object.keys(createRequire(import.meta.url).cache)
      console.log(JSON.stringify({ pino: loaded.some((f) => f.includes('/node_modules/pino/')), fastify: loaded.filter((f) => f.includes('fastify')) }))
    `
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (err, out) => (err ? reject(err) : resolve(out)))
    })
    t.same(JSON.parse(stdout), { pino: true, fastify: [] })
  })
})
