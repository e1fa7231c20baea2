import t from 'tap'
import { T0, parse_kv } from './capture.js'
import type { LogContext } from '../../../lib/log/context.js'
import { json_record } from '../../../lib/log/json-line.js'
import { clock_text, kv_key, kv_message, kv_record_line, kv_value } from '../../../lib/log/kv-line.js'

/** A KV line as fw writes it: the record made JSON by pino (here JSON.stringify), then rendered. */
function kv_line(
  severity: number,
  name: string,
  msg: string,
  time: number,
  ctx: LogContext | undefined,
  pairs: readonly unknown[] | undefined,
  color: boolean,
): string {
  const { rec, moved, errors } = json_record(name, msg, time, ctx, pairs)
  return kv_record_line(
    severity,
    JSON.parse(JSON.stringify({ level: 'x', ...rec })) as Record<string, unknown>,
    moved,
    color,
    errors,
  )
}

t.test('clock_text', async (t) => {
  t.test('shows local wall time as HH:MM:SS.mmm', async (t) => {
    t.equal(clock_text(T0), '03:04:05.678')
    t.equal(clock_text(Date.UTC(2024, 0, 2, 13, 0, 9, 5)), '13:00:09.005')
    t.equal(clock_text(Date.UTC(2024, 0, 2, 23, 59, 59, 40)), '23:59:59.040')
  })

  t.test('stays right across seconds and with fractional milliseconds', async (t) => {
    t.equal(clock_text(T0 + 321), '03:04:05.999')
    t.equal(clock_text(T0 + 322), '03:04:06.000')
    t.equal(clock_text(T0 + 0.9), '03:04:05.678')
    t.equal(clock_text(T0 - 1000), '03:04:04.678')
  })
})

t.test('kv_message', async (t) => {
  t.test('writes a plain message bare, spaces included', async (t) => {
    t.equal(kv_message('user signed in: ok, 3 tries'), 'user signed in: ok, 3 tries')
  })

  t.test('quotes a message that is empty or holds =, a quote or a control character', async (t) => {
    t.equal(kv_message(''), '""')
    t.equal(kv_message('size=3'), '"size=3"')
    t.equal(kv_message('say "hi"'), '"say \\"hi\\""')
    t.equal(kv_message('line1\nline2'), '"line1\\nline2"')
    t.equal(kv_message('tab\there'), '"tab\\there"')
    t.equal(kv_message('\x1b[31mred'), '"\\u001b[31mred"')
  })
})

t.test('kv_value', async (t) => {
  t.test('writes numbers, booleans and simple text bare', async (t) => {
    t.equal(kv_value(42), '42')
    t.equal(kv_value(-0.5), '-0.5')
    t.equal(kv_value(true), 'true')
    t.equal(kv_value('/api/orders'), '/api/orders')
    t.equal(kv_value('C:\\dir'), 'C:\\dir')
    t.equal(kv_value(undefined), 'undefined')
    t.equal(kv_value(null), 'null')
  })

  t.test('quotes a value that is empty or holds whitespace, =, a quote or a control character', async (t) => {
    t.equal(kv_value(''), '""')
    t.equal(kv_value('a b'), '"a b"')
    t.equal(kv_value('k=v'), '"k=v"')
    t.equal(kv_value('say "hi"'), '"say \\"hi\\""')
    t.equal(kv_value('a\nb'), '"a\\nb"')
    t.equal(kv_value('a\r\nb'), '"a\\r\\nb"')
    t.equal(kv_value('\u00a0'), '"\u00a0"')
  })

  t.test('writes objects as JSON and errors as their stack, quoted on one line', async (t) => {
    t.equal(kv_value({ id: 1, name: 'Ada' }), '"{\\"id\\":1,\\"name\\":\\"Ada\\"}"')
    t.equal(kv_value([1, 2]), '[1,2]')
    const err = new Error('boom')
    t.equal(kv_value(err), JSON.stringify(err.stack))
    t.notMatch(kv_value(err), /\n/)
  })
})

t.test('kv_key', async (t) => {
  t.test('keeps a key bare and replaces characters that would break the line', async (t) => {
    t.equal(kv_key('user_id'), 'user_id')
    t.equal(kv_key('req.url'), 'req.url')
    t.equal(kv_key('a b=c"d\ne'), 'a_b_c_d_e')
    t.equal(kv_key(''), '_')
  })
})

