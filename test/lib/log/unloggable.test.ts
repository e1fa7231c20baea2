// A value that throws when read (a getter, a Proxy's trap) never turns a log call into a throw: it is written as
// `[Unserializable]`, through every public entry and in every format.
import t from 'tap'
import type { Test } from 'tap'
import { parse_kv } from './capture.js'
import { memory_log } from './memory-log.js'
import { LogFormat, LogLevel, configure, error, info, log, logf, logger, pino_logger } from '../../../lib/log/index.js'
import { hostile, throwing } from './hostile.js'

const U = '[Unserializable]'
const out = memory_log(t)

/** An object with a member whose getter throws. */
function bad_getter(): object {
  return Object.defineProperty({ a: 1 }, 'b', {
    enumerable: true,
    get: () => {
      throw new Error('no b')
    },
  })
}

/** Runs `fn` (which must not throw) and gives the KV lines it wrote as [label, message, pairs]. */
function kv_of(t: Test, fn: () => void): Array<[string, string, Array<[string, string]>]> {
  out.clear()
  t.doesNotThrow(fn)
  return out.lines().map((l) => {
    const p = parse_kv(l)
    return [p.label, p.msg, p.pairs]
  })
}

/** Runs `fn` (which must not throw) in the JSON format and gives the records it wrote. */
function json_of(t: Test, fn: () => void): Array<Record<string, unknown>> {
  configure({ format: LogFormat.JSON })
  out.clear()
  t.doesNotThrow(fn)
  return out.lines().map((l) => JSON.parse(l) as Record<string, unknown>)
}

const STACK_HEAD = /^Error: hidden\n {4}at /

t.test('info, error and log: the placeholder in the message and as the err field of an Error', async (t) => {
  const calls = (): void => {
    info('got {}', hostile())
    info('got', hostile())
    info(hostile() as unknown as string)
    error('failed: {}', throwing('message'))
    error('failed: {}', throwing('name'))
    error('failed: {}', throwing('stack'))
    log(LogLevel.Warn, 'odd {} {}', hostile(), bad_getter())
  }
  const kv = kv_of(t, calls)
  t.same(
    kv.map(([label, msg, pairs]) => [label, msg, pairs.map(([k]) => k)]),
    [
      ['info', `got ${U}`, []],
      ['info', 'got', []],
      ['info', U, []],
      ['error', `failed: ${U}`, ['err']],
      ['error', `failed: ${U}`, ['err']],
      ['error', 'failed: Error: hidden', ['err']],
      ['warning', `odd ${U} ${U}`, []],
    ],
  )
  t.equal(kv[3]![2][0]![1], U, 'an Error whose message throws is the placeholder')
  t.match(kv[4]![2][0]![1], STACK_HEAD, 'one whose name throws shows its stack: its record reads without the name')
  t.equal(kv[5]![2][0]![1], U, 'one whose stack throws is the placeholder')
  const json = json_of(t, calls)
  t.same(
    json.map((r) => r.msg),
    kv.map(([, msg]) => msg),
  )
  t.match(
    json.slice(3, 6).map((r) => r.err),
    [U, { type: 'Error', message: 'hidden', stack: STACK_HEAD }, U],
  )
  t.equal(json[3]!.err, U)
})

t.test('logf: the placeholder for a value or a message', async (t) => {
  const calls = (): void => {
    logf(LogLevel.Info, 'm', 'p', hostile(), 'e', throwing('message'), 'g', bad_getter(), 'n', 1)
    logf(LogLevel.Info, hostile() as unknown as string, 'n', 2)
  }
  t.same(kv_of(t, calls), [
    [
      'info',
      'm',
      [
        ['p', U],
        ['e', U],
        ['g', U],
        ['n', '1'],
      ],
    ],
    ['info', U, [['n', '2']]],
  ])
  t.match(json_of(t, calls), [
    { msg: 'm', p: U, e: U, g: U, n: 1 },
    { msg: U, n: 2 },
  ])
})

t.test('a named logger and the pino options path (JSON rendered by pino, then KV)', async (t) => {
  configure({ pino: { base: { svc: 'x' } } })
  const db = logger('db')
  const kv = kv_of(t, () => {
    db.error('query failed: {}', hostile(), throwing('message'))
    db.logf(LogLevel.Error, 'query failed', 'err', hostile())
  })
  t.same(kv, [
    [
      'error',
      `query failed: ${U}`,
      [
        ['svc', 'x'],
        ['err', U],
      ],
    ],
    [
      'error',
      'query failed',
      [
        ['svc', 'x'],
        ['err', U],
      ],
    ],
  ])
})

t.test('pino_logger: the placeholder for an unreadable object, member, message or printf argument', async (t) => {
  const p = pino_logger('p')
  // pino's typings check call shapes; these calls test the run-time handling of any arguments.
  const call = (level: 'info' | 'error', ...args: unknown[]): void =>
    (p[level].bind(p) as (...a: unknown[]) => void)(...args)
  const calls = (): void => {
    call('info', hostile())
    call('info', hostile(), 'given')
    call('info', bad_getter(), 'hello')
    call('error', throwing('message'))
    call('error', throwing('message'), 'wrapped %s', hostile())
    call(
      'info',
      'n %d %s',
      {
        valueOf: () => {
          throw new Error('no number')
        },
      },
      hostile(),
    )
    call('info', { msg: hostile(), k: 1 })
  }
  const kv = kv_of(t, calls)
  t.same(
    kv.map(([label, msg, pairs]) => [label, msg, pairs.map(([k, v]) => [k, k === 'err' ? v.slice(0, 16) : v])]),
    [
      ['info', U, []],
      ['info', 'given', []],
      [
        'info',
        'hello',
        [
          ['a', '1'],
          ['b', U],
        ],
      ],
      ['error', U, [['err', U]]],
      ['error', `wrapped ${U}`, [['err', U]]],
      ['info', `n ${U} ${U}`, []],
      [
        'info',
        '',
        [
          ['msg', U],
          ['k', '1'],
        ],
      ],
    ],
  )
  t.equal(json_of(t, calls).length, 7, 'every call wrote its line in JSON too')
})
