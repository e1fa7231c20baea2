import t, { type Test } from 'tap'
import { FwError } from '../../lib/errors.js'
import { define_bad_option, describe_value, OptionChecks, quote } from '../../lib/options.js'

const ERR_TEST_BAD_OPTION = define_bad_option('OPTIONSTEST')
const check = new OptionChecks(ERR_TEST_BAD_OPTION)

/** The message `fn` throws, after checking it is this area's coded error. */
function thrown(t: Test, fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    t.ok(err instanceof FwError)
    t.equal((err as FwError).code, 'FW_ERR_OPTIONSTEST_BAD_OPTION')
    return (err as Error).message
  }
  t.fail('did not throw')
  return ''
}

t.test('quote', async (t) => {
  t.test('prints strings as JSON and other scalars as written', async (t) => {
    t.equal(quote('a b'), '"a b"')
    t.equal(quote('a\nb'), '"a\\nb"')
    t.equal(quote(NaN), 'NaN')
    t.equal(quote(Infinity), 'Infinity')
    t.equal(quote(-1.5), '-1.5')
    t.equal(quote(10n), '10')
    t.equal(quote(false), 'false')
    t.equal(quote(null), 'null')
    t.equal(quote(undefined), 'undefined')
  })

  t.test('prints a list of scalars item by item, with the same rule', async (t) => {
    t.equal(quote([]), '[]')
    t.equal(quote(['a', 1, NaN, null]), '["a",1,NaN,null]')
  })

  t.test('names objects, functions and lists holding objects by their shape only', async (t) => {
    t.equal(quote({ password: 'p4ss' }), 'an object')
    t.equal(quote(new Map([['k', 'v']])), 'an object')
    t.equal(
      quote(() => 1),
      'a function',
    )
    t.equal(quote([{ password: 'p4ss' }]), 'a list of 1 item')
    t.equal(quote(Buffer.from('p4ss')), 'a Buffer of 4 bytes')
  })

  t.test('names a secret by its shape whatever it is', async (t) => {
    t.equal(quote('hunter22', true), 'a string of 8 characters')
    t.equal(quote(['a', 'b'], true), 'a list of 2 items')
    t.equal(quote(42, true), 'a number')
  })

  t.test('describe_value gives the shape of every kind of value', async (t) => {
    t.equal(describe_value(undefined), 'undefined')
    t.equal(describe_value(new Uint16Array(2)), 'a Uint16Array of 4 bytes')
    t.equal(describe_value(true), 'a boolean')
  })
})

t.test('define_bad_option', async (t) => {
  t.test('declares FW_ERR_<AREA>_BAD_OPTION with one message shape', async (t) => {
    const err = ERR_TEST_BAD_OPTION('owner', 'size', 'an integer >= 1', NaN)
    t.equal(err.code, 'FW_ERR_OPTIONSTEST_BAD_OPTION')
    t.equal(err.message, 'owner: size must be an integer >= 1; got NaN')
    t.equal(
      ERR_TEST_BAD_OPTION('owner', 'key', 'longer', 'k3y-material', true).message,
      'owner: key must be longer; got a string of 12 characters',
    )
  })
})

t.test('OptionChecks', async (t) => {
  t.test('returns good values unchanged', async (t) => {
    const fn = (): number => 1
    t.equal(check.int('o', 'n', 0), 0)
    t.equal(check.int('o', 'n', 11, 0, 11), 11)
    t.equal(check.bool('o', 'b', false), false)
    t.equal(check.string('o', 's', 'x'), 'x')
    t.equal(check.secret('o', 's', 'x'.repeat(16), 16), 'x'.repeat(16))
    t.equal(check.one_of('o', 'm', 'b', ['a', 'b']), 'b')
    t.equal(check.fn('o', 'f', fn), fn)
    t.equal(check.optional_fn('o', 'f', undefined), undefined)
    t.equal(check.token('o', 't', 'x-id'), 'x-id')
    t.same(check.tokens('o', 't', ['GET', 'x-id']), ['GET', 'x-id'])
    t.equal(check.header_value('o', 'h', 'a b'), 'a b')
    t.same(check.names('o', 'l', new Set(['a', 'b']), true), ['a', 'b'])
    t.same(check.names('o', 'l', [], false), [])
  })

  t.test('throws the area error naming the owner, the option and the quoted value', async (t) => {
    t.equal(
      thrown(t, () => check.int('o', 'n', -1)),
      'o: n must be an integer >= 0; got -1',
    )
    t.equal(
      thrown(t, () => check.int('o', 'n', 1.5, 1)),
      'o: n must be an integer >= 1; got 1.5',
    )
    t.equal(
      thrown(t, () => check.int('o', 'n', 2 ** 60, 1)),
      `o: n must be an integer >= 1; got ${2 ** 60}`,
    )
    t.equal(
      thrown(t, () => check.int('o', 'n', 12, 0, 11)),
      'o: n must be an integer from 0 to 11; got 12',
    )
    t.equal(
      thrown(t, () => check.int('o', 'n', '5')),
      'o: n must be an integer >= 0; got "5"',
    )
    t.equal(
      thrown(t, () => check.bool('o', 'b', null)),
      'o: b must be a boolean; got null',
    )
    t.equal(
      thrown(t, () => check.string('o', 's', '')),
      'o: s must be a non-empty string; got ""',
    )
    t.equal(
      thrown(t, () => check.string('o', 's', 'ab', 3)),
      'o: s must be a string of at least 3 characters; got "ab"',
    )
    t.equal(
      thrown(t, () => check.one_of('o', 'm', 'c', ['a', 'b'])),
      'o: m must be one of a, b; got "c"',
    )
    t.equal(
      thrown(t, () => check.fn('o', 'f', 1)),
      'o: f must be a function; got 1',
    )
    t.equal(
      thrown(t, () => check.optional_fn('o', 'f', {})),
      'o: f must be a function; got an object',
    )
    t.equal(
      thrown(t, () => check.token('o', 't', 'a b')),
      'o: t must be an HTTP token; got "a b"',
    )
    t.equal(
      thrown(t, () => check.tokens('o', 't', 'GET')),
      'o: t must be a list of HTTP tokens; got "GET"',
    )
    t.equal(
      thrown(t, () => check.tokens('o', 't', ['GET', 'a b'])),
      'o: t must be an HTTP token; got "a b"',
    )
    t.equal(
      thrown(t, () => check.header_value('o', 'h', 'a\r\nb')),
      'o: h must be a non-empty header value without CR, LF or NUL; got "a\\r\\nb"',
    )
    t.equal(
      thrown(t, () => check.names('o', 'l', [], true)),
      'o: l must be a non-empty list of non-empty strings; got []',
    )
    t.equal(
      thrown(t, () => check.names('o', 'l', 'ab', false)),
      'o: l must be a list of non-empty strings; got "ab"',
    )
  })

  t.test('never quotes a secret', async (t) => {
    t.equal(
      thrown(t, () => check.secret('o', 'key', 'short-k3y', 16)),
      'o: key must be a string of at least 16 characters; got a string of 9 characters',
    )
    t.equal(
      thrown(t, () => check.names('o', 'keys', ['k3y', ''], true, true)),
      'o: keys must be a non-empty list of non-empty strings; got a list of 2 items',
    )
    t.equal(
      thrown(t, () => check.must(false, 'o', 'key', 'valid', 'k3y', true)),
      'o: key must be valid; got a string of 3 characters',
    )
  })
})
