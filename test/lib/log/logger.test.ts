import t from 'tap'
import { MemoryStream, T0 } from './capture.js'
import { ERR_LOG_BAD_KEY, ERR_LOG_BAD_NAME, ERR_LOG_ODD_PAIRS } from '../../../lib/log/errors.js'
import { LogFormat, LogLevel, Logger, configure, logger, set_clock } from '../../../lib/log/index.js'

const out = new MemoryStream()
configure({ destination: out, level: LogLevel.Info, format: LogFormat.KV })
set_clock(() => T0)

/** The lines one test wrote. */
function lines_of(fn: () => void): string[] {
  out.clear()
  fn()
  return out.lines()
}

t.beforeEach(() => configure({ level: LogLevel.Info, format: LogFormat.KV, async: false }))

t.test('Logger', async (t) => {
  t.test('takes a name of 1-64 characters without whitespace, brackets or control characters', async (t) => {
    t.equal(new Logger('db.pool-1').name, 'db.pool-1')
    t.equal(new Logger('x'.repeat(64)).name.length, 64)
    for (const bad of ['', 'a b', 'a[b', 'a]b', 'tab\t', 'x'.repeat(65), 7]) {
      t.throws(() => new Logger(bad as string), { code: ERR_LOG_BAD_NAME.code }, String(bad))
    }
    t.throws(() => new Logger('a b'), {
      message: 'logger name must be 1-64 characters without whitespace, brackets or control characters; got "a b"',
    })
  })

  t.test(
    'refuses a name holding a bidirectional control or a line separator, which a line would show raw',
    async (t) => {
      const controls = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e']
      controls.push('\u2066', '\u2067', '\u2068', '\u2069', '\u2028', '\u2029', '\u0085', '\u007f', '\u001b')
      for (const c of controls) {
        const name = `db${c}gnp.exe`
        const label = `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`
        t.throws(() => new Logger(name), { code: ERR_LOG_BAD_NAME.code }, label)
        t.throws(() => logger(name), { code: ERR_LOG_BAD_NAME.code }, label)
      }
      t.equal(new Logger('db‐pool·é').name, 'db‐pool·é', 'other characters pass')
    },
  )

  t.test('writes each level under its label and the logger name', async (t) => {
    configure({ level: LogLevel.Trace })
    const db = new Logger('db')
    const lines = lines_of(() => {
      db.trace('t {}', 1)
      db.debug('d {}', 2)
      db.info('i {}', 3)
      db.warn('w {}', 4)
      db.error('e {}', 5)
      db.critical('c {}', 6)
    })
    t.same(lines, [
      '03:04:05.678 [db] [trace] t 1',
      '03:04:05.678 [db] [debug] d 2',
      '03:04:05.678 [db] [info] i 3',
      '03:04:05.678 [db] [warning] w 4',
      '03:04:05.678 [db] [error] e 5',
      '03:04:05.678 [db] [critical] c 6',
    ])
  })

  t.test('writes nothing below the level, and nothing at all when it is Off', async (t) => {
    const db = new Logger('db')
    configure({ level: LogLevel.Warn })
    t.same(
      lines_of(() => {
        db.trace('x')
        db.debug('x')
        db.info('x')
        db.warn('shown')
      }),
      ['03:04:05.678 [db] [warning] shown'],
    )
    configure({ level: LogLevel.Off })
    t.same(
      lines_of(() => {
        db.critical('x')
        db.log(LogLevel.Critical, 'x')
        db.logf(LogLevel.Error, 'x', 'k', 1)
      }),
      [],
    )
  })

  t.test('shares one level, format and destination with every other logger', async (t) => {
    const a = new Logger('a')
    const b = new Logger('b')
    a.set_level(LogLevel.Error)
    t.equal(b.level(), 'error')
    t.equal(b.enabled(LogLevel.Warn), false)
    b.set_format(LogFormat.JSON)
    t.same(
      lines_of(() => a.error('e')),
      [`{"level":"error","msg":"e","time":${T0},"logger":"a"}`],
    )
    a.set_async(true)
    b.set_async(false)
    t.equal(a.enabled(LogLevel.Critical), true)
  })
})

t.test('Logger.log', async (t) => {
  t.test('logs at a level chosen at run time and never at Off', async (t) => {
    configure({ level: LogLevel.Debug })
    const l = new Logger('svc')
    t.same(
      lines_of(() => {
        l.log(LogLevel.Debug, 'a {}', 1)
        l.log(LogLevel.Trace, 'hidden')
        l.log(LogLevel.Off, 'never')
      }),
      ['03:04:05.678 [svc] [debug] a 1'],
    )
    t.throws(() => l.log('loud' as LogLevel, 'x'), { code: 'FW_ERR_LOG_BAD_LEVEL' })
  })

  t.test('adds an Error argument as the err field, with its stack on the same line', async (t) => {
    const err = new Error('disk full')
    const [line] = lines_of(() => new Logger('svc').error('save failed: {}', err))
    t.equal(line, `03:04:05.678 [svc] [error] save failed: Error: disk full err=${JSON.stringify(err.stack)}`)
  })
})