t.test('kv_record_line', async (t) => {
  t.test('writes time, logger, label, message, context and pairs in the spec order', async (t) => {
    const ctx = { request_id: 'req-7', module: 'orders', fields: { tenant: 'acme' } }
    t.equal(
      kv_line(2, 'fw', 'order placed', T0, ctx, ['order_id', 981, 'total', 42.5], false),
      '03:04:05.678 [fw] [info] order placed rid=req-7 mod=orders tenant=acme order_id=981 total=42.5\n',
    )
  })

  t.test('labels Warn as warning and leaves empty context parts out', async (t) => {
    t.equal(
      kv_line(3, 'db', 'slow', T0, { request_id: '', module: '', fields: {} }, undefined, false),
      '03:04:05.678 [db] [warning] slow\n',
    )
    t.equal(
      kv_line(5, 'db', 'down', T0, { request_id: '', module: 'pool', fields: {} }, undefined, false),
      '03:04:05.678 [db] [critical] down mod=pool\n',
    )
  })

  t.test('colours only the label', async (t) => {
    t.equal(
      kv_line(4, 'fw', 'failed', T0, undefined, ['n', 1], true),
      '03:04:05.678 [fw] [\x1b[31merror\x1b[0m] failed n=1\n',
    )
  })

  t.test('shows an Error as its stack, and an object that only looks like one as all its keys', async (t) => {
    const err = Object.assign(new Error('disk full'), { code: 'ENOSPC' })
    const look_alike = { type: 'click', message: 'saved', stack: 'panel > button', user: 'ada' }
    const parsed = parse_kv(
      kv_line(2, 'ui', 'event', T0, undefined, ['err', err, 'event', look_alike], false).slice(0, -1),
    )
    t.same(parsed.pairs, [
      ['err', err.stack],
      ['event', JSON.stringify(look_alike)],
    ])
  })

  t.test('keeps awkward messages and values on one parseable line', async (t) => {
    const err = new Error('multi\nline')
    const values: Array<[string, unknown]> = [
      ['empty', ''],
      ['spaced', 'a b  c'],
      ['eq', 'x=y'],
      ['quote', 'he said "no"'],
      ['newline', 'one\ntwo\r\nthree'],
      ['obj', { note: 'a b', n: 1 }],
      ['err', err],
      ['backslash', 'a\\"b'],
    ]
    const line = kv_line(2, 'fw', 'msg with = and "quotes"\nand a newline', T0, undefined, values.flat(), false)
    t.equal(line.indexOf('\n'), line.length - 1)
    const parsed = parse_kv(line.slice(0, -1))
    t.same(parsed.msg, 'msg with = and "quotes"\nand a newline')
    t.same(parsed.pairs, [
      ['empty', ''],
      ['spaced', 'a b  c'],
      ['eq', 'x=y'],
      ['quote', 'he said "no"'],
      ['newline', 'one\ntwo\r\nthree'],
      ['obj', '{"note":"a b","n":1}'],
      ['err', err.stack!],
      ['backslash', 'a\\"b'],
    ])
  })
})

t.test('log injection', async (t) => {
  t.test('escapes C1 controls and DEL, which JSON.stringify leaves raw, in a quoted message or value', async (t) => {
    // U+009B is CSI and U+0085 is NEL (next line) on a terminal that reads C1 controls from UTF-8.
    t.equal(kv_message('\u009b31mred\u0085fake'), '"\\u009b31mred\\u0085fake"')
    t.equal(kv_value('a\u009bb\u007fc'), '"a\\u009bb\\u007fc"')
    t.equal(
      kv_line(2, 'fw', 'x\u0085y', T0, undefined, ['v', 'p\u009b2Jq'], false),
      '03:04:05.678 [fw] [info] "x\\u0085y" v="p\\u009b2Jq"\n',
    )
  })

  t.test('escapes the Unicode line and paragraph separators in a message or value', async (t) => {
    t.equal(kv_message('one\u2028two'), '"one\\u2028two"')
    t.equal(kv_value('one\u2029two'), '"one\\u2029two"')
  })

  t.test('escapes the Unicode bidirectional controls in a message or value, and replaces them in a key', async (t) => {
    // U+202E (right-to-left override) would show `user=nimda` as `user=admin` ("Trojan Source"); every one of the
    // bidirectional controls (embeddings, overrides, isolates, marks) is an escape, as a C1 control is.
    const bidi = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e']
    for (const c of [...bidi, '\u2066', '\u2067', '\u2068', '\u2069']) {
      const hex = `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
      t.equal(kv_message(`a${c}b`), `"a${hex}b"`, `message with ${hex}`)
      t.equal(kv_value(`a${c}b`), `"a${hex}b"`, `value with ${hex}`)
      t.equal(kv_key(`a${c}b`), 'a_b', `key with ${hex}`)
    }
    t.equal(
      kv_line(2, 'fw', 'signed in \u202enimda\u202c', T0, undefined, ['user', '\u202enimda', 'p\u2066q', 1], false),
      '03:04:05.678 [fw] [info] "signed in \\u202enimda\\u202c" user="\\u202enimda" p_q=1\n',
    )
  })
})

t.test('a long value', async (t) => {
  t.test('says how much of the value was cut, as a JSON line does, not how much of its cut copy', async (t) => {
    t.equal(
      kv_line(2, 'fw', 'm', T0, undefined, ['v', 'x'.repeat(10_000)], false),
      `03:04:05.678 [fw] [info] m v="${'x'.repeat(8192)}...[truncated 1808 chars]"\n`,
    )
  })
})
