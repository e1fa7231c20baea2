// The shared state behind FileStore: one per resolved path and process, loaded lazily, written whole and atomically,
// the writes of a burst of changes coalesced into one, off the event loop.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { threadId } from 'node:worker_threads'
import { CacheEntry } from './cache-entry.js'
import { ERR_CACHE_FILE_CORRUPT, ERR_CACHE_FILE_UNREADABLE, ERR_CACHE_FILE_UNWRITABLE } from './errors.js'

/** The version written into every cache file; a file of another version is set aside like a corrupt one. */
const FORMAT_VERSION = 1

let temp_seq = 0

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/**
 * Entries from a cache file's text; throws on anything but `{"version":1,"entries":{<key>:<entry>}}` with valid
 * entries.
 */
export function parse_cache_file(text: string): Map<string, CacheEntry> {
  const doc = JSON.parse(text) as unknown
  const entries = (doc as { entries?: unknown } | null)?.entries
  if (
    typeof doc !== 'object' ||
    doc === null ||
    (doc as { version?: unknown }).version !== FORMAT_VERSION ||
    typeof entries !== 'object' ||
    entries === null ||
    Array.isArray(entries)
  ) {
    throw new Error(`expected {"version":${FORMAT_VERSION},"entries":{...}}`)
  }
  const map = new Map<string, CacheEntry>()
  // JSON.parse makes a "__proto__" key an own property, so Object.entries sees it as data like any other key.
  for (const [key, value] of Object.entries(entries)) map.set(key, new CacheEntry(value as CacheEntry))
  return map
}

/** A cache file's text for these entries. */
export function serialize_cache_file(entries: ReadonlyMap<string, CacheEntry>, pretty: boolean): string {
  return [...cache_file_chunks([...entries], pretty)].join('')
}

/** Entries per chunk of a written file: about 256 KB of 4 KB entries, so no step of a write holds the loop long. */
const CHUNK_ENTRIES = 64

/** A cache file's text for a snapshot of its entries, made chunk by chunk as the write goes. */
function* cache_file_chunks(entries: ReadonlyArray<[string, CacheEntry]>, pretty: boolean): Generator<string> {
  if (pretty) {
    const doc = { version: FORMAT_VERSION, entries: Object.fromEntries(entries) }
    return yield JSON.stringify(doc, null, 2) + '\n'
  }
  yield `{"version":${FORMAT_VERSION},"entries":{`
  for (let i = 0; i < entries.length; i += CHUNK_ENTRIES) {
    // Each entry's JSON lives only as long as its chunk: kept per entry, it doubled the memory of every put and what
    // each young-generation collection copied, the pauses that made the longest puts.
    const parts = entries
      .slice(i, i + CHUNK_ENTRIES)
      .map(([key, entry]) => `${JSON.stringify(key)}:${JSON.stringify(entry)}`)
    yield (i > 0 ? ',' : '') + parts.join(',')
  }
  yield '}}'
}

/**
 * Writes `text` to a new file and flushes it to the disk before returning, so a rename never publishes unwritten
 * blocks.
 */
function write_durably(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600)
  try {
    writeFileSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Flushes a folder's entries (the rename) to the disk; platforms that cannot open a folder (Windows) skip it. */
function sync_dir(dir: string): void {
  let fd: number
  try {
    fd = openSync(dir, 'r')
  } catch {
    return
  }
  try {
    fsyncSync(fd)
  } catch {
    // Some file systems refuse fsync on a folder (EINVAL); the rename is done, only its durability is left to the OS.
  } finally {
    closeSync(fd)
  }
}

/** `write_durably` and `sync_dir`, then the rename between them, with the file system's work off the event loop. */
async function replace_durably(path: string, temp: string, chunks: Iterable<string>): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const file = await open(temp, 'wx', 0o600)
  try {
    for (const chunk of chunks) await file.writeFile(chunk)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temp, path)
  let dir
  try {
    dir = await open(dirname(path), 'r')
  } catch {
    return
  }
  // Some file systems refuse fsync on a folder (EINVAL); the rename is done, only its durability is left to the OS.
  await dir.sync().catch(() => {})
  await dir.close()
}

/** Files with a change not yet on disk: written synchronously if the process exits before their write ran. */
const pending = new Set<CacheFile>()
process.on('exit', () => {
  for (const file of pending) file.persist()
})

function pid_alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** One cache file's entries in memory, and the writes that keep the file equal to them. */
export class CacheFile {
  readonly path: string
  #entries: Map<string, CacheEntry> | undefined
  /**
   * Set when the file exists but cannot be read (the warning given then): writing would replace data never seen, so
   * entries stay in memory only, and `flush()` rejects with it.
   */
  #unreadable: Error | undefined
  #warned_unwritable = false
  #pretty = false
  /** A change not yet written. */
  #dirty = false
  /** The running write loop, if any. */
  #writing: Promise<void> | undefined
  /** The error of the last write, until one succeeds. */
  #failure: Error | undefined

  constructor(path: string) {
    this.path = path
  }

