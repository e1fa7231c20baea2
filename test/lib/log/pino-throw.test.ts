// A pino option of the user's that throws (a mixin, formatters.log, a serializer, a redact path pino cannot parse, a
// transport target it cannot find) never turns a log call into a throw: the line is written without the pino options,
// with `log_error` saying why, and stderr says it once per process.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import t from 'tap'
import type { Test } from 'tap'
import { MemoryStream, T0, parse_kv } from './capture.js'
import { memory_log } from './memory-log.js'
import { plain_node } from '../../helpers/plain-node.js'
import { App } from '../../../index.js'
import {
  LogFormat,
  LogLevel,
  clear_context,
  configure,
  flush,
  info,
  logf,
  logger,
  pino_logger,
  set_context,
} from '../../../lib/log/index.js'
import type { PinoOptions } from '../../../lib/log/pino-line.js'

const CHILD = fileURLToPath(new URL('./fixtures/pino-throw.ts', import.meta.url))

const out = memory_log(t)

/** A function that throws `message`. */
const thrower = (message: string) => (): never => {
  throw new Error(message)
}

/**
 * The user's pino options that throw, each with the message it throws and whether it throws on every line (a
 * serializer throws on the lines that carry its key only).
 */
const THROWING: Array<[string, PinoOptions, boolean]> = [
  ['mixin', { mixin: thrower('mixin failed') }, true],
  ['formatters.log', { formatters: { log: thrower('formatters.log failed') } }, true],
  ['a serializer', { serializers: { user: thrower('a serializer failed') } }, false],
]

