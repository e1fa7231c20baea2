// Bytes a server process allocates on V8's heap, read from V8's own GC trace: every benchmark server runs with
// `--trace-gc --trace-gc-nvp`, which print one name=value line per collection on the process's stdout, `allocated=`
// being the bytes allocated in every space since the previous collection. Nothing is added to the server's code.
import type { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'

/** The Node flags that make V8 write the lines read here. */
export const GC_TRACE_FLAGS = ['--trace-gc', '--trace-gc-nvp']

/** A server's stdout, read for its `listening <port>` line and for V8's GC lines. */
export interface ServerOutput {
  /** The port of the `listening <port>` line. */
  readonly port: Promise<number>
  /** The sum of `allocated=` over every GC line so far, once the lines already written have been read. */
  allocated(): Promise<Allocated>
}

/** What V8 reported so far: bytes allocated up to the last collection, the collections, and how many were full. */
export interface Allocated {
  bytes: number
  collections: number
  /**
   * Full (mark-compact) collections: a line with `gc=mc`. Their count per request tells which state V8's heap
   * heuristics put a process in, which can decide a scenario's CPU figure (docs/performance.md, "Full collections").
   */
  full: number
}

/**
 * How long the bench waits for GC lines already in the pipe to be read: V8 writes a line (flushed) at the end of each
 * collection, so once the load has stopped, the lines of the collections it caused are in the pipe already.
 */
const DRAIN_MS = 25

/** Reads `stdout` line by line; `exited` rejects the port when the process ends before listening. */
export function server_output(name: string, stdout: Readable, exited: Promise<number | null>): ServerOutput {
  let bytes = 0
  let collections = 0
  let full = 0
  let partial = ''
  let announced: ((port: number) => void) | undefined
  const port = new Promise<number>((resolve, reject) => {
    announced = resolve
    void exited.then((code) => reject(new Error(`${name} exited with ${code} before listening`)))
  })
  stdout.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n')
    partial = lines.pop()!
    for (const line of lines) {
      const at = line.indexOf(' allocated=')
      if (at !== -1) {
        bytes += Number.parseInt(line.slice(at + 11), 10)
        collections++
        if (line.includes(' gc=mc ')) full++
        continue
      }
      const m = /^listening (\d+)$/.exec(line)
      if (m && announced !== undefined) {
        announced(Number(m[1]))
        announced = undefined
      }
    }
  })
  return {
    port,
    async allocated() {
      await sleep(DRAIN_MS)
      return { bytes, collections, full }
    },
  }
}

/** What V8 reported between two readings of one server. */
export function between(before: Allocated, after: Allocated): Allocated {
  return {
    bytes: after.bytes - before.bytes,
    collections: after.collections - before.collections,
    full: after.full - before.full,
  }
}

/**
 * Bytes per unit of work over several windows of one server, pooled: the sum of their bytes over the sum of their units.
 * A collection's line carries what was allocated since the one before, so one window gains the tail of the load before
 * it (allocated after that load's last collection) and loses its own tail, each up to one young generation; a window
 * with few collections is off by as much as it measured. Over consecutive windows of the same server, idle between
 * them, those tails cancel: the pooled figure is off by one tail at most, whatever each window held.
 */
export function pooled(windows: ReadonlyArray<{ allocated: Allocated; units: number }>): number {
  let bytes = 0
  let units = 0
  let collections = 0
  for (const w of windows) {
    bytes += w.allocated.bytes
    units += w.units
    collections += w.allocated.collections
  }
  return collections < MIN_COLLECTIONS ? NaN : bytes / units
}

/**
 * Fewer collections than this over all windows give no figure (NaN, "n/a" in the docs): the tails at both ends could
 * be most of it, and a server that never collected would read 0 bytes.
 */
export const MIN_COLLECTIONS = 4

/** How close a pooled figure over `collections` collections is: within one collection's allocation, about 1/n. */
export function precision(collections: number): string {
  return collections < MIN_COLLECTIONS
    ? `${collections} GCs: too few to measure`
    : `pooled over ${collections} GCs, within about ${Math.ceil(100 / collections)}%`
}
