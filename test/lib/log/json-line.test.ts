import t from 'tap'
import { T0 } from './capture.js'
import { JsonWriter, json_record, pretty_line } from '../../../lib/log/json-line.js'

function written(severity: number, rec: Record<string, unknown>): string[] {
  return [new JsonWriter().line(severity, rec)]
}

t.test('json_record', async (t) => {
  t.test('puts msg, time and name first, then the context, then the pairs', async (t) => {
    const ctx = { request_id: 'req-7', module: 'orders', fields: { tenant: 'acme' } }
    const rec = json_record('fw', 'order placed', T0, ctx, ['order_id', 981, 'total', 42.5])
    t.same(Object.keys(rec), ['msg', 'time', 'name', 'rid', 'mod', 'tenant', 'order_id', 'total'])
    t.same(rec, { msg: 'order placed', time: T0, name: 'fw', rid: 'req-7', mod: 'orders', tenant: 'acme', order_id: 981, total: 42.5 })
  })

  t.test('renames a field that would replace a member every line has', async (t) => {
    const rec = json_record('fw', 'm', T0, undefined, ['level', 9, 'msg', 'x', 'time', 1, 'name', 'n', 'other', 2])
    t.same(rec, { msg: 'm', time: T0, name: 'fw', _level: 9, _msg: 'x', _time: 1, _name: 'n', other: 2 })
  })

  t.test('makes values JSON-safe', async (t) => {
    const rec = json_record('fw', 'm', T0, { request_id: '', module: '', fields: {} }, ['u', undefined, 'big', 7n, 'nan', NaN])
    t.same(rec, { msg: 'm', time: T0, name: 'fw', u: null, big: '7', nan: 'NaN' })
  })
})

t.test('JsonWriter.line', async (t) => {
  t.test('writes one line with level first and numbers kept as numbers', async (t) => {
    const rec = json_record('fw', 'order placed', T0, undefined, ['order_id', 981, 'ok', true, 'note', 'a "b"'])
    t.same(written(2, rec), [`{"level":"info","msg":"order placed","time":${T0},"name":"fw","order_id":981,"ok":true,"note":"a \\"b\\""}\n`])
  })

  t.test('names each level as the KV label does', async (t) => {
    const labels = [0, 1, 2, 3, 4, 5].map((s) => (JSON.parse(written(s, { msg: 'm' })[0]!) as { level: string }).level)
    t.same(labels, ['trace', 'debug', 'info', 'warning', 'error', 'critical'])
  })

  t.test('nests objects and writes an error as type, message and stack', async (t) => {
    const err = Object.assign(new Error('boom'), { code: 'E_BOOM' })
    const line = written(4, json_record('fw', 'failed', T0, undefined, ['user', { id: 1, tags: ['a'] }, 'err', err]))[0]!
    t.equal(line.indexOf('\n'), line.length - 1)
    t.same(JSON.parse(line), {
      level: 'error',
      msg: 'failed',
      time: T0,
      name: 'fw',
      user: { id: 1, tags: ['a'] },
      err: { type: 'Error', message: 'boom', stack: err.stack, code: 'E_BOOM' },
    })
  })
})

t.test('pretty_line', async (t) => {
  t.test('writes the same object indented, level first', async (t) => {
    const rec = json_record('fw', 'slow query', T0, undefined, ['ms', 950])
    t.equal(pretty_line(3, rec, false), `{\n  "level": "warning",\n  "msg": "slow query",\n  "time": ${T0},\n  "name": "fw",\n  "ms": 950\n}\n`)
  })

  t.test('colours the text when asked', async (t) => {
    const line = pretty_line(2, json_record('fw', 'hi', T0, undefined, undefined), true)
    t.equal(line.split('\n')[1], '  \x1b[36m"level"\x1b[0m: \x1b[32m"info"\x1b[0m,')
    t.equal(line.split('\n')[2], '  \x1b[36m"msg"\x1b[0m: \x1b[32m"hi"\x1b[0m,')
  })
})