/** Runs the child fixture with `args` and gives its exit code and output. */
function run_child(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(...plain_node(['--import', 'tsx', CHILD, ...args]), { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Runs `fn` (which must not throw) and gives the lines it wrote. */
function lines_of(t: Test, fn: () => void): string[] {
  out.clear()
  t.doesNotThrow(fn)
  return out.lines()
}

/** The three lines each option is tried on: a message, an error under a named logger, fields of a serializer's key. */
function three_lines(): void {
  info('hello {}', 'there')
  logger('db').error('query failed', new Error('down'))
  logf(LogLevel.Warn, 'signed in', 'user', { id: 7 }, 'n', 2)
}

t.test('a throwing pino option: the line is written without the pino options, with log_error', async (t) => {
  for (const [what, pino, every] of THROWING) {
    const message = `${what} failed`
    /** The keys of a line the option threw on, or of one it did not (the serializer's lines without its key). */
    const keys = (keys: string[]): string[] => (every ? [...keys, 'log_error'] : keys)
    // A serializer is there to hide or shape a value: a line it throws on keeps none of the call's fields.
    const hidden = pino.serializers !== undefined
    t.test(`${what}, in KV`, async (t) => {
      configure({ format: LogFormat.KV, pino })
      const lines = lines_of(t, three_lines)
      const kv = lines.map(parse_kv)
      t.same(
        kv.map((l) => [l.name, l.label, l.msg, l.pairs.map(([k]) => k)]),
        [
          ['fw', 'info', 'hello there', keys([])],
          ['db', 'error', 'query failed', keys(['err'])],
          ['fw', 'warning', 'signed in', hidden ? ['log_error'] : ['user', 'n', 'log_error']],
        ],
      )
      for (const l of every ? kv : kv.slice(2)) t.equal(Object.fromEntries(l.pairs).log_error, message)
      t.match(kv[1]!.pairs[0]![1], /^Error: down\n {4}at /, 'an error field still shows its stack')
      t.equal(kv[0]!.time, '03:04:05.678')
    })

    t.test(`${what}, in JSON`, async (t) => {
      configure({ format: LogFormat.JSON, pino })
      const lines = lines_of(t, three_lines)
      const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
      const failed = every ? { log_error: message } : {}
      t.same(recs[0], { level: 'info', msg: 'hello there', time: T0, logger: 'fw', ...failed })
      t.match(recs[1], {
        level: 'error',
        msg: 'query failed',
        time: T0,
        logger: 'db',
        err: { type: 'Error', message: 'down', stack: /^Error: down\n/ },
        log_error: every ? message : undefined,
      })
      const fields = hidden ? {} : { user: { id: 7 }, n: 2 }
      t.same(recs[2], { level: 'warning', msg: 'signed in', time: T0, logger: 'fw', ...fields, log_error: message })
      t.same(
        Object.keys(recs[2]!),
        ['level', 'msg', 'time', 'logger', ...Object.keys(fields), 'log_error'],
        'fw’s order, level first',
      )
    })
  }
})

t.test('a throwing pino option keeps the rest of the line as fw writes it', async (t) => {
  t.test('a pair named level or log_error keeps its name', async (t) => {
    configure({ format: LogFormat.JSON, pino: { mixin: thrower('boom') } })
    const [line] = lines_of(t, () => logf(LogLevel.Info, 'm', 'level', 9, 'log_error', 'mine'))
    t.same(JSON.parse(line!), {
      fw_level: 'info',
      msg: 'm',
      time: T0,
      logger: 'fw',
      level: 9,
      log_error: 'mine',
      fw_log_error: 'boom',
    })
  })

  t.test('with redact or serializers, none of the call’s fields: what they hide stays hidden', async (t) => {
    for (const format of [LogFormat.JSON, LogFormat.KV]) {
      configure({ format, pino: { redact: ['password'], mixin: thrower('boom') } })
      set_context({ module: 'auth' })
      const [line] = lines_of(t, () => logf(LogLevel.Info, 'signed in', 'password', 'hunter2', 'msg', 'mine'))
      t.notMatch(line!, /hunter2|mine/, format)
      if (format === LogFormat.JSON)
        t.same(JSON.parse(line!), {
          level: 'info',
          fw_msg: 'signed in',
          time: T0,
          logger: 'fw',
          mod: 'auth',
          log_error: 'boom',
        })
      else
        t.same(
          [parse_kv(line!).msg, parse_kv(line!).pairs],
          [
            'signed in',
            [
              ['mod', 'auth'],
              ['log_error', 'boom'],
            ],
          ],
        )
      clear_context()
    }
  })

  t.test('a long thrown message is capped as values are, and a thrown non-Error is its text', async (t) => {
    configure({ format: LogFormat.JSON, pino: { mixin: thrower('x'.repeat(9000)) } })
    const [long] = lines_of(t, () => info('m'))
    t.equal((JSON.parse(long!) as { log_error: string }).log_error, `${'x'.repeat(8192)}...[truncated 808 chars]`)
    configure({
      pino: {
        mixin: () => {
          throw { code: 'E_MIX' }
        },
      },
    })
    const [other] = lines_of(t, () => info('m'))
    t.equal((JSON.parse(other!) as { log_error: string }).log_error, '{"code":"E_MIX"}')
  })

  t.test('lines the option does not throw on still go through it', async (t) => {
    let n = 0
    configure({
      format: LogFormat.JSON,
      pino: {
        mixin: () => {
          if (++n === 2) throw new Error('second')
          return { region: 'eu' }
        },
      },
    })
    const recs = lines_of(t, () => ['a', 'b', 'c'].forEach((m) => info(m))).map((l) => JSON.parse(l) as object)
    t.match(recs, [
      { msg: 'a', region: 'eu' },
      { msg: 'b', log_error: 'second' },
      { msg: 'c', region: 'eu' },
    ])
    t.notOk('log_error' in recs[0]! || 'log_error' in recs[2]!)
    t.notOk('region' in recs[1]!)
  })
})

t.test('pino options pino refuses when it builds its logger', async (t) => {
  t.test('a redact path pino cannot parse: every line is written without the options, with log_error', async (t) => {
    configure({ format: LogFormat.JSON, pino: { redact: ['a..b['], mixin: () => ({ region: 'eu' }) } })
    const recs = lines_of(t, () => {
      info('one')
      logger('db').info('two')
    }).map((l) => JSON.parse(l) as object)
    t.same(recs, [
      { level: 'info', msg: 'one', time: T0, logger: 'fw', log_error: 'Invalid redaction path (a..b[)' },
      { level: 'info', msg: 'two', time: T0, logger: 'db', log_error: 'Invalid redaction path (a..b[)' },
    ])
  })

  t.test('a transport target pino cannot find: lines go to the destination instead, with log_error', async (t) => {
    configure({ format: LogFormat.KV, pino: { transport: { target: 'fw-no-such-transport' } } })
    const kv = lines_of(t, () => info('kept')).map(parse_kv)
    t.same(
      kv.map((l) => [l.msg, l.pairs]),
      [['kept', [['log_error', 'unable to determine transport target for "fw-no-such-transport"']]]],
    )
  })
})

t.test(
  'a throwing mixin with a transport: the transport gets the line without the options, with log_error',
  async (t) => {
    const file = join(t.testdir(), 'out.log')
    configure({
      format: LogFormat.KV,
      pino: { transport: { target: 'pino/file', options: { destination: file } }, mixin: thrower('mixin failed') },
    })
    t.doesNotThrow(() => info('to the transport'))
    await flush()
    // pino/file's flush answers before its last asynchronous write lands (docs/log.md).
    for (let i = 0; i < 50 && !existsSync(file); i++) await sleep(20)
    for (let i = 0; i < 50 && readFileSync(file, 'utf8') === ''; i++) await sleep(20)
    t.same(JSON.parse(readFileSync(file, 'utf8')), {
      level: 'info',
      msg: 'to the transport',
      time: T0,
      logger: 'fw',
      log_error: 'mixin failed',
    })
    t.same(out.lines(), [], 'the destination gets nothing')
  },
)

t.test('an App’s access line and Fastify’s lines through pino_logger', async (t) => {
  t.test('a request still answers 200, and its access line is there with log_error', async (t) => {
    const app_out = new MemoryStream()
    const app = new App({
      access_log: LogLevel.Info,
      logger: { destination: app_out, pino: { mixin: thrower('mixin failed') } },
    })
    app.get('/hi', (_req, res) => void res.json('ok', true))
    t.teardown(() => app.close())
    const r = await app.inject({ url: '/hi', headers: { 'x-request-id': 'req-1' } })
    t.equal(r.statusCode, 200)
    t.same(JSON.parse(r.body), { ok: true })
    const lines = app_out.lines().map(parse_kv)
    const access = lines.find((l) => Object.fromEntries(l.pairs).status === '200')
    t.ok(access, 'the access line is written')
    t.match(Object.fromEntries(access!.pairs), { rid: 'req-1', status: '200', log_error: 'mixin failed' })
  })

  for (const format of [LogFormat.KV, LogFormat.JSON]) {
    t.test(`Fastify given pino_logger() answers, and its lines carry log_error (${format})`, async (t) => {
      configure({ format, pino: { formatters: { log: thrower('formatters.log failed') } } })
      const app = Fastify({ loggerInstance: pino_logger() })
      app.get('/hi', async (req) => {
        req.log.info({ user: 7 }, 'hello')
        return { ok: true }
      })
      t.teardown(() => app.close())
      const r = await app.inject('/hi')
      t.equal(r.statusCode, 200)
      const lines = out.lines()
      t.equal(lines.length, 3, 'incoming request, hello, request completed')
      const recs =
        format === LogFormat.JSON
          ? lines.map((l) => JSON.parse(l) as Record<string, unknown>)
          : lines.map((l) => ({ msg: parse_kv(l).msg, ...Object.fromEntries(parse_kv(l).pairs) }))
      t.match(recs, [
        { msg: 'incoming request', log_error: 'formatters.log failed' },
        { msg: 'hello', user: format === LogFormat.JSON ? 7 : '7', log_error: 'formatters.log failed' },
        { msg: 'request completed', log_error: 'formatters.log failed' },
      ])
    })
  }
})

t.test('stderr says once per process that a pino option threw', async (t) => {
  const ended = await run_child([])
  t.equal(ended.code, 0, ended.stderr)
  t.same(
    ended.stdout
      .split('\n')
      .slice(0, -1)
      .map((l) => (JSON.parse(l) as { msg: string; log_error: string | undefined }).log_error),
    ['mixin failed', 'mixin failed', 'mixin failed', 'formatters.log failed'],
  )
  t.equal(
    ended.stderr,
    'fw log: a pino option threw (mixin failed); lines it fails on are written without the pino options\n',
  )
})

t.test('a transport whose worker fails does not crash the process, and stderr says it once', async (t) => {
  const target = fileURLToPath(new URL('./fixtures/broken-transport.mjs', import.meta.url))
  const ended = await run_child(['transport', target])
  t.equal(ended.code, 0, ended.stderr)
  t.equal(ended.stdout, 'survived\n')
  t.equal(ended.stderr, 'fw log: the pino transport failed (target broke); further lines to it are dropped\n')
})
