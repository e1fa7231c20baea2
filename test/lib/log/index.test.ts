import t from 'tap'
import * as log from '../../../lib/log/index.js'
import { loaded_packages } from '../../helpers/import-graph.js'

t.test('fw/log', async (t) => {
  t.test('exports every operation of the spec under its name', async (t) => {
    const names = [
      'trace',
      'debug',
      'info',
      'warn',
      'error',
      'critical',
      'log',
      'logf',
      'configure',
      'set_level',
      'level',
      'enabled',
      'set_format',
      'set_async',
      'set_context',
      'context',
      'clear_context',
      'set_level_from_env',
      'set_format_from_env',
      'parse_level',
      'parse_format',
      'global',
      'run_with_context',
      'flush',
      'set_destination',
      'logger',
      'pino_logger',
      'redact_headers',
      'redact_query',
    ]
    for (const name of names) t.type((log as Record<string, unknown>)[name], 'function', name)
    t.same(Object.keys(log.LogLevel), ['Trace', 'Debug', 'Info', 'Warn', 'Error', 'Critical', 'Off'])
    t.same(Object.keys(log.LogFormat), ['KV', 'JSON', 'JSON_PRETTY'])
  })

  t.test("exports nothing of the adapter's: no entry taking a request object or an App's log core", async (t) => {
    const internal = ['run_in_request', 'with_request', 'enter_request', 'request_context', 'with_context', 'logf_in']
    t.same(
      internal.filter((name) => name in log),
      [],
    )
  })

  t.test('loads without loading fastify', async (t) => {
    const loaded = await loaded_packages('lib/log/index.ts')
    t.ok(loaded.includes('pino'), 'the lookup sees the packages it loads')
    t.same(
      loaded.filter((name) => name.includes('fastify')),
      [],
    )
  })
})
