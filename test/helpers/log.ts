// Test helper: fw's log lines in memory, in a chosen format and level, until the test ends.
import * as log from '../../lib/log/index.js'
import { MemoryStream } from '../lib/log/capture.js'
import type { Test } from 'tap'
import type { Teardown } from './build.js'

/** Sends fw's lines to memory in `format` at `level` (synchronously) until the test ends, then back to stdout. */
export function capture_log(t: Teardown, format: log.LogFormat = 'kv', level: log.LogLevel = 'info'): MemoryStream {
  const out = new MemoryStream()
  const saved_level = log.level()
  log.configure({ destination: out, format, level, async: false })
  t.teardown(() => log.configure({ destination: 1, format: 'kv', level: saved_level }))
  return out
}

/** Asserts that `lines` hold no error line and the info line of a client gone before its body was read. */
export function logged_client_gone(t: Test, lines: readonly string[]): void {
  t.notOk(
    lines.some((l) => l.includes('[error]')),
    'no error line: ' + lines.filter((l) => l.includes('[error]')).join(' | '),
  )
  t.ok(
    lines.some((l) => l.includes('[info]') && l.includes('client went away before its body was read')),
    lines.join(' | '),
  )
}
