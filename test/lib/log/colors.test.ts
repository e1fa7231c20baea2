import t from 'tap'
import { color_wanted, paint_json, paint_label } from '../../../lib/log/colors.js'
import { set_env } from './capture.js'

t.test('color_wanted', async (t) => {
  t.test('colours a terminal and nothing else by default', async (t) => {
    t.equal(color_wanted(true, {}), true)
    t.equal(color_wanted(false, {}), false)
  })

  t.test('follows FW_COLOR=always and FW_COLOR=never whatever the destination', async (t) => {
    t.equal(color_wanted(false, { FW_COLOR: 'always' }), true)
    t.equal(color_wanted(true, { FW_COLOR: 'never' }), false)
    t.equal(color_wanted(false, { FW_COLOR: ' Always ' }), true)
    t.equal(color_wanted(true, { FW_COLOR: 'auto' }), true)
  })

  t.test('lets a non-empty NO_COLOR win over everything', async (t) => {
    t.equal(color_wanted(true, { NO_COLOR: '1' }), false)
    t.equal(color_wanted(true, { NO_COLOR: '1', FW_COLOR: 'always' }), false)
    t.equal(color_wanted(true, { NO_COLOR: '' }), true)
    t.equal(color_wanted(false, { NO_COLOR: '', FW_COLOR: 'always' }), true)
  })

  t.test('reads process.env when no environment is given', async (t) => {
    set_env(t, { NO_COLOR: undefined, FW_COLOR: 'always' })
    t.equal(color_wanted(false), true)
    process.env.NO_COLOR = 'yes'
    t.equal(color_wanted(false), false)
  })
})

t.test('paint_label', async (t) => {
  t.test('wraps a label in its severity colour', async (t) => {
    t.equal(paint_label(0, 'trace'), '\x1b[90mtrace\x1b[0m')
    t.equal(paint_label(2, 'info'), '\x1b[32minfo\x1b[0m')
    t.equal(paint_label(3, 'warning'), '\x1b[33mwarning\x1b[0m')
    t.equal(paint_label(5, 'critical'), '\x1b[1;31mcritical\x1b[0m')
  })
})

t.test('paint_json', async (t) => {
  t.test('colours keys, strings, numbers and literals, and the level by its severity', async (t) => {
    const text = JSON.stringify({ level: 'error', msg: 'a "q" b', n: -1.5e3, ok: true, z: null }, null, 2)
    t.equal(
      paint_json(text, 4),
      [
        '{',
        '  \x1b[36m"level"\x1b[0m: \x1b[31m"error"\x1b[0m,',
        '  \x1b[36m"msg"\x1b[0m: \x1b[32m"a \\"q\\" b"\x1b[0m,',
        '  \x1b[36m"n"\x1b[0m: \x1b[33m-1500\x1b[0m,',
        '  \x1b[36m"ok"\x1b[0m: \x1b[35mtrue\x1b[0m,',
        '  \x1b[36m"z"\x1b[0m: \x1b[35mnull\x1b[0m',
        '}',
      ].join('\n'),
    )
  })

  t.test('leaves the text unchanged once the colour codes are removed', async (t) => {
    const text = JSON.stringify(
      { level: 'info', nested: { list: [1, 'two', false], s: 'with: colon, and "quotes"' } },
      null,
      2,
    )
    t.equal(
      paint_json(text, 2)
        .split('\x1b[')
        .map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*m/, '')))
        .join(''),
      text,
    )
  })
})
