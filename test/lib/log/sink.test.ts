import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { MemoryStream } from './capture.js'
import { plain_node } from '../../helpers/plain-node.js'
import { ERR_LOG_BAD_DESTINATION, ERR_LOG_OPEN_FAILED } from '../../../lib/log/errors.js'
import { check_destination, open_sink, type LogDestination } from '../../../lib/log/sink.js'

const CHILD = fileURLToPath(new URL('./fixtures/child.ts', import.meta.url))

t.test('check_destination', async (t) => {
  t.test('accepts a path, a descriptor and a writable stream', async (t) => {
    const stream = new MemoryStream()
    t.equal(check_destination('app.log'), 'app.log')
    t.equal(check_destination(1), 1)
    t.equal(check_destination(stream), stream)
  })

  t.test('rejects anything else with its code', async (t) => {
    t.throws(() => check_destination(''), {
      code: ERR_LOG_BAD_DESTINATION.code,
      message: 'log destination must be a file path, a file descriptor or a writable stream; got ""',
    })
    t.throws(() => check_destination(-1), { code: 'FW_ERR_LOG_BAD_DESTINATION', message: /got -1$/ })
    t.throws(() => check_destination(1.5), { code: 'FW_ERR_LOG_BAD_DESTINATION', message: /got 1.5$/ })
    t.throws(() => check_destination({} as LogDestination), {
      code: 'FW_ERR_LOG_BAD_DESTINATION',
      message: /got an object without write\(\)$/,
    })
    t.throws(() => check_destination(null as unknown as LogDestination), {
      code: 'FW_ERR_LOG_BAD_DESTINATION',
      message: /got null$/,
    })
  })
})

t.test('open_sink', async (t) => {
  t.test('appends to a file, creating missing folders, each line at once in sync mode', async (t) => {
    const dir = t.testdir({ 'app.log': 'before\n' })
    const sink = open_sink(join(dir, 'app.log'), false)
    sink.write('one\n')
    t.equal(readFileSync(join(dir, 'app.log'), 'utf8'), 'before\none\n')
    const nested = join(dir, 'a', 'b', 'c.log')
    const second = open_sink(nested, false)
    second.write('two\n')
    t.equal(readFileSync(nested, 'utf8'), 'two\n')
    t.equal(sink.is_tty, false)
    sink.close()
    second.close()
  })

  t.test('buffers in async mode until flushed', async (t) => {
    const file = join(t.testdir(), 'async.log')
    const sink = open_sink(file, true)
    for (let i = 0; i < 1000; i++) sink.write(`line ${i}\n`)
    t.ok(readFileSync(file, 'utf8').split('\n').length < 1001, 'not all lines are written before the flush')
    await sink.flush()
    t.equal(readFileSync(file, 'utf8').split('\n').length, 1001)
    await sink.flush()
    sink.close()
  })

  t.test('writes a line at once with write_sync, with the lines buffered before it', async (t) => {
    for (const async of [true, false]) {
      const file = join(t.testdir(), `urgent-${async}.log`)
      const sink = open_sink(file, async)
      for (let i = 0; i < 100; i++) sink.write(`queued ${i}\n`)
      sink.write_sync('urgent\n')
      const now = readFileSync(file, 'utf8').split('\n')
      // Only a write sonic-boom already started in the background may still be landing.
      t.ok(now.includes('urgent') && now.includes('queued 99') && now.length > 95, async ? 'async' : 'sync')
      await sink.flush()
      t.equal(readFileSync(file, 'utf8').split('\n').length, 102)
      sink.close()
    }
    const stream = new MemoryStream()
    open_sink(stream, true).write_sync('to a stream\n')
    t.equal(stream.text(), 'to a stream\n')
  })

  t.test('writes to a descriptor it does not close', async (t) => {
    const file = join(t.testdir(), 'fd.log')
    const fd = openSync(file, 'a')
    const sink = open_sink(fd, false)
    sink.write('via fd\n')
    sink.close()
    t.equal(readFileSync(file, 'utf8'), 'via fd\n')
    t.doesNotThrow(() => closeSync(fd), 'the descriptor is still open')
  })

  t.test('throws a coded error for a file it cannot open or a descriptor that is not open', async (t) => {
    const dir = t.testdir({ sub: {} })
    t.throws(() => open_sink(join(dir, 'sub'), false), {
      code: ERR_LOG_OPEN_FAILED.code,
      message: /^cannot open log destination ".*sub": EISDIR/,
    })
    t.throws(() => open_sink(9999, false), {
      code: 'FW_ERR_LOG_OPEN_FAILED',
      message: /^cannot open log destination fd 9999: EBADF/,
    })
  })

  t.test('hands lines to a stream and waits for it on flush', async (t) => {
    const stream = new MemoryStream(true)
    const sink = open_sink(stream, true)
    t.equal(sink.is_tty, true)
    sink.write('a\n')
    await sink.flush()
    t.equal(stream.text(), 'a\n')
    sink.close()
    t.equal(stream.listenerCount('error'), 0)
  })

  t.test('accepts an object with only write()', async (t) => {
    const got: string[] = []
    const sink = open_sink({ write: (chunk: string) => got.push(chunk) }, false)
    sink.write('x\n')
    await sink.flush()
    t.same(got, ['x\n'])
  })

  t.test('drops lines after a stream fails, without throwing', async (t) => {
    const stream = new MemoryStream()
    const sink = open_sink(stream, false)
    stream.emit('error', new Error('gone'))
    sink.write('dropped\n')
    await sink.flush()
    t.equal(stream.text(), '')
    const throwing = open_sink(
      {
        write: () => {
          throw new Error('broken')
        },
      },
      false,
    )
    t.doesNotThrow(() => throwing.write('x\n'))
  })
})

