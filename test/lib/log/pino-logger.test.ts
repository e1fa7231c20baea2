import Fastify from 'fastify'
import { setImmediate as tick } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { T0, parse_kv } from './capture.js'
import { memory_log } from './memory-log.js'
import { LogFormat, LogLevel, configure, pino_logger, run_with_context } from '../../../lib/log/index.js'

const out = memory_log(t)

t.test('pino_logger', async (t) => {
  t.test('is a pino logger at fw’s level that Fastify accepts as its loggerInstance', async (t) => {
    const logger = pino_logger()
    t.equal(logger.level, 'info')
    for (const m of ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'child'] as const)
      t.type(logger[m], 'function')
    const app = Fastify({ loggerInstance: logger })
    await app.ready()
    t.teardown(() => app.close())
  })

  t.test('takes a name as a Logger does, refusing one a line would show raw', async (t) => {
    for (const bad of ['', 'a b', 'a]b', 'db\u202egnp.exe', 'db\u2066x', 'db\u001b[31m', 'x'.repeat(65)]) {
      t.throws(() => pino_logger(bad), { code: 'FW_ERR_LOG_BAD_NAME' }, escape(bad))
    }
    pino_logger('fastify-admin').info('up')
    t.equal(parse_kv(out.lines().at(-1)!).name, 'fastify-admin')
  })

  t.test('writes Fastify’s request lines as fw KV lines with the request id and serialized request', async (t) => {
    const app = Fastify({ loggerInstance: pino_logger() })
    app.get('/hi', async (req) => {
      req.log.info({ user: 7 }, 'hello %s', 'there')
      return { ok: true }
    })
    t.teardown(() => app.close())
    await app.inject('/hi')
    const lines = out.lines().map(parse_kv)
    t.same(
      lines.map((l) => [l.name, l.label, l.msg]),
      [
        ['fastify', 'info', 'incoming request'],
        ['fastify', 'info', 'hello there'],
        ['fastify', 'info', 'request completed'],
      ],
    )
    t.same(lines[0]!.pairs, [
      ['reqId', 'req-1'],
      ['req', '{"method":"GET","url":"/hi","host":"localhost:80","remoteAddress":"127.0.0.1"}'],
    ])
    t.same(lines[1]!.pairs, [
      ['reqId', 'req-1'],
      ['user', '7'],
    ])
    t.same(lines[2]!.pairs.slice(0, 2), [
      ['reqId', 'req-1'],
      ['res', '{"statusCode":200}'],
    ])
    t.equal(lines[2]!.pairs[2]![0], 'responseTime')
  })

  t.test('writes a failing request’s error with its stack', async (t) => {
    const app = Fastify({ loggerInstance: pino_logger('http') })
    const err = new Error('boom')
    app.get('/boom', async () => {
      throw err
    })
    t.teardown(() => app.close())
    await app.inject('/boom')
    const failed = out
      .lines()
      .map(parse_kv)
      .find((l) => l.label === 'error')!
    t.equal(failed.name, 'http')
    t.equal(failed.msg, 'boom')
    t.same(
      failed.pairs.find(([k]) => k === 'err'),
      ['err', err.stack],
    )
  })

  t.test('writes a credential header in an error’s own fields as [redacted], as fw’s loggers do', async (t) => {
    configure({ format: LogFormat.JSON })
    const err = Object.assign(new Error('Request failed with status code 401'), {
      config: { headers: { Authorization: 'Bearer tok', 'x-api-key': 'k-1', Accept: 'application/json' } },
    })
    pino_logger().error(err)
    pino_logger().child({}).warn({ err }, 'upstream refused')
    const lines = out.lines().map((l) => JSON.parse(l) as { err: unknown })
    const redacted = { headers: { Authorization: '[redacted]', 'x-api-key': '[redacted]', Accept: 'application/json' } }
    t.match(lines, [{ err: { config: redacted } }, { err: { config: redacted } }])
    t.notMatch(out.text(), /Bearer tok|k-1/)
  })

  t.test('writes JSON lines in the JSON format, with the request context', async (t) => {
    configure({ format: LogFormat.JSON })
    const logger = pino_logger()
    run_with_context({ request_id: 'r-9' }, () =>
      logger.child({ reqId: 'req-5' }).warn({ n: 1, nested: { a: [1] } }, 'careful'),
    )
    t.same(out.lines(), [
      `{"level":"warning","msg":"careful","time":${T0},"logger":"fastify","rid":"r-9","reqId":"req-5","n":1,"nested":{"a":[1]}}`,
    ])
  })

  t.test('keeps its level in step with set_level, and fw’s level filters old children too', async (t) => {
    const logger = pino_logger()
    const child = logger.child({ reqId: 'old' })
    configure({ level: LogLevel.Critical })
    t.equal(logger.level, 'fatal')
    configure({ level: LogLevel.Off })
    t.equal(logger.level, 'silent')
    configure({ level: LogLevel.Debug })
    t.equal(logger.level, 'debug')
    t.equal(logger.isLevelEnabled('debug'), true)
    configure({ level: LogLevel.Error })
    child.warn('dropped')
    logger.fatal('kept')
    t.same(out.lines(), ['03:04:05.678 [fastify] [critical] kept'])
  })

  t.test('accepts every pino call shape', async (t) => {
    configure({ level: LogLevel.Trace })
    const logger = pino_logger('p')
    const err = new TypeError('bad input')
    logger.info('plain')
    // pino's typings check printf arguments; these calls test the run-time handling of any arguments.
    const info = logger.info.bind(logger) as (...args: unknown[]) => void
    info('%s is %d years, %i%% done, %j %o', 'Ada', 36.5, 99.9, [1], [2])
    info('missing %s %s', 'one')
    logger.info({ msg: 'from the object', k: 'v' })
    logger.info({ k: 'v' })
    logger.error(err)
    logger.error(err, 'wrapped %s', 'message')
    logger.debug(42 as unknown as string)
    logger.trace({ undef: undefined, n: null })
    t.same(out.lines(), [
      '03:04:05.678 [p] [info] plain',
      '03:04:05.678 [p] [info] Ada is 36.5 years, 99% done, [1] [2]',
      '03:04:05.678 [p] [info] missing one %s',
      '03:04:05.678 [p] [info] from the object k=v',
      '03:04:05.678 [p] [info] "" k=v',
      `03:04:05.678 [p] [error] bad input err=${JSON.stringify(err.stack)}`,
      `03:04:05.678 [p] [error] wrapped message err=${JSON.stringify(err.stack)}`,
      '03:04:05.678 [p] [debug] 42',
      '03:04:05.678 [p] [trace] "" undef=null n=null',
    ])
  })

  t.test('applies serializers given to a child', async (t) => {
    const child = pino_logger().child(
      {},
      { serializers: { user: (u: { id: number; password: string }) => ({ id: u.id }) } },
    )
    child.info({ user: { id: 3, password: 'secret' } }, 'login')
    t.same(out.lines(), ['03:04:05.678 [fastify] [info] login user="{\\"id\\":3}"'])
  })

  t.test('flushes fw’s destination when pino is asked to', async (t) => {
    const flushed = await new Promise<boolean>((resolve) => pino_logger().flush(() => resolve(true)))
    t.equal(flushed, true)
  })

  // Every App makes one (adapters/server.ts): an App built and dropped, in tests or per tenant, must not leave its logger
  // alive through the level watcher.
  t.test('is collected once dropped: the level watcher does not keep it alive', async (t) => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const refs = Array.from({ length: 20 }, () => new WeakRef(pino_logger()))
    for (let i = 0; i < 4; i++) {
      gc()
      await tick()
    }
    t.equal(refs.filter((r) => r.deref() !== undefined).length, 0, 'every dropped pino_logger was collected')
    // A logger still in use keeps following the level.
    const kept = pino_logger()
    gc()
    await tick()
    configure({ level: LogLevel.Warn })
    t.equal(kept.level, 'warn')
  })
})
