import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { FwError } from '../../lib/errors.js'
import { define_bad_option, describe_value, option_checker, quote } from '../../lib/options.js'

const ERR_TEST_BAD_OPTION = define_bad_option('OPTIONSTEST')
const check = option_checker(ERR_TEST_BAD_OPTION, 'o')

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

t.test('option_checker', async (t) => {
  t.test('returns good values unchanged', async (t) => {
    const fn = (): number => 1
    t.equal(check.int('n', 0), 0)
    t.equal(check.int('n', 11, 0, 11), 11)
    t.equal(check.bool('b', false), false)
    t.equal(check.string('s', 'x'), 'x')
    t.equal(check.secret('s', 'x'.repeat(16), 16), 'x'.repeat(16))
    t.equal(check.one_of('m', 'b', ['a', 'b']), 'b')
    t.equal(check.fn('f', fn), fn)
    t.equal(check.optional_fn('f', undefined), undefined)
    t.equal(check.token('t', 'x-id'), 'x-id')
    t.same(check.tokens('t', ['GET', 'x-id']), ['GET', 'x-id'])
    t.equal(check.header_value('h', 'a b'), 'a b')
    t.same(check.names('l', new Set(['a', 'b'])), ['a', 'b'])
    t.same(check.names('l', [], { allow_empty: true }), [])
  })

  t.test('throws the area error naming the owner, the option and the quoted value', async (t) => {
    t.equal(
      thrown(t, () => check.int('n', -1)),
      'o: n must be an integer >= 0; got -1',
    )
    t.equal(
      thrown(t, () => check.int('n', 1.5, 1)),
      'o: n must be an integer >= 1; got 1.5',
    )
    t.equal(
      thrown(t, () => check.int('n', 2 ** 60, 1)),
      `o: n must be an integer >= 1; got ${2 ** 60}`,
    )
    t.equal(
      thrown(t, () => check.int('n', 12, 0, 11)),
      'o: n must be an integer from 0 to 11; got 12',
    )
    t.equal(
      thrown(t, () => check.int('n', '5')),
      'o: n must be an integer >= 0; got "5"',
    )
    t.equal(
      thrown(t, () => check.bool('b', null)),
      'o: b must be a boolean; got null',
    )
    t.equal(
      thrown(t, () => check.string('s', '')),
      'o: s must be a non-empty string; got ""',
    )
    t.equal(
      thrown(t, () => check.string('s', 'ab', 3)),
      'o: s must be a string of at least 3 characters; got "ab"',
    )
    t.equal(
      thrown(t, () => check.one_of('m', 'c', ['a', 'b'])),
      'o: m must be one of a, b; got "c"',
    )
    t.equal(
      thrown(t, () => check.fn('f', 1)),
      'o: f must be a function; got 1',
    )
    t.equal(
      thrown(t, () => check.optional_fn('f', {})),
      'o: f must be a function; got an object',
    )
    t.equal(
      thrown(t, () => check.token('t', 'a b')),
      'o: t must be an HTTP token; got "a b"',
    )
    t.equal(
      thrown(t, () => check.tokens('t', 'GET')),
      'o: t must be a list of HTTP tokens; got "GET"',
    )
    t.equal(
      thrown(t, () => check.tokens('t', ['GET', 'a b'])),
      'o: t must be an HTTP token; got "a b"',
    )
    t.equal(
      thrown(t, () => check.header_value('h', 'a\r\nb')),
      'o: h must be a non-empty header value without CR, LF or another control byte but tab, or a character above U+00FF; got "a\\r\\nb"',
    )
    t.equal(
      thrown(t, () => check.header_value('h', "default-src 'self' https://\u4f8b.example")),
      `o: h must be a non-empty header value without CR, LF or another control byte but tab, or a character above U+00FF; got ${JSON.stringify("default-src 'self' https://\u4f8b.example")}`,
    )
    t.equal(
      thrown(t, () => check.names('l', [])),
      'o: l must be a non-empty list of non-empty strings; got []',
    )
    t.equal(
      thrown(t, () => check.names('l', 'ab', { allow_empty: true })),
      'o: l must be a list of non-empty strings; got "ab"',
    )
  })

  t.test('never quotes a secret', async (t) => {
    t.equal(
      thrown(t, () => check.secret('key', 'short-k3y', 16)),
      'o: key must be a string of at least 16 characters; got a string of 9 characters',
    )
    t.equal(
      thrown(t, () => check.names('keys', ['k3y', ''], { secret: true })),
      'o: keys must be a non-empty list of non-empty strings; got a list of 2 items',
    )
    t.equal(
      thrown(t, () => check.must(false, 'key', 'valid', 'k3y', { secret: true })),
      'o: key must be valid; got a string of 3 characters',
    )
  })

  t.test('fail throws with the owner named once, and url hides what may be a credential', async (t) => {
    t.equal(
      thrown(t, () => option_checker(ERR_TEST_BAD_OPTION, 'other').fail('mode', 'one of a, b', 'c')),
      'other: mode must be one of a, b; got "c"',
    )
    t.equal(
      thrown(t, () => check.fail('key', 'a PEM key', 'k3y', { secret: true })),
      'o: key must be a PEM key; got a string of 3 characters',
    )
    t.equal(check.url('u', 'redis://h:1/0', ['redis:'], 'a redis URL').host, 'h:1')
    t.equal(
      thrown(t, () => check.url('u', 'http://user:pw@h/', ['redis:'], 'a redis URL')),
      'o: u must be a redis URL; got "http://***@h/"',
    )
    t.equal(
      thrown(t, () => check.url('u', 'pa55word', ['redis:'], 'a redis URL')),
      'o: u must be a redis URL; got a string of 8 characters',
    )
    t.equal(
      thrown(t, () => check.fn('f', 'k3y', { secret: true })),
      'o: f must be a function; got a string of 3 characters',
    )
    t.equal(check.owner, 'o')
  })
})

const LIB = fileURLToPath(new URL('../../lib', import.meta.url))

function lib_files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    return e.isDirectory() ? lib_files(path) : e.name.endsWith('.ts') ? [path] : []
  })
}

/** A direct call of an area's `ERR_<AREA>_BAD_OPTION` factory, which repeats the owner instead of binding it once. */
const DIRECT_CALL = /\bERR_[A-Z_]+_BAD_OPTION\s*\(/

t.test('one option-check dialect in lib', async (t) => {
  t.test('the check recognises a direct call of a BAD_OPTION factory', async (t) => {
    t.match("throw ERR_CACHE_BAD_OPTION('Cache', 'ttl', 'an integer', x)", DIRECT_CALL)
    t.match('ERR_AUTH_BAD_OPTION (', DIRECT_CALL)
    t.notMatch("option_checker(ERR_AUTH_BAD_OPTION, 'jwt')", DIRECT_CALL)
  })

  t.test('every bad option is thrown through a checker bound to its owner', async (t) => {
    const direct = lib_files(LIB)
      .filter((path) => !path.endsWith(join('lib', 'options.ts')))
      .flatMap((path) =>
        readFileSync(path, 'utf8')
          .split('\n')
          .flatMap((line, i) => (DIRECT_CALL.test(line) ? [`${relative(LIB, path)}:${i + 1}`] : [])),
      )
    t.same(direct, [])
  })
})