interface Ended {
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
}

function run_child(args: string[], close_stdout = false, env: NodeJS.ProcessEnv = {}): Promise<Ended> {
  return new Promise((resolve, reject) => {
    // A plain program: the runner's loader would listen for SIGTERM in it.
    const child = spawn(...plain_node(['--import', 'tsx', CHILD, ...args]), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    // Reading the first lines and then closing the pipe is what `cmd | head -1` does to a logging process.
    child.stdout.once('data', () => close_stdout && child.stdout.destroy())
    // A child that hangs (a write loop that never gives up) is ended, and shows as SIGKILL.
    const hung = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(hung)
      resolve({ code, signal, stderr })
    })
  })
}

/** The `i` of each line of the file, in the file's order (the child logs `i=0` to `i=N-1`). */
function line_numbers(file: string): number[] {
  const lines = readFileSync(file, 'utf8').split('\n')
  lines.pop()
  return lines.map((line) => Number(/ i=(\d+) /.exec(line)?.[1] ?? NaN))
}

/** Where `numbers` first differs from 0 to `n - 1`, or -1: a lost line and a line out of order both show. */
function first_gap(numbers: number[], n: number): number {
  for (let i = 0; i < Math.max(n, numbers.length); i++) if (numbers[i] !== i) return i
  return -1
}

