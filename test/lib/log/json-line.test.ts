import t from 'tap'
import { T0 } from './capture.js'
import { json_record, pretty_line } from '../../../lib/log/json-line.js'

t.test('json_record', async (t) => {
  t.test('puts msg, time and logger first, then the context, then the pairs', async (t) => {
    const ctx = { request_id: 'req-7', module: 'orders', fields: { tenant: 'acme' } }
    const { rec, moved } = json_record('fw', 'order placed', T0, ctx, ['order_id', 981, 'total', 42.5])
    t.same(Object.keys(rec), ['msg', 'time', 'logger', 'rid', 'mod', 'tenant', 'order_id', 'total'])
    t.same(rec, {
      msg: 'order placed',
      time: T0,
      logger: 'fw',
      rid: 'req-7',
      mod: 'orders',
      tenant: 'acme',
      order_id: 981,
      total: 42.5,
    })
    t.equal(moved, 0)
  })

  t.test('lets a pair keep the name of one of fw’s members and moves fw’s member to fw_<name>', async (t) => {
    const { rec, moved } = json_record('fw', 'm', T0, undefined, [
      'level',
      9,
      'msg',
      'x',
      'time',
      1,
      'name',
      'n',
      'logger',
      'l',
    ])
    t.same(rec, { msg: 'x', time: 1, logger: 'l', fw_msg: 'm', fw_time: T0, fw_logger: 'fw', level: 9, name: 'n' })
    t.equal(moved, 15)
  })

  t.test('moves the request id and module of the context as it moves msg, never overwriting them', async (t) => {
    const ctx = { request_id: 'req-7', module: 'orders', fields: {} }
    const { rec, moved } = json_record('fw', 'm', T0, ctx, ['rid', 'theirs', 'mod', 'billing', 'fw_rid', 'x'])
    t.same(rec, {
      msg: 'm',
      time: T0,
      logger: 'fw',
      rid: 'theirs',
      mod: 'billing',
      fw_rid: 'req-7',
      fw_mod: 'orders',
      fw_fw_rid: 'x',
    })
    t.equal(moved, 48)
    const bare = json_record('fw', 'm', T0, undefined, ['rid', 'theirs', 'fw_rid', 'x'])
    t.same(bare.rec, { msg: 'm', time: T0, logger: 'fw', rid: 'theirs', fw_rid: 'x' }, 'a line without them moves none')
    t.equal(bare.moved, 0)
  })

  t.test('makes values JSON-safe, except those the user’s serializers take', async (t) => {
    const raw = { keep: true }
    const { rec } = json_record(
      'fw',
      'm',
      T0,
      { request_id: '', module: '', fields: {} },
      ['u', undefined, 'big', 7n, 'nan', NaN, 'req', raw],
      new Set(['req']),
    )
    t.same(rec, { msg: 'm', time: T0, logger: 'fw', u: null, big: '7', nan: 'NaN', req: raw })
    t.equal(rec.req, raw)
  })
})

t.test('pretty_line', async (t) => {
  t.test('writes the record indented', async (t) => {
    const rec = { level: 'warning', ...json_record('fw', 'slow query', T0, undefined, ['ms', 950]).rec }
    t.equal(
      pretty_line(3, rec, false),
      `{\n  "level": "warning",\n  "msg": "slow query",\n  "time": ${T0},\n  "logger": "fw",\n  "ms": 950\n}\n`,
    )
  })

  t.test('colours the text when asked', async (t) => {
    const line = pretty_line(2, { level: 'info', ...json_record('fw', 'hi', T0, undefined, undefined).rec }, true)
    t.equal(line.split('\n')[1], '  \x1b[36m"level"\x1b[0m: \x1b[32m"info"\x1b[0m,')
    t.equal(line.split('\n')[2], '  \x1b[36m"msg"\x1b[0m: \x1b[32m"hi"\x1b[0m,')
  })

  t.test(
    'escapes C1 controls, DEL and the line separators, which JSON.stringify leaves raw, in a string',
    async (t) => {
      // Indented JSON is read on a terminal: U+009B (CSI) would drive it, U+0085 (NEL) would start a line there.
      const rec = { level: 'info', msg: 'a\u009b2Jb', time: T0, logger: 'fw', v: 'c\u0085d\u007f\u2028e' }
      t.equal(
        pretty_line(2, rec, false),
        `{\n  "level": "info",\n  "msg": "a\\u009b2Jb",\n  "time": ${T0},\n  "logger": "fw",\n  "v": "c\\u0085d\\u007f\\u2028e"\n}\n`,
      )
    },
  )

  t.test('escapes the Unicode bidirectional controls in a string and a key', async (t) => {
    // U+202E (right-to-left override) reorders what a terminal shows: `\u202enimda` reads as `admin`.
    const rec = { level: 'info', msg: 'x\u202ey', time: T0, logger: 'fw', 'k\u2067': '\u061c\u200e\u200f\u202a\u2069' }
    t.equal(
      pretty_line(2, rec, false),
      `{\n  "level": "info",\n  "msg": "x\\u202ey",\n  "time": ${T0},\n  "logger": "fw",\n  "k\\u2067": "\\u061c\\u200e\\u200f\\u202a\\u2069"\n}\n`,
    )
  })
})