t.test('Logger.error with an Error carrying credentials in its own fields', async (t) => {
  const err = Object.assign(
    new Error('Request failed with status code 401', { cause: { headers: { Cookie: 'sid=1' } } }),
    {
      config: { headers: { Authorization: 'Bearer tok', Accept: 'application/json' }, data: { password: 'pw' } },
    },
  )
  const api = new Logger('api')

  t.test('writes their values as [redacted] in JSON', async (t) => {
    configure({ format: LogFormat.JSON })
    const [line] = lines_of(() => api.error('call failed: {}', err))
    t.match(JSON.parse(line!), {
      msg: 'call failed: Error: Request failed with status code 401',
      err: {
        config: { headers: { Authorization: '[redacted]', Accept: 'application/json' }, data: { password: 'pw' } },
        cause: { headers: { Cookie: '[redacted]' } },
      },
    })
    t.notMatch(line, /Bearer tok|sid=1/)
  })

  t.test('and in KV, where the err field shows its causes and a nested error its fields', async (t) => {
    const [line, nested] = lines_of(() => {
      api.error('call failed: {}', err)
      api.logf(LogLevel.Info, 'retrying', 'last', { err })
    })
    t.match(line, /caused by: \{\\"headers\\":\{\\"Cookie\\":\\"\[redacted\]\\"\}\}"$/)
    t.match(nested, /\\"Authorization\\":\\"\[redacted\]\\"/)
    t.notMatch(`${line} ${nested}`, /Bearer tok|sid=1/)
  })

  t.test("a user's pino redact path reaches the error's own fields too", async (t) => {
    configure({ format: LogFormat.JSON, pino: { redact: ['err.config.data.password'] } })
    t.teardown(() => configure({ pino: {} }))
    const [line] = lines_of(() => api.error('call failed: {}', err))
    t.match(JSON.parse(line!), {
      err: { config: { headers: { Authorization: '[redacted]' }, data: { password: '[Redacted]' } } },
    })
  })
})

t.test('Logger.logf', async (t) => {
  t.test('writes alternating keys and values as fields', async (t) => {
    const l = new Logger('shop')
    t.same(
      lines_of(() => l.logf(LogLevel.Info, 'order placed', 'order_id', 981, 'total', 42.5, 'coupon', undefined)),
      ['03:04:05.678 [shop] [info] order placed order_id=981 total=42.5 coupon=null'],
    )
    t.same(
      lines_of(() => l.logf(LogLevel.Warn, 'no fields')),
      ['03:04:05.678 [shop] [warning] no fields'],
    )
  })

  t.test('keeps numbers as numbers in JSON', async (t) => {
    configure({ format: LogFormat.JSON })
    t.same(
      lines_of(() => new Logger('shop').logf(LogLevel.Info, 'paid', 'total', 42.5, 'qty', 3, 'ok', true)),
      [`{"level":"info","msg":"paid","time":${T0},"logger":"shop","total":42.5,"qty":3,"ok":true}`],
    )
  })

  t.test('caps a long message and shows {} as written', async (t) => {
    const [line] = lines_of(() => new Logger('x').logf(LogLevel.Info, `{} ${'m'.repeat(9000)}`))
    t.equal(line, `03:04:05.678 [x] [info] {} ${'m'.repeat(8189)}...[truncated 811 chars]`)
  })

  t.test('throws a coded error for an odd count or a key that is not a string, whatever the level', async (t) => {
    const l = new Logger('x')
    configure({ level: LogLevel.Off })
    const odd: unknown[] = ['a', 1, 'b']
    t.throws(() => l.logf(LogLevel.Info, 'm', ...odd), {
      code: ERR_LOG_ODD_PAIRS.code,
      message: 'logf() takes alternating key/value arguments after the message; got 3 arguments',
    })
    const bad_key: unknown[] = [7, 'seven']
    t.throws(() => l.logf(LogLevel.Info, 'm', ...bad_key), {
      code: ERR_LOG_BAD_KEY.code,
      message: 'logf() keys must be strings; got 7',
    })
    configure({ level: LogLevel.Info })
    t.same(
      lines_of(() => t.throws(() => l.logf(LogLevel.Info, 'm', ...odd))),
      [],
    )
  })

  t.test('makes an odd count or a non-string key a compile-time error', async (t) => {
    const l = new Logger('x')
    // @ts-expect-error the value of 'b' is missing
    t.throws(() => l.logf(LogLevel.Info, 'm', 'a', 1, 'b'), { code: 'FW_ERR_LOG_ODD_PAIRS' })
    // @ts-expect-error a key must be a string
    t.throws(() => l.logf(LogLevel.Info, 'm', 1, 2), { code: 'FW_ERR_LOG_BAD_KEY' })
    // @ts-expect-error a level must be a LogLevel
    t.throws(() => l.logf('loud', 'm'), { code: 'FW_ERR_LOG_BAD_LEVEL' })
    t.same(
      lines_of(() => l.logf(LogLevel.Info, 'ok', 'a', 1, 'b', { c: 2 })),
      ['03:04:05.678 [x] [info] ok a=1 b="{\\"c\\":2}"'],
    )
  })
})
