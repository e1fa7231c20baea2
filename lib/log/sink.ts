// Where lines go: stdout, a file, a file descriptor or a writable stream, written synchronously or asynchronously
// (pino's sonic-boom), and never a crash when the destination fails.
import { fstatSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { isatty } from 'node:tty'
import pino from 'pino'
import { ERR_LOG_BAD_DESTINATION, ERR_LOG_OPEN_FAILED } from './errors.js'
import { within } from '../maybe-promise.js'

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
  /**
   * For a process about to end: waits (`ms` at most) until every line written so far has reached the destination, a
   * write under way in the background included; lines written meanwhile are held back, then written blocking, as every
   * later line is. Never rejects.
   */
  settle(ms: number): Promise<void>
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

/** Writes `text` on stderr: how the log module says what went wrong with its own output. */
export function tell(text: string): void {
  try {
    writeSync(2, text)
  } catch {
    // stderr is gone as well: there is nowhere left to say it.
  }
}

/** Says once, on stderr, that a destination failed; lines to it are dropped from then on. A closed pipe is not news. */
function report_failure(err: NodeJS.ErrnoException, fd: number): void {
  if (err.code !== 'EPIPE' && fd !== 2)
    tell(`fw log: destination failed (${err.code ?? err.message}); further lines to it are dropped\n`)
}

const EMPTY = Buffer.alloc(0)
const no_flush = (): void => {}
const LATE = Symbol('late')
/** sonic-boom's wait before it writes again to a full pipe (EAGAIN), in a synchronous write. */
const EAGAIN_PAUSE_MS = 100
/** How long a synchronous write of an ending process waits out a full pipe before the lines are dropped. */
const EAGAIN_WAIT_MS = 1000

/** sonic-boom in buffer mode: its typings only know string mode. */
type Boom = Omit<ReturnType<typeof pino.destination>, 'write'> & { write(chunk: Buffer): boolean }

/**
 * What sonic-boom (4.x) keeps of the lines it has not written yet, in buffer mode: the chunk a background write is
 * writing (`_writing`), then the queued chunks, each a list of lines and its length; `_len` counts them all.
 */
interface BoomQueue {
  fd: number
  destroyed: boolean
  _writing: boolean
  _writingBuf: Buffer
  _bufs: Buffer[][]
  _lens: number[]
  _len: number
  retryEAGAIN(err: Error, writing: number, left: number): boolean
}

/** Whether `boom` keeps its queue as `BoomQueue` says (the sonic-boom this module was written against). */
function is_queue(boom: Boom): boom is Boom & BoomQueue {
  const q = boom as Partial<BoomQueue>
  return (
    typeof q.fd === 'number' &&
    Buffer.isBuffer(q._writingBuf) &&
    Array.isArray(q._bufs) &&
    Array.isArray(q._lens) &&
    typeof q._len === 'number' &&
    typeof q.retryEAGAIN === 'function'
  )
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4))

/** Blocks the thread for `ms` (as sonic-boom does between two writes to a full pipe). */
function pause(ms: number): void {
  Atomics.wait(PAUSE, 0, 0, ms)
}

/**
 * A file descriptor written through sonic-boom: each line at once (sync), or buffered and written in the background
 * (async).
 */
class FdSink implements Sink {
  readonly is_tty: boolean
  readonly #boom: Boom
  readonly #async: boolean
  readonly #owned: boolean
  readonly #fd: number
  #failed = false
  /**
   * Undefined until `settle`; the lines written while it waits for the ones before them; then the synchronous writer
   * every later line goes to.
   */
  #ending: Buffer[] | Boom | undefined

  constructor(fd: number, async: boolean, owned: boolean) {
    this.is_tty = isatty(fd)
    this.#async = async
    this.#owned = owned
    this.#fd = fd
    this.#boom = this.#destination({ sync: !async })
  }

  /**
   * A sonic-boom on the sink's descriptor. pino.destination flushes async buffers on exit and turns EPIPE into silent
   * drops; the listener keeps other errors from crashing. Buffer mode appends each line in constant time, where string
   * mode re-measures the whole pending chunk per line.
   */
  #destination(options: { sync: boolean; retryEAGAIN?: () => boolean }): Boom {
    const boom = pino.destination({
      dest: this.#fd,
      minLength: 0,
      contentMode: 'buffer',
      ...options,
    }) as unknown as Boom
    boom.on('error', (err: NodeJS.ErrnoException) => this.#fail(boom, err))
    // sonic-boom's synchronous flush retries any error but EAGAIN forever (ENOSPC on a full disk: a 100 ms sleep, then
    // the same write), and pino.destination calls it on exit: met there first, a full disk would hang the ending
    // process, deaf to signals. fw's own flush of the same queue gives up as a background write does.
    if (!options.sync && is_queue(boom)) boom.flushSync = () => this.#flush_queue(boom)
    return boom
  }

  /**
   * The destination failed (`err`): said once, and lines are dropped from now on, so nothing is left to flush (pino
   * does the same for a closed pipe).
   */
  #fail(boom: Boom, err: NodeJS.ErrnoException): void {
    if (!this.#failed) report_failure(err, this.#fd)
    this.#failed = true
    boom.flushSync = no_flush
  }