  /** The entries, read from the file on first use. */
  entries(): Map<string, CacheEntry> {
    return (this.#entries ??= this.#load())
  }

  /**
   * Says the entries changed: one write of every entry starts once the current call stack is done, so a burst of changes
   * costs one write, and changes made while a write runs cost one more after it. `flush()` waits for them.
   */
  changed(pretty: boolean): void {
    if (this.#unreadable !== undefined) return
    this.#pretty = pretty
    this.#dirty = true
    pending.add(this)
    this.#writing ??= this.#write_loop()
  }

  /**
   * Resolves once every change made before the call is on disk; rejects with the `FW_ERR_CACHE_FILE_UNWRITABLE` error
   * when the last write failed (the entries stay in memory, and the next change tries again), and with the
   * `FW_ERR_CACHE_FILE_UNREADABLE` one when the file could not be read (nothing is ever written to it).
   */
  async flush(): Promise<void> {
    this.entries()
    await this.#writing
    const failure = this.#unreadable ?? this.#failure
    if (failure !== undefined) throw failure
  }

  /**
   * Writes every entry to a temporary file beside the cache file, flushes it, renames it over the cache file and
   * flushes the folder (the SQLite order), so after a crash or a power cut the file is the old version or the new one,
   * never torn or empty. Synchronous: run at exit for a file whose change is not on disk yet (its write not started or
   * not finished).
   */
  persist(): void {
    if (this.#unreadable !== undefined) return
    this.#dirty = false
    pending.delete(this)
    const temp = this.#temp()
    try {
      mkdirSync(dirname(this.path), { recursive: true })
      write_durably(temp, serialize_cache_file(this.entries(), this.#pretty))
      renameSync(temp, this.path)
      sync_dir(dirname(this.path))
    } catch (e) {
      this.#failed(e)
      try {
        unlinkSync(temp)
      } catch {
        // Usually the temporary file was never created; there is nothing left to clean.
      }
    }
  }

  /** Writes until no change is left unwritten; never rejects (a failure is warned and kept for `flush`). */
  async #write_loop(): Promise<void> {
    // Let the changes of the current call stack (a loop of puts, an eraseIf) join this write.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.#dirty) {
      this.#dirty = false
      const temp = this.#temp()
      try {
        // rename() replaces the file in one step, so a reader or a crash sees the old version or the new one, never a
        // mix.
        await replace_durably(this.path, temp, cache_file_chunks([...this.entries()], this.#pretty))
        this.#failure = undefined
        this.#warned_unwritable = false
      } catch (e) {
        this.#failed(e)
        await unlink(temp).catch(() => {})
      }
    }
    pending.delete(this)
    this.#writing = undefined
  }

  /**
   * A temporary name no other writer holds: pid, thread and sequence alone repeat across pid namespaces (node as pid 1
   * in two containers on one volume, or a container restarted after a kill -9), so a random part follows them.
   */
  #temp(): string {
    return `${this.path}.${process.pid}.${threadId}.${++temp_seq}.${randomBytes(4).toString('hex')}.tmp`
  }

  /** Keeps the failure for `flush`, and warns once while writing keeps failing (ENOSPC, EACCES, EROFS...). */
  #failed(e: unknown): void {
    this.#failure = ERR_CACHE_FILE_UNWRITABLE(this.path, reason(e), { cause: e })
    if (!this.#warned_unwritable) process.emitWarning(this.#failure)
    this.#warned_unwritable = true
  }

  #load(): Map<string, CacheEntry> {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      // A writer killed during its first write leaves a temporary file and no cache file: clean up after it too.
      if (code === 'ENOENT') this.#remove_stale_temps()
      else if (code !== 'ENOTDIR') {
        this.#unreadable = ERR_CACHE_FILE_UNREADABLE(this.path, reason(e), { cause: e })
        process.emitWarning(this.#unreadable)
      }
      return new Map()
    }
    this.#remove_stale_temps()
    try {
      return parse_cache_file(text)
    } catch (e) {
      process.emitWarning(ERR_CACHE_FILE_CORRUPT(this.path, reason(e), this.#set_aside(), { cause: e }))
      return new Map()
    }
  }

  /** Renames a corrupt file to `<file>.corrupt-<ms>` so it can be inspected; says where it went. */
  #set_aside(): string {
    const aside = `${this.path}.corrupt-${Date.now()}`
    try {
      renameSync(this.path, aside)
      return `moved it to ${aside}`
    } catch (e) {
      return `could not move it aside (${reason(e)})`
    }
  }

  /**
   * Removes temporary files that a killed process left beside the cache file: its pid no longer runs, or it had this
   * pid and thread and wrote the file before this thread started (a restarted container, where node is pid 1 again).
   */
  #remove_stale_temps(): void {
    const prefix = basename(this.path) + '.'
    const dir = dirname(this.path)
    try {
      for (const name of readdirSync(dir)) {
        const m = name.startsWith(prefix)
          ? /^(\d+)\.(\d+)\.\d+(?:\.[0-9a-f]+)?\.tmp$/.exec(name.slice(prefix.length))
          : null
        if (!m) continue
        const pid = Number(m[1])
        try {
          const dead =
            pid === process.pid
              ? Number(m[2]) === threadId && statSync(join(dir, name)).mtimeMs < performance.timeOrigin
              : !pid_alive(pid)
          if (dead) unlinkSync(join(dir, name))
        } catch {
          // Renamed or removed by its writer meanwhile: one file gone from under us must not keep the others.
        }
      }
    } catch {
      // Leftover temporary files cost only disk space; failing to list or remove them must not stop the cache.
    }
  }
}

const open_files = new Map<string, WeakRef<CacheFile>>()
const collected = new FinalizationRegistry<string>((path) => {
  if (open_files.get(path)?.deref() === undefined) open_files.delete(path)
})

/**
 * The one `CacheFile` of this process for an absolute path, so two stores on one file share entries and never
 * interleave writes.
 */
export function cache_file(path: string): CacheFile {
  const open = open_files.get(path)?.deref()
  if (open) return open
  const file = new CacheFile(path)
  open_files.set(path, new WeakRef(file))
  collected.register(file, path)
  return file
}
