// Where lines go: stdout, a file, a file descriptor or a writable stream, written synchronously or asynchronously
// (pino's sonic-boom), and never a crash when the destination fails.
import { fstatSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { isatty } from 'node:tty'
import pino from 'pino'
import { ERR_LOG_BAD_DESTINATION, ERR_LOG_OPEN_FAILED } from './errors.js'

/** The part of a writable stream a destination needs: `write`, and optionally `on`/`off` for errors and `isTTY`. */
export interface WritableLike {
  write(chunk: string, callback?: (error?: Error | null) => void): unknown
  on?(event: 'error', listener: (error: Error) => void): unknown
  off?(event: 'error', listener: (error: Error) => void): unknown
  readonly isTTY?: boolean
  readonly writableLength?: number
}

/**
 * Where lines go: a file path (appended to; missing folders are created), a file descriptor (1 is stdout), or a stream.
 */
export type LogDestination = string | number | WritableLike

/** An open destination. */
export interface Sink {
  /** Whether lines land on a terminal (colours are then wanted). */
  readonly is_tty: boolean
  write(line: string): void
  /**
   * Writes buffered lines, then `line`, before returning (a write already under way in the background lands on its
   * own).
   */
  write_sync(line: string): void
  /** Resolves once every line written so far has reached the destination; never rejects. */
  flush(): Promise<void>
  /**
   * Writes buffered lines now, blocking; for exit paths (a write already under way in the background lands on its own).
   */
  flush_sync(): void
  /** Flushes and releases what the sink opened (a file it opened is closed; a given descriptor or stream is not). */
  close(): void
}

/** Checks a destination's kind without opening it; a bad one throws `FW_ERR_LOG_BAD_DESTINATION`. */
export function check_destination(dest: LogDestination): LogDestination {
  if (
    typeof dest === 'number'
      ? Number.isInteger(dest) && dest >= 0
      : typeof dest === 'string'
        ? dest !== ''
        : typeof dest?.write === 'function'
  ) {
    return dest
  }
  throw ERR_LOG_BAD_DESTINATION(dest)
}

/**
 * Opens a destination; a file that cannot be opened or a descriptor that is not open throws `FW_ERR_LOG_OPEN_FAILED`.
 */
export function open_sink(dest: LogDestination, async: boolean): Sink {
  check_destination(dest)
  if (typeof dest === 'object') return new StreamSink(dest)
  const what = typeof dest === 'number' ? `fd ${dest}` : JSON.stringify(dest)
  try {
    if (typeof dest === 'number') {
      fstatSync(dest)
      return new FdSink(dest, async, false)
    }
    mkdirSync(dirname(dest), { recursive: true })
    return new FdSink(openSync(dest, 'a'), async, true)
  } catch (err) {
    throw ERR_LOG_OPEN_FAILED(what, (err as Error).message, { cause: err })
  }
}

/** Says once, on stderr, that a destination failed; lines to it are dropped from then on. A closed pipe is not news. */
function report_failure(err: NodeJS.ErrnoException, fd: number): void {
  if (err.code === 'EPIPE' || fd === 2) return
  try {
    writeSync(2, `fw log: destination failed (${err.code ?? err.message}); further lines to it are dropped\n`)
  } catch {
    // stderr is gone as well: there is nowhere left to say it.
  }
}

/** sonic-boom in buffer mode: its typings only know string mode. */
type Boom = Omit<ReturnType<typeof pino.destination>, 'write'> & { write(chunk: Buffer): boolean }

/**
 * A file descriptor written through sonic-boom: each line at once (sync), or buffered and written in the background
 * (async).
 */
class FdSink implements Sink {
  readonly is_tty: boolean
  readonly #boom: Boom
  readonly #async: boolean
  readonly #owned: boolean
  #failed = false

  constructor(fd: number, async: boolean, owned: boolean) {
    this.is_tty = isatty(fd)
    this.#async = async
    this.#owned = owned
    // pino.destination flushes async buffers on exit and turns EPIPE into silent drops; the listener keeps other errors
    // from crashing. Buffer mode appends each line in constant time, where string mode re-measures the whole pending
    // chunk per line.
    this.#boom = pino.destination({ dest: fd, sync: !async, minLength: 0, contentMode: 'buffer' }) as unknown as Boom
    this.#boom.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.#failed) report_failure(err, fd)
      this.#failed = true
    })
  }

  write(line: string): void {
    if (this.#failed) return
    try {
      this.#boom.write(Buffer.from(line))
    } catch {
      this.#failed = true
    }
  }

  write_sync(line: string): void {
    if (!this.#async) return this.write(line)
    // Queued behind the buffered lines, then everything still buffered is written before returning (sonic-boom's own
    // synchronous flush; a write already under way in the background lands on its own).
    this.write(line)
    this.flush_sync()
  }

  flush(): Promise<void> {
    if (this.#failed || !this.#async) return Promise.resolve()
    return new Promise((resolve) => {
      const done = (): void => {
        this.#boom.off('drain', done)
        this.#boom.off('error', done)
        resolve()
      }
      this.#boom.on('drain', done)
      this.#boom.on('error', done)
      // An empty write queues behind every pending line, so the next drain means all of them are written.
      this.write('')
    })
  }

  flush_sync(): void {
    if (this.#failed || !this.#async) return
    try {
      this.#boom.flushSync()
    } catch {
      this.#failed = true
    }
  }

  close(): void {
    if (this.#owned && !this.#failed) this.#boom.end()
    else this.flush_sync()
  }
}

/** A writable stream: lines are handed to `write`; its errors are caught so they never crash the process. */
class StreamSink implements Sink {
  readonly is_tty: boolean
  readonly #stream: WritableLike
  #failed = false
  readonly #on_error = (): void => {
    this.#failed = true
  }

  constructor(stream: WritableLike) {
    this.#stream = stream
    this.is_tty = stream.isTTY === true
    stream.on?.('error', this.#on_error)
  }

  write(line: string): void {
    if (this.#failed) return
    try {
      this.#stream.write(line)
    } catch {
      this.#failed = true
    }
  }

  write_sync(line: string): void {
    this.write(line)
  }

  flush(): Promise<void> {
    if (this.#failed || this.#stream.writableLength === 0 || this.#stream.on === undefined) return Promise.resolve()
    return new Promise((resolve) => void this.#stream.write('', () => resolve()))
  }

  flush_sync(): void {
    // A stream offers no synchronous flush; what it buffers is its own to write.
  }

  close(): void {
    this.#stream.off?.('error', this.#on_error)
  }
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const
/** The flush of each core in async mode (the process-wide one, and an App's own destination). */
const signal_flushes = new Map<object, () => void>()

function on_signal(signal: NodeJS.Signals): void {
  const flushes = [...signal_flushes.values()]
  // One shot: fw stops listening before the other listeners run (it listens first), so a library that ends the process
  // only when it is alone (signal-exit) sees itself alone, and no listener waits for the other.
  for (const s of SIGNALS) process.off(s, on_signal)
  signal_flushes.clear()
  for (const flush of flushes) flush()
  // When no program handler listens, fw must not swallow the signal: raise it again for its usual effect.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

/**
 * While `owner`'s `flush` is set, the first SIGTERM or SIGINT writes buffered lines, then ends the process as it would
 * have.
 */
export function flush_on_signals(owner: object, flush: (() => void) | undefined): void {
  const before = signal_flushes.size
  if (flush === undefined) signal_flushes.delete(owner)
  else signal_flushes.set(owner, flush)
  if (before === 0 && signal_flushes.size !== 0) for (const s of SIGNALS) process.prependListener(s, on_signal)
  if (before !== 0 && signal_flushes.size === 0) for (const s of SIGNALS) process.off(s, on_signal)
}
