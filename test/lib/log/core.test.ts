import { readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { MemoryStream, T0, set_env } from './capture.js'
import { request_context } from '../../../lib/log/context.js'
import { LogCore } from '../../../lib/log/core.js'
import type { LogLevel } from '../../../lib/log/levels.js'

/** A core writing KV lines to memory at a fixed time. */
function memory_core(): { core: LogCore; out: MemoryStream } {
  const core = new LogCore()
  const out = new MemoryStream()
  core.configure({ destination: out })
  core.set_clock(() => T0)
  return { core, out }
}

t.test('LogCore.configure', async (t) => {
  t.test('starts at Info, KV, sync', async (t) => {
    const core = new LogCore()
    t.equal(core.level(), 'info')
    t.equal(core.format(), 'kv')
    t.equal(core.is_async(), false)
  })

  t.test('sets level, format and async mode together and leaves out what is not given', async (t) => {
    const { core } = memory_core()
    core.configure({ level: 'debug', format: 'json', async: true })
    t.same([core.level(), core.format(), core.is_async()], ['debug', 'json', true])
    core.configure({ format: 'json_pretty' })
    t.same([core.level(), core.format(), core.is_async()], ['debug', 'json_pretty', true])
  })

  t.test('changes nothing when any part is bad', async (t) => {
    const { core, out } = memory_core()
    t.throws(() => core.configure({ level: 'loud' as LogLevel, format: 'json' }), { code: 'FW_ERR_LOG_BAD_LEVEL' })
    t.throws(() => core.configure({ level: 'debug', format: 'xml' as 'json' }), { code: 'FW_ERR_LOG_BAD_FORMAT' })
    t.throws(() => core.configure({ level: 'debug', destination: -3 }), { code: 'FW_ERR_LOG_BAD_DESTINATION' })
    t.throws(() => core.configure({ level: 'debug', destination: t.testdir() }), { code: 'FW_ERR_LOG_OPEN_FAILED' })
    t.same([core.level(), core.format()], ['info', 'kv'])
    core.write(2, 'fw', 'still here', undefined)
    t.same(out.lines(), ['03:04:05.678 [fw] [info] still here'])
  })

  t.test('reopens a file when async mode changes, keeping every line in order', async (t) => {
    const file = join(t.testdir(), 'app.log')
    const core = new LogCore()
    core.set_clock(() => T0)
    core.configure({ destination: file })
    core.write(2, 'fw', 'one', undefined)
    core.configure({ async: true })
    core.write(2, 'fw', 'two', undefined)
    await core.flush()
    core.configure({ async: false })
    core.write(2, 'fw', 'three', undefined)
    t.equal(readFileSync(file, 'utf8'), ['one', 'two', 'three'].map((m) => `03:04:05.678 [fw] [info] ${m}\n`).join(''))
    core.configure({ destination: new MemoryStream() })
  })
})

t.test('LogCore.configure with the destination it has', async (t) => {
  /** Waits (bounded) until `file` holds `count` lines: a closed async sink writes its last lines in the background. */
  const lines_in = async (file: string, count: number): Promise<string[]> => {
    const read = (): string[] => readFileSync(file, 'utf8').split('\n').slice(0, -1)
    for (let i = 0; i < 100 && read().length < count; i++) await new Promise((r) => setTimeout(r, 20))
    return read()
  }

  for (const async of [false, true]) {
    t.test(`reopens a file path given again: a file renamed away is created anew (async ${async})`, async (t) => {
      const file = join(t.testdir(), 'app.log')
      const core = new LogCore()
      core.set_clock(() => T0)
      core.configure({ destination: file, async })
      const before = Array.from({ length: 2000 }, (_, i) => `03:04:05.678 [fw] [info] before ${i}`)
      for (let i = 0; i < 2000; i++) core.write(2, 'fw', `before ${i}`, undefined)
      renameSync(file, `${file}.1`)
      core.configure({ destination: file })
      core.write(2, 'fw', 'after', undefined)
      await core.flush()
      t.same(await lines_in(`${file}.1`, 2000), before, 'every line written before is in the old file, in order')
      t.equal(readFileSync(file, 'utf8'), '03:04:05.678 [fw] [info] after\n')
      t.equal(core.is_async(), async)
      core.configure({ destination: new MemoryStream() })
    })
  }

  t.test('keeps a stream given again as it is', async (t) => {
    const { core, out } = memory_core()
    const listeners = out.listeners('error')
    core.configure({ destination: out })
    t.equal(out.listeners('error').length, 1)
    t.equal(out.listeners('error')[0], listeners[0], 'the same sink still listens')
    core.write(2, 'fw', 'still', undefined)
    t.same(out.lines(), ['03:04:05.678 [fw] [info] still'])
  })
})

t.test('LogCore.enabled', async (t) => {
  t.test('enables the active level and those above it, and never Off', async (t) => {
    const core = new LogCore()
    core.configure({ level: 'warn' })
    t.same(
      ['trace', 'debug', 'info', 'warn', 'error', 'critical', 'off'].map((l) => core.enabled(l as LogLevel)),
      [false, false, false, true, true, true, false],
    )
    core.configure({ level: 'off' })
    t.equal(core.threshold, 6)
    t.equal(core.enabled('critical'), false)
    core.configure({ level: 'trace' })
    t.equal(core.enabled('trace'), true)
  })
})

t.test('LogCore.watch_level', async (t) => {
  t.test('reports each level change until unwatched', async (t) => {
    const core = new LogCore()
    const seen: string[] = []
    const stop = core.watch_level((level) => seen.push(level))
    core.configure({ level: 'debug' })
    core.configure({ level: 'debug' })
    core.configure({ level: 'off' })
    stop()
    core.configure({ level: 'error' })
    t.same(seen, ['debug', 'off'])
  })
})

t.test('LogCore.set_level_from_env', async (t) => {
  t.test('reads FW_LOG_LEVEL, or the named variable, through parse_level', async (t) => {
    const core = new LogCore()
    set_env(t, { FW_LOG_LEVEL: 'WARNING', APP_LEVEL: 'fatal', EMPTY_LEVEL: ' ', ODD_LEVEL: 'loud' })
    t.equal(core.set_level_from_env(), true)
    t.equal(core.level(), 'warn')
    t.equal(core.set_level_from_env('APP_LEVEL'), true)
    t.equal(core.level(), 'critical')
    t.equal(core.set_level_from_env('EMPTY_LEVEL'), false)
    t.equal(core.set_level_from_env('NO_SUCH_VARIABLE'), false)
    t.equal(core.level(), 'critical')
    t.equal(core.set_level_from_env('ODD_LEVEL'), true)
    t.equal(core.level(), 'info')
  })
})

t.test('LogCore.set_format_from_env', async (t) => {
  t.test('reads FW_LOG_FORMAT, or the named variable, through parse_format', async (t) => {
    const core = new LogCore()
    set_env(t, { FW_LOG_FORMAT: 'json', APP_FORMAT: 'pretty-json', ODD_FORMAT: 'xml' })
    t.equal(core.set_format_from_env(), true)
    t.equal(core.format(), 'json')
    t.equal(core.set_format_from_env('APP_FORMAT'), true)
    t.equal(core.format(), 'json_pretty')
    t.equal(core.set_format_from_env('NO_SUCH_VARIABLE'), false)
    t.equal(core.format(), 'json_pretty')
    t.equal(core.set_format_from_env('ODD_FORMAT'), true)
    t.equal(core.format(), 'kv')
  })
})

t.test('LogCore.write', async (t) => {
  t.test('writes the same line in each format', async (t) => {
    const { core, out } = memory_core()
    const pairs = ['order_id', 981, 'note', 'two words']
    core.write(3, 'shop', 'order late', pairs)
    core.configure({ format: 'json' })
    core.write(3, 'shop', 'order late', pairs)
    core.configure({ format: 'json_pretty' })
    core.write(3, 'shop', 'order late', pairs)
    t.equal(
      out.text(),
      '03:04:05.678 [shop] [warning] order late order_id=981 note="two words"\n' +
        `{"level":"warning","msg":"order late","time":${T0},"logger":"shop","order_id":981,"note":"two words"}\n` +
        `{\n  "level": "warning",\n  "msg": "order late",\n  "time": ${T0},\n  "logger": "shop",\n  "order_id": 981,\n  "note": "two words"\n}\n`,
    )
  })

  t.test('writes a critical line before returning, even in async mode', async (t) => {
    const file = join(t.testdir(), 'crit.log')
    const core = new LogCore()
    core.set_clock(() => T0)
    core.configure({ destination: file, async: true })
    for (let i = 0; i < 100; i++) core.write(2, 'fw', `line ${i}`, undefined)
    core.write(5, 'fw', 'about to crash', undefined)
    t.ok(
      readFileSync(file, 'utf8').includes('03:04:05.678 [fw] [critical] about to crash\n'),
      'written before the call returned',
    )
    await core.flush()
    t.equal(readFileSync(file, 'utf8').split('\n').length, 102)
    core.configure({ destination: new MemoryStream() })
  })

  t.test('stamps lines with the injected clock, and with Date.now once it is restored', async (t) => {
    const { core, out } = memory_core()
    core.write(2, 'fw', 'fixed', undefined)
    core.set_clock()
    const before = Date.now()
    core.configure({ format: 'json' })
    core.write(2, 'fw', 'now', undefined)
    const time = (JSON.parse(out.lines()[1]!) as { time: number }).time
    t.equal(out.lines()[0], '03:04:05.678 [fw] [info] fixed')
    t.ok(time >= before && time <= Date.now(), 'the time is the real clock')
  })
})

t.test('LogCore.message', async (t) => {
  t.test('formats the message and adds the first Error argument as err', async (t) => {
    const { core, out } = memory_core()
    const err = new Error('boom')
    core.message(4, 'fw', 'save {} failed: {}', ['order', err])
    t.equal(out.lines()[0], `03:04:05.678 [fw] [error] save order failed: Error: boom err=${JSON.stringify(err.stack)}`)
  })
})

t.test('LogCore colours', async (t) => {
  t.test('colour a terminal stream unless NO_COLOR is set', async (t) => {
    set_env(t, { NO_COLOR: undefined, FW_COLOR: undefined })
    const core = new LogCore()
    core.set_clock(() => T0)
    const tty = new MemoryStream(true)
    core.configure({ destination: tty })
    core.write(2, 'fw', 'hi', undefined)
    process.env.NO_COLOR = '1'
    const plain = new MemoryStream(true)
    core.configure({ destination: plain })
    core.write(2, 'fw', 'hi', undefined)
    t.equal(tty.text(), '03:04:05.678 [fw] [\x1b[32minfo\x1b[0m] hi\n')
    t.equal(plain.text(), '03:04:05.678 [fw] [info] hi\n')
  })

  t.test('follow FW_COLOR=always on a file or stream that is not a terminal', async (t) => {
    set_env(t, { NO_COLOR: undefined, FW_COLOR: 'always' })
    const core = new LogCore()
    core.set_clock(() => T0)
    const out = new MemoryStream(false)
    core.configure({ destination: out })
    core.write(4, 'fw', 'x', undefined)
    core.configure({ format: 'json' })
    core.write(4, 'fw', 'x', undefined)
    t.equal(out.lines()[0], '03:04:05.678 [fw] [\x1b[31merror\x1b[0m] x')
    t.equal(
      out.lines()[1],
      `{"level":"error","msg":"x","time":${T0},"logger":"fw"}`,
      'single-line JSON is never coloured',
    )
  })
})

t.test('LogCore.child', async (t) => {
  t.test('writes the lines of its flows to its own destination and format; the level stays the parent’s', async (t) => {
    const { core: parent, out } = memory_core()
    const own = new MemoryStream()
    const child = parent.child({ destination: own, format: 'json', level: 'warn' })
    t.equal(parent.level(), 'warn', 'a level given to a child sets the process level')
    t.equal(child.format(), 'json')
    parent.write(3, 'fw', 'in the app', ['n', 1], request_context('r-1', undefined, child))
    parent.write(3, 'fw', 'outside', undefined)
    t.match(JSON.parse(own.lines()[0]!), { level: 'warning', msg: 'in the app', time: T0, rid: 'r-1', n: 1 })
    t.same(out.lines(), ['03:04:05.678 [fw] [warning] outside'])
    t.throws(() => child.configure({ destination: -2 }), { code: 'FW_ERR_LOG_BAD_DESTINATION' })
    child.close()
  })

  t.test('without a destination of its own it follows the parent’s, even when that changes later', async (t) => {
    const { core: parent } = memory_core()
    const child = parent.child({ format: 'json' })
    const later = new MemoryStream()
    parent.configure({ destination: later })
    parent.write(2, 'fw', 'here', undefined, request_context('', undefined, child))
    t.match(JSON.parse(later.lines()[0]!), { msg: 'here' })
  })

  t.test('merges its pino options into the parent’s: a process-wide transport keeps the app’s lines', async (t) => {
    const dir = t.testdir()
    const file = join(dir, 'transport.log')
    const parent = new LogCore()
    parent.configure({
      format: 'json',
      pino: { transport: { target: 'pino/file', options: { destination: file } }, mixin: () => ({ region: 'eu' }) },
    })
    parent.set_clock(() => T0)
    const child = parent.child({ pino: { redact: ['password'] } })
    parent.write(2, 'http', 'request', ['password', 'hunter2', 'n', 1], request_context('r-2', undefined, child))
    parent.write(2, 'http', 'again', ['password', 'hunter2'], request_context('r-3', undefined, child))
    await child.flush()
    await parent.flush()
    parent.close()
    // pino/file's flush answers before its last asynchronous write lands (docs/log.md): wait for both lines, bounded.
    const written = (): string => readFileSync(file, 'utf8')
    for (let i = 0; i < 100 && written().split('\n').length < 3; i++) await new Promise((r) => setTimeout(r, 20))
    const lines = written()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    t.same(
      lines.map((l) => [l.msg, l.rid, l.password, l.region]),
      [
        ['request', 'r-2', '[Redacted]', 'eu'],
        ['again', 'r-3', '[Redacted]', 'eu'],
      ],
    )
  })

  t.test('with a destination of its own, its lines go there rather than to the parent’s transport', async (t) => {
    const dir = t.testdir()
    const parent = new LogCore()
    parent.configure({ pino: { transport: { target: 'pino/file', options: { destination: join(dir, 'p.log') } } } })
    const own = new MemoryStream()
    const child = parent.child({ destination: own, format: 'json', pino: { redact: ['password'] } })
    parent.write(2, 'http', 'mine', ['password', 'x'], request_context('r-4', undefined, child))
    t.match(JSON.parse(own.lines()[0]!), { msg: 'mine', rid: 'r-4', password: '[Redacted]' })
    child.close()
    parent.close()
  })
})
