import t from 'tap'
import { code_point_length } from '../../../lib/validation/index.js'

t.test('code_point_length', async (t) => {
  t.test('counts an emoji as one character', async (t) => {
    t.equal('😀'.length, 2)
    t.equal(code_point_length('😀'), 1)
    t.equal(code_point_length('a😀b'), 3)
  })

  t.test('counts ASCII and BMP text like String.length', async (t) => {
    t.equal(code_point_length(''), 0)
    t.equal(code_point_length('hello'), 5)
    t.equal(code_point_length('日本語'), 3)
  })

  t.test('does not normalise combining marks', async (t) => {
    t.equal(code_point_length('\u00e9'), 1)
    t.equal(code_point_length('e\u0301'), 2)
  })

  t.test('counts a lone surrogate as one', async (t) => {
    t.equal(code_point_length('\ud83d'), 1)
    t.equal(code_point_length('x\ude00'), 2)
  })
})
