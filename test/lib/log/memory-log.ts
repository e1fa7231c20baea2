// Test helper: the process-wide logger writing to memory. Apart from capture.ts, which must not load the log module:
// a test that sets FW_LOG_LEVEL before loading it imports capture.ts first.
import type { Test } from 'tap'
import { LogFormat, LogLevel, configure, set_clock } from '../../../lib/log/index.js'
import { MemoryStream, T0 } from './capture.js'

/**
 * Sends the process-wide log to a memory stream with the clock at `T0`, reset to Info, KV and no pino options before
 * each test of `t`: the set-up of the tests of the process-wide logger.
 */
export function memory_log(t: Test): MemoryStream {
  const out = new MemoryStream()
  configure({ destination: out })
  set_clock(() => T0)
  t.beforeEach(() => {
    configure({ level: LogLevel.Info, format: LogFormat.KV, pino: {} })
    out.clear()
  })
  return out
}
