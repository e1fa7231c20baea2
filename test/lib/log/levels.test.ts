import t from 'tap'
import { ERR_LOG_BAD_LEVEL } from '../../../lib/log/errors.js'
import { LABELS, LEVELS, LogLevel, OFF, parse_level, severity_of } from '../../../lib/log/levels.js'

t.test('LogLevel', async (t) => {
  t.test('names the seven levels of the spec in increasing severity', async (t) => {
    t.same(Object.keys(LogLevel), ['Trace', 'Debug', 'Info', 'Warn', 'Error', 'Critical', 'Off'])
    t.same(Object.values(LogLevel), ['trace', 'debug', 'info', 'warn', 'error', 'critical', 'off'])
    t.same(Object.values(LogLevel).map(severity_of), [0, 1, 2, 3, 4, 5, 6])
    t.same(LEVELS, Object.values(LogLevel))
    t.equal(OFF, severity_of(LogLevel.Off))
  })

  t.test('labels Warn as warning and every other level by its name', async (t) => {
    t.same(LABELS, ['trace', 'debug', 'info', 'warning', 'error', 'critical'])
  })
})

t.test('parse_level', async (t) => {
  t.test('accepts every name the spec lists', async (t) => {
    const expected: Array<[string, LogLevel]> = [
      ['trace', 'trace'],
      ['debug', 'debug'],
      ['info', 'info'],
      ['warn', 'warn'],
      ['warning', 'warn'],
      ['error', 'error'],
      ['critical', 'critical'],
      ['fatal', 'critical'],
      ['off', 'off'],
      ['never', 'off'],
      ['none', 'off'],
      ['silent', 'off'],
      ['0', 'off'],
    ]
    for (const [text, level] of expected) t.equal(parse_level(text), level, text)
  })

  t.test('ignores case and surrounding spaces', async (t) => {
    t.equal(parse_level('  WARNING '), 'warn')
    t.equal(parse_level('Debug'), 'debug')
    t.equal(parse_level('\tOFF\n'), 'off')
  })

  t.test('falls back to Info for any other text', async (t) => {
    for (const text of ['', 'verbose', 'warnings', '1', 'err', 'toString', '__proto__'])
      t.equal(parse_level(text), 'info', text)
  })
})

t.test('severity_of', async (t) => {
  t.test('rejects a value that is not a level with its code and the value quoted', async (t) => {
    t.throws(() => severity_of('verbose' as LogLevel), {
      code: ERR_LOG_BAD_LEVEL.code,
      message: 'log level must be one of trace, debug, info, warn, error, critical, off; got "verbose"',
    })
    t.throws(() => severity_of(3 as unknown as LogLevel), { code: 'FW_ERR_LOG_BAD_LEVEL', message: /got 3$/ })
    t.throws(() => severity_of('Info' as LogLevel), { code: 'FW_ERR_LOG_BAD_LEVEL' })
  })
})
