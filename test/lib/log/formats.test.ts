import t from 'tap'
import { ERR_LOG_BAD_FORMAT } from '../../../lib/log/errors.js'
import { LogFormat, check_format, parse_format } from '../../../lib/log/formats.js'

t.test('LogFormat', async (t) => {
  t.test('names the three formats of the spec', async (t) => {
    t.same(LogFormat, { KV: 'kv', JSON: 'json', JSON_PRETTY: 'json_pretty' })
  })
})

t.test('parse_format', async (t) => {
  t.test('accepts every name the spec lists', async (t) => {
    t.equal(parse_format('kv'), 'kv')
    t.equal(parse_format('json'), 'json')
    t.equal(parse_format('json-pretty'), 'json_pretty')
    t.equal(parse_format('pretty-json'), 'json_pretty')
    t.equal(parse_format('json_pretty'), 'json_pretty')
  })

  t.test('ignores case and surrounding spaces', async (t) => {
    t.equal(parse_format(' JSON '), 'json')
    t.equal(parse_format('Pretty-JSON'), 'json_pretty')
  })

  t.test('yields KV for any other text', async (t) => {
    for (const text of ['', 'text', 'pretty', 'jsonl', 'logfmt', 'constructor']) t.equal(parse_format(text), 'kv', text)
  })
})

t.test('check_format', async (t) => {
  t.test('passes the three formats and rejects anything else with its code', async (t) => {
    for (const f of Object.values(LogFormat)) t.equal(check_format(f), f)
    t.throws(() => check_format('pretty-json' as LogFormat), {
      code: ERR_LOG_BAD_FORMAT.code,
      message: 'log format must be one of kv, json, json_pretty; got "pretty-json"',
    })
  })
})
