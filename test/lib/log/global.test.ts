import { readFileSync, renameSync } from 'node:fs'
import t from 'tap'
import { MemoryStream, T0, set_env } from './capture.js'

// The global logger reads FW_LOG_LEVEL and FW_LOG_FORMAT when the module loads, so they are set before it is imported.
process.env.FW_LOG_LEVEL = 'debug'
process.env.FW_LOG_FORMAT = 'json'
const log = await import('../../../lib/log/index.js')
delete process.env.FW_LOG_LEVEL
delete process.env.FW_LOG_FORMAT

const out = new MemoryStream()

t.test('module load', async (t) => {
  t.test('takes the level from FW_LOG_LEVEL and the format from FW_LOG_FORMAT', async (t) => {
    t.equal(log.level(), 'debug')
    log.configure({ destination: out })
    log.set_clock(() => T0)
    log.debug('from {}', 'env')
    t.same(out.lines(), [`{"level":"debug","msg":"from env","time":${T0},"logger":"fw"}`])
  })
})

t.test('global', async (t) => {
  t.test('is one logger named fw, the same one every time', async (t) => {
    t.equal(log.global(), log.global())
    t.equal(log.global().name, 'fw')
    t.type(log.global(), log.Logger)
  })

  t.test('shares its level and format with the module functions', async (t) => {
    log.global().set_level(log.LogLevel.Warn)
    t.equal(log.level(), 'warn')
    log.set_level(log.LogLevel.Trace)
    t.equal(log.global().level(), 'trace')
    t.equal(log.enabled(log.LogLevel.Trace), true)
    t.equal(log.global().enabled(log.LogLevel.Off), false)
  })
})

t.test('module functions', async (t) => {
  t.test('write through the global logger at each level', async (t) => {
    log.configure({ level: log.LogLevel.Trace, format: log.LogFormat.KV })
    out.clear()
    log.trace('t')
    log.debug('d')
    log.info('i {}', 1)
    log.warn('w')
    log.error('e')
    log.critical('c')
    log.log(log.LogLevel.Info, 'dynamic {}', 'level')
    log.logf(log.LogLevel.Info, 'structured', 'k', 'v')
    t.same(out.lines(), [
      '03:04:05.678 [fw] [trace] t',
      '03:04:05.678 [fw] [debug] d',
      '03:04:05.678 [fw] [info] i 1',
      '03:04:05.678 [fw] [warning] w',
      '03:04:05.678 [fw] [error] e',
      '03:04:05.678 [fw] [critical] c',
      '03:04:05.678 [fw] [info] dynamic level',
      '03:04:05.678 [fw] [info] structured k=v',
    ])
  })

  t.test('set the format and async mode, and flush resolves in either mode', async (t) => {
    log.configure({ level: log.LogLevel.Info })
    log.set_format(log.LogFormat.JSON_PRETTY)
    out.clear()
    log.info('pretty')
    t.equal(out.text(), `{\n  "level": "info",\n  "msg": "pretty",\n  "time": ${T0},\n  "logger": "fw"\n}\n`)
    log.set_format(log.LogFormat.KV)
    const file = `${t.testdir()}/async.log`
    log.set_destination(file)
    log.set_async(true)
    log.info('buffered')
    await log.flush()
    log.set_async(false)
    await log.flush()
    log.set_destination(out)
    t.equal(readFileSync(file, 'utf8'), '03:04:05.678 [fw] [info] buffered\n')
  })

  t.test('set_destination with the same path reopens it, as a SIGHUP handler after logrotate does', async (t) => {
    log.configure({ level: log.LogLevel.Info, format: log.LogFormat.KV, async: true })
    t.teardown(() => log.configure({ destination: out, async: false }))
    const file = `${t.testdir()}/app.log`
    log.set_destination(file)
    log.info('one')
    renameSync(file, `${file}.1`)
    log.set_destination(file)
    log.info('two')
    await log.flush()
    for (let i = 0; i < 100 && readFileSync(`${file}.1`, 'utf8') === ''; i++)
      await new Promise((r) => setTimeout(r, 20))
    t.equal(readFileSync(`${file}.1`, 'utf8'), '03:04:05.678 [fw] [info] one\n')
    t.equal(readFileSync(file, 'utf8'), '03:04:05.678 [fw] [info] two\n')
  })

  t.test('read the level and format from named variables', async (t) => {
    set_env(t, { MY_LEVEL: 'error', MY_FORMAT: 'json-pretty' })
    t.teardown(() => log.configure({ level: log.LogLevel.Info, format: log.LogFormat.KV }))
    t.equal(log.set_level_from_env('MY_LEVEL'), true)
    t.equal(log.set_format_from_env('MY_FORMAT'), true)
    t.equal(log.set_level_from_env(), false)
    t.equal(log.set_format_from_env(), false)
    t.equal(log.level(), 'error')
    out.clear()
    log.error('x')
    t.equal(out.lines()[1], '  "level": "error",')
  })
})

t.test('logger', async (t) => {
  t.test('returns a logger with its own name and the shared settings', async (t) => {
    out.clear()
    const http = log.logger('http')
    http.info('GET {} {}', '/orders', 200)
    t.same(out.lines(), ['03:04:05.678 [http] [info] GET /orders 200'])
    t.throws(() => log.logger('two words'), { code: 'FW_ERR_LOG_BAD_NAME' })
  })
})
