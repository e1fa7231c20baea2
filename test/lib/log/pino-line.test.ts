import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import t from 'tap'
import pretty from 'pino-pretty'
import { MemoryStream, T0 } from './capture.js'
import { LogCore } from '../../../lib/log/core.js'
import type { PinoOptions } from '../../../lib/log/pino-line.js'

/** A core writing to memory at a fixed time in `format`, with the given pino options. */
function memory_core(
  format: 'kv' | 'json' | 'json_pretty',
  pino: PinoOptions = {},
): { core: LogCore; out: MemoryStream } {
  const core = new LogCore()
  const out = new MemoryStream()
  core.configure({ destination: out, format, pino })
  core.set_clock(() => T0)
  return { core, out }
}

/** The members a mixin adds to a line. */
const pino_fields = (pino: PinoOptions): object => (pino.mixin === undefined ? {} : { region: 'eu' })

t.test('PinoLine', async (t) => {
  t.test('applies pino redact, serializers and mixin to JSON lines', async (t) => {
    const { core, out } = memory_core('json', {
      redact: ['password', 'user.token'],
      serializers: { user: (u: { id: number; token: string }) => ({ id: u.id, token: u.token }) },
      mixin: () => ({ region: 'eu' }),
    })
    core.write(2, 'auth', 'signed in', ['password', 'hunter2', 'user', { id: 7, token: 't0k', extra: 1 }])
    t.same(JSON.parse(out.lines()[0]!), {
      level: 'info',
      msg: 'signed in',
      time: T0,
      logger: 'auth',
      password: '[Redacted]',
      user: { id: 7, token: '[Redacted]' },
      region: 'eu',
    })
  })

  t.test(
    'escapes C1 controls, DEL and the line separators in a JSON line, with and without pino options',
    async (t) => {
      // A client's header reaches a line as latin1: the byte 0x9B is U+009B, CSI on a terminal that reads C1 controls
      // from UTF-8 (`docker logs` of JSON lines); U+0085 is NEL and U+2028 a line break for editors and viewers.
      for (const pino of [{}, { mixin: () => ({ region: 'eu' }) }]) {
        const { core, out } = memory_core('json', pino)
        core.write(2, 'http', 'a\u009b2Jb', ['ua', 'c\u0085d\u007f\u2028e\u2029', 'k\u009b', 1])
        const line = out.text()
        t.notMatch(line, /[\u007f-\u009f\u2028\u2029]/u, 'no raw C1, DEL or separator')
        t.match(line, '"msg":"a\\u009b2Jb"')
        t.match(line, '"ua":"c\\u0085d\\u007f\\u2028e\\u2029"')
        t.match(line, '"k\\u009b":1')
        t.same(JSON.parse(line), {
          level: 'info',
          msg: 'a\u009b2Jb',
          time: T0,
          logger: 'http',
          ...pino_fields(pino),
          ua: 'c\u0085d\u007f\u2028e\u2029',
          'k\u009b': 1,
        })
      }
    },
  )

  t.test('escapes the Unicode bidirectional controls in a JSON line, with and without pino options', async (t) => {
    // A request value carrying U+202E (right-to-left override) would make `\u202enimda` read as `admin` on a terminal.
    const bidi = '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069'
    for (const pino of [{}, { mixin: () => ({ region: 'eu' }) }]) {
      const { core, out } = memory_core('json', pino)
      core.write(2, 'http', 'user \u202enimda', ['path', bidi, 'k\u2066', 1])
      const line = out.text()
      t.notMatch(line, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u, 'no raw bidirectional control')
      t.match(line, '"msg":"user \\u202enimda"')
      t.match(line, '"path":"\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"')
      t.match(line, '"k\\u2066":1')
      t.same(JSON.parse(line), {
        level: 'info',
        msg: 'user \u202enimda',
        time: T0,
        logger: 'http',
        ...pino_fields(pino),
        path: bidi,
        'k\u2066': 1,
      })
    }
  })

  t.test('renders KV from what pino wrote, so redaction and mixins show there too', async (t) => {
    const { core, out } = memory_core('kv', { redact: ['password'], mixin: () => ({ region: 'eu' }) })
    core.write(3, 'auth', 'retry', ['password', 'hunter2', 'n', 2])
    t.same(out.lines(), ['03:04:05.678 [auth] [warning] retry region=eu password=[Redacted] n=2'])
  })

  t.test('writes the same KV line without pino, when no pino option is given, as through pino', async (t) => {
    const cause = new Error('socket closed')
    const failed = Object.assign(new Error('query failed', { cause }), { code: 'E_DB', retry: 2 })
    const calls: Array<[number, string, readonly unknown[]]> = [
      [2, 'request', ['method', 'GET', 'status', 200, 'duration_ms', 0.125, 'ua', 'curl/8.5 (x)']],
      [3, 'a "quoted" msg', ['k y', 'v=1', '', 'empty key', 'tab', 'a\tb', 'nl', 'x\ny', 'uni', 'é🙂\u0001']],
      [4, 'failed', ['err', failed, 'n', -0, 'inf', Infinity, 'big', 12n, 'none', undefined, 'nil', null]],
      [4, 'look-alike', ['event', { type: 'click', message: 'saved', stack: 'panel > button', user: 'ada' }]],
      [5, 'down', ['nested', { a: [1, 'two', null], b: { c: true } }, '__proto__', { x: 1 }, '123', 'num key']],
      [1, 'moved', ['level', 9, 'msg', 'theirs', 'time', 'noon', 'logger', 'L']],
      [0, '', ['fn', function named() {}, 'date', new Date(T0), 'set', new Set([1]), 'map', new Map([['k', 1]])]],
    ]
    // hooks: {} changes nothing pino writes, but is a pino option, so those lines go through pino.
    const direct = memory_core('kv')
    const through_pino = memory_core('kv', { hooks: {} })
    for (const [severity, msg, pairs] of calls) {
      direct.core.write(severity, 'db', msg, pairs)
      through_pino.core.write(severity, 'db', msg, pairs)
    }
    t.equal(direct.out.lines().length, calls.length)
    t.same(direct.out.lines(), through_pino.out.lines())
  })

  t.test('keeps a pair named name, level, msg or time under its name in JSON and in KV', async (t) => {
    const { core, out } = memory_core('json')
    core.write(2, 'fw', 'hello', ['name', 'Ada', 'level', 3, 'msg', 'theirs', 'time', 'noon'])
    t.same(JSON.parse(out.lines()[0]!), {
      fw_level: 'info',
      msg: 'theirs',
      time: 'noon',
      logger: 'fw',
      fw_msg: 'hello',
      fw_time: T0,
      name: 'Ada',
      level: 3,
    })
    core.configure({ format: 'kv' })
    core.write(2, 'fw', 'hello', ['name', 'Ada', 'level', 3, 'msg', 'theirs'])
    t.equal(out.lines()[1], '03:04:05.678 [fw] [info] hello msg=theirs name=Ada level=3')
  })

  t.test('writes each key once when pairs take both a member of fw and the name it moves to', async (t) => {
    const { core, out } = memory_core('json')
    core.write(2, 'fw', 'hello', ['fw_level', 'mine', 'level', 3])
    core.write(2, 'fw', 'hello', ['msg', 'theirs', 'fw_msg', 'mine'])
    core.write(2, 'fw', 'hello', ['fw_level', 'alone'])
    t.same(out.lines(), [
      `{"fw_level":"info","msg":"hello","time":${T0},"logger":"fw","fw_fw_level":"mine","level":3}`,
      `{"level":"info","msg":"theirs","time":${T0},"logger":"fw","fw_msg":"hello","fw_fw_msg":"mine"}`,
      `{"level":"info","msg":"hello","time":${T0},"logger":"fw","fw_level":"alone"}`,
    ])
    core.configure({ format: 'kv' })
    core.write(2, 'fw', 'hello', ['fw_level', 'mine', 'level', 3])
    core.write(2, 'fw', 'hello', ['msg', 'theirs', 'fw_msg', 'mine'])
    t.same(out.lines().slice(3), [
      '03:04:05.678 [fw] [info] hello fw_fw_level=mine level=3',
      '03:04:05.678 [fw] [info] hello msg=theirs fw_fw_msg=mine',
    ])
  })

  t.test('names a logged error by its class in err.type, with and without pino options, as pino does', async (t) => {
    for (const options of [{}, { redact: ['password'] }]) {
      const { core, out } = memory_core('json', options)
      core.write(4, 'db', 'failed', ['err', new TypeError('bad'), 'plain', new Error('worse')])
      const rec = JSON.parse(out.lines()[0]!) as Record<string, { type: string; message: string }>
      t.same([rec.err!.type, rec.err!.message], ['TypeError', 'bad'])
      t.same([rec.plain!.type, rec.plain!.message], ['Error', 'worse'])
    }
  })

  t.test('names an error of an application class by that class, not by the name it inherits', async (t) => {
    // The common subclass sets no `name` of its own: its name is `Error`, its class (what pino writes) `DbError`.
    class DbError extends Error {}
    class HttpError extends Error {
      override name = 'HttpFailure'
    }
    for (const options of [{}, { redact: ['password'] }]) {
      const { core, out } = memory_core('json', options)
      core.write(4, 'db', 'failed', ['err', new DbError('timeout'), 'http', new HttpError('502')])
      const rec = JSON.parse(out.lines()[0]!) as Record<string, { type: string }>
      t.same([rec.err!.type, rec.http!.type], ['DbError', 'HttpError'])
    }
  })

  t.test('adds pino base bindings when the user asks for them', async (t) => {
    const { core, out } = memory_core('json', { base: { service: 'shop' } })
    core.write(2, 'fw', 'up', undefined)
    t.equal(out.lines()[0], `{"level":"info","service":"shop","msg":"up","time":${T0},"logger":"fw"}`)
  })

  t.test('feeds pino-pretty, given as the destination of JSON lines', async (t) => {
    const core = new LogCore()
    const out = new MemoryStream()
    core.configure({
      destination: pretty({
        destination: out,
        colorize: false,
        sync: true,
        customLevels: 'trace:10,debug:20,info:30,warning:40,error:50,critical:60',
      }),
      format: 'json',
    })
    core.set_clock(() => T0)
    core.write(3, 'db', 'slow query', ['ms', 950])
    t.match(out.text(), /WARNING.*slow query/)
    t.match(out.text(), /ms: 950/)
  })

  t.test('is filtered by level by the pino-pretty command docs/log.md gives, level names shown', async (t) => {
    // The documented option: a numeric level beside fw's label, through pino's mixin (it receives pino's level value).
    const { core, out } = memory_core('json', { mixin: (_obj: object, level: number) => ({ level_value: level }) })
    for (let severity = 0; severity < 6; severity++) core.write(severity, 'fw', `line ${severity}`, ['n', severity])
    const bin = join(dirname(createRequire(import.meta.url).resolve('pino-pretty/package.json')), 'bin.js')
    const args = [
      '--levelKey',
      'level_value',
      '--customLevels',
      'trace:10,debug:20,info:30,warning:40,error:50,critical:60',
    ]
    const pretty = (extra: string[]) =>
      execFileSync(process.execPath, [bin, ...args, '--ignore', 'level', '--colorize', 'false', ...extra], {
        input: out.text(),
        encoding: 'utf8',
      })
    const heads = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('['))
        .map((l) => l.slice(15))
    t.same(heads(pretty(['--minimumLevel', 'warning'])), ['WARNING: line 3', 'ERROR: line 4', 'CRITICAL: line 5'])
    t.same(heads(pretty(['--minimumLevel', 'critical'])), ['CRITICAL: line 5'])
    t.equal(heads(pretty([])).length, 6, 'every line without a minimum')
  })

  t.test('refuses pino options that would change fw’s own members', async (t) => {
    const core = new LogCore()
    t.throws(() => core.configure({ pino: { messageKey: 'message' } as PinoOptions }), {
      code: 'FW_ERR_LOG_BAD_PINO_OPTION',
    })
    t.throws(() => core.configure({ pino: { level: 'info' } as PinoOptions }), { code: 'FW_ERR_LOG_BAD_PINO_OPTION' })
    t.throws(() => core.configure({ pino: null as unknown as PinoOptions }), { code: 'FW_ERR_LOG_BAD_PINO_OPTION' })
  })
})