t.test('async mode in a child process', async (t) => {
  t.jobs = 5
  const N = 20_000
  const cases: Array<[string, string, Ended]> = [
    ['exit', 'loses no line when the process ends on its own', { code: 0, signal: null, stderr: '' }],
    ['process-exit', 'loses no line on process.exit()', { code: 0, signal: null, stderr: '' }],
    [
      'SIGTERM',
      'loses no line on SIGTERM, and the signal still ends the process',
      { code: null, signal: 'SIGTERM', stderr: '' },
    ],
    [
      'SIGINT',
      'loses no line on SIGINT, and the signal still ends the process',
      { code: null, signal: 'SIGINT', stderr: '' },
    ],
    [
      'SIGTERM-handled',
      'flushes on SIGTERM and leaves the ending to the program’s own handler',
      { code: 3, signal: null, stderr: 'own handler\n' },
    ],
  ]
  // On process.exit() (and so under a program's own handler that calls it) a write under way in the thread pool lands
  // as Node's exit drains the pool, after the lines written at exit: every line is there, and only the ending that
  // waits for that write promises their order (docs/log.md).
  const check = (t: Test, file: string, mode: string): void => {
    const numbers = line_numbers(file)
    const ordered = mode !== 'process-exit' && mode !== 'SIGTERM-handled'
    t.equal(numbers.length, N)
    t.equal(first_gap(ordered ? numbers : numbers.sort((a, b) => a - b), N), -1, ordered ? 'in order' : 'every line')
  }
  for (const [mode, title, expected] of cases) {
    t.test(title, async (t) => {
      const file = join(t.testdir(), `${mode}.log`)
      t.same(await run_child([mode, file, String(N)]), expected)
      check(t, file, mode)
    })
  }

  // The thread pool busy (one thread, held by a PBKDF2) keeps the first background write under way while the process is
  // asked to end: a signal must wait for that write before the rest follows and the process ends.
  const busy = { UV_THREADPOOL_SIZE: '1', FW_TEST_BUSY_POOL: '400000' }
  for (const [mode, title, expected] of cases.filter(([mode]) => mode !== 'exit')) {
    t.test(`${title}, while a background write waits for the thread pool`, async (t) => {
      const file = join(t.testdir(), `${mode}.log`)
      t.same(await run_child([mode, file, String(N)], false, busy), expected)
      check(t, file, mode)
    })
  }

  t.test('writes the lines logged while the ones before a signal are written after them, in order', async (t) => {
    const file = join(t.testdir(), 'logging.log')
    t.same(await run_child(['SIGTERM-logging', file, String(N)], false, busy), cases[2]![2])
    const lines = readFileSync(file, 'utf8').split('\n')
    lines.pop()
    const before = lines.slice(0, N).map((line) => Number(/ i=(\d+) /.exec(line)?.[1] ?? NaN))
    const after = lines.slice(N).map((line) => Number(/ j=(\d+)$/.exec(line)?.[1] ?? NaN))
    t.equal(first_gap(before, N), -1, 'every line before the signal, in order, first')
    t.ok(after.length > 0, `${after.length} lines logged after the signal`)
    t.equal(first_gap(after, after.length), -1, 'then the later ones, in order')
  })
})

t.test('a closed stdout pipe (EPIPE)', async (t) => {
  t.jobs = 2

  t.test('never crashes a process logging synchronously', async (t) => {
    t.same(await run_child(['epipe-sync'], true), { code: 0, signal: null, stderr: 'survived\n' })
  })

  t.test('never crashes a process logging asynchronously', async (t) => {
    t.same(await run_child(['epipe-async'], true), { code: 0, signal: null, stderr: 'survived\n' })
  })
})

t.test('a destination that fails every write (a full disk, ENOSPC) in async mode', async (t) => {
  t.jobs = 3
  const said = 'fw log: destination failed (ENOSPC); further lines to it are dropped\nsurvived\n'
  const cases: Array<[string, string, Ended]> = [
    ['enospc-end', 'lets the process end on its own', { code: 0, signal: null, stderr: said }],
    ['enospc-exit', 'lets process.exit() end the process', { code: 0, signal: null, stderr: said }],
    ['enospc-critical', 'neither hangs on a critical line nor at exit', { code: 0, signal: null, stderr: said }],
  ]
  for (const [mode, title, expected] of cases)
    t.test(title, async (t) => {
      t.same(await run_child([mode, '', '200']), expected)
    })
})

t.test('a destination whose first failure (ENOSPC) is met by a synchronous flush in async mode', async (t) => {
  t.jobs = 2
  const failed = 'fw log: destination failed (ENOSPC); further lines to it are dropped\n'
  const cases: Array<[string, string, Ended]> = [
    [
      'enospc-first-exit',
      'lets process.exit() end the process, its exit hook writing the buffered lines',
      { code: 0, signal: null, stderr: `survived\n${failed}` },
    ],
    [
      'enospc-first-critical',
      'returns from a critical line, then lets the process end',
      { code: 0, signal: null, stderr: `${failed}survived\n` },
    ],
  ]
  for (const [mode, title, expected] of cases)
    t.test(title, async (t) => {
      t.same(await run_child([mode, '', '200']), expected)
    })
})