  /**
   * Writes what `boom` has queued, blocking, as sonic-boom's synchronous flush does (a write under way in the background
   * lands on its own), waiting out a full pipe as the boom's `retryEAGAIN` says; any other error fails the sink, what
   * was not written staying queued. Never throws: pino's exit hook calls it.
   */
  #flush_queue(q: Boom & BoomQueue): void {
    if (q.destroyed) return
    if (!q._writing && q._writingBuf.length !== 0) {
      q._bufs.unshift([q._writingBuf])
      q._lens.unshift(q._writingBuf.length)
      q._writingBuf = EMPTY
    }
    let buf: Buffer = EMPTY
    while (q._bufs.length !== 0 || buf.length !== 0) {
      if (buf.length === 0) buf = q._bufs[0]!.length === 1 ? q._bufs[0]![0]! : Buffer.concat(q._bufs[0]!, q._lens[0])
      try {
        const n = writeSync(q.fd, buf)
        buf = buf.subarray(n)
        q._len = Math.max(q._len - n, 0)
        if (buf.length === 0) {
          q._bufs.shift()
          q._lens.shift()
        }
      } catch (e) {
        const err = e as NodeJS.ErrnoException
        if ((err.code === 'EAGAIN' || err.code === 'EBUSY') && q.retryEAGAIN(err, buf.length, q._len - buf.length)) {
          pause(EAGAIN_PAUSE_MS)
          continue
        }
        // The part of the first chunk already written is not queued again.
        q._bufs[0] = [buf]
        q._lens[0] = buf.length
        return this.#fail(q, err)
      }
    }
  }

  write(line: string): void {
    if (this.#failed) return
    if (this.#ending === undefined) this.#write(this.#boom, Buffer.from(line))
    else if (Array.isArray(this.#ending)) this.#ending.push(Buffer.from(line))
    else this.#write(this.#ending, Buffer.from(line))
  }

  #write(boom: Boom, chunk: Buffer): void {
    try {
      boom.write(chunk)
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
      this.#write(this.#boom, EMPTY)
    })
  }

  async settle(ms: number): Promise<void> {
    if (!this.#async || this.#ending !== undefined) return
    // sonic-boom's synchronous flush writes its buffer at once and leaves a write under way in the thread pool to land
    // on its own: after it (out of order), or never when a signal then ends the process. So new lines are held back
    // until the boom has drained, then written blocking, as every later line is: the process is ending.
    const held: Buffer[] = (this.#ending = [])
    const write_held = (): void => {
      let tries = 0
      const now = this.#destination({ sync: true, retryEAGAIN: () => ++tries * EAGAIN_PAUSE_MS <= EAGAIN_WAIT_MS })
      this.#ending = now
      if (held.length !== 0) this.#write(now, Buffer.concat(held))
    }
    // Something may end the process meanwhile: the boom's own exit hook writes its buffer first, then the held lines.
    process.once('exit', write_held)
    try {
      if ((await within(this.flush(), ms, LATE)) === LATE) this.flush_sync()
    } finally {
      process.off('exit', write_held)
      write_held()
    }
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

  async settle(ms: number): Promise<void> {
    await within(this.flush(), ms, undefined)
  }

  close(): void {
    this.#stream.off?.('error', this.#on_error)
  }
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const
/** How long a signal that ends the process waits for the lines logged before it. */
const SETTLE_MS = 1000
/** The sink of each core in async mode (the process-wide one, and an App's own destination). */
const signal_sinks = new Map<object, Sink>()

function on_signal(signal: NodeJS.Signals): void {
  const sinks = [...signal_sinks.values()]
  // One shot: fw stops listening before the other listeners run (it listens first), so a library that ends the process
  // only when it is alone (signal-exit) sees itself alone, and no listener waits for the other.
  for (const s of SIGNALS) process.off(s, on_signal)
  signal_sinks.clear()
  // A program handler ends the process as it likes, maybe at once: what is buffered is written now.
  if (process.listenerCount(signal) !== 0) {
    for (const sink of sinks) sink.flush_sync()
    return
  }
  // Nobody else listens, and fw must not swallow the signal: once the lines logged before it are written (a second at
  // most), it is raised again for its usual effect.
  void Promise.all(sinks.map((sink) => sink.settle(SETTLE_MS))).then(() => process.kill(process.pid, signal))
}

/**
 * While `owner`'s async `sink` is set, the first SIGTERM or SIGINT writes its buffered lines, then ends the process as
 * it would have.
 */
export function flush_on_signals(owner: object, sink: Sink | undefined): void {
  const before = signal_sinks.size
  if (sink === undefined) signal_sinks.delete(owner)
  else signal_sinks.set(owner, sink)
  if (before === 0 && signal_sinks.size !== 0) for (const s of SIGNALS) process.prependListener(s, on_signal)
  if (before !== 0 && signal_sinks.size === 0) for (const s of SIGNALS) process.off(s, on_signal)
}
