// The shared state behind FileStore: one per resolved path and process, loaded lazily, written whole and atomically.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
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
  const doc = { version: FORMAT_VERSION, entries: Object.fromEntries(entries) }
  return pretty ? JSON.stringify(doc, null, 2) + '\n' : JSON.stringify(doc)
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
  /** Set when the file exists but cannot be read: writing would replace data never seen. */
  #memory_only = false
  #warned_unwritable = false

  constructor(path: string) {
    this.path = path
  }

  /** The entries, read from the file on first use. */
  entries(): Map<string, CacheEntry> {
    return (this.#entries ??= this.#load())
  }

  /**
   * Writes every entry to a temporary file beside the cache file, flushes it, renames it over the cache file and
   * flushes the folder (the SQLite order), so after a crash or a power cut the file is the old version or the new one,
   * never torn or empty. Warns once while writing fails (ENOSPC, EACCES, EROFS...); the entries stay in memory.
   */
  persist(pretty: boolean): void {
    if (this.#memory_only) return
    const temp = `${this.path}.${process.pid}.${threadId}.${++temp_seq}.tmp`
    try {
      mkdirSync(dirname(this.path), { recursive: true })
      write_durably(temp, serialize_cache_file(this.entries(), pretty))
      // rename() replaces the file in one step, so a reader or a crash sees the old version or the new one, never a
      // mix.
      renameSync(temp, this.path)
      sync_dir(dirname(this.path))
      this.#warned_unwritable = false
    } catch (e) {
      try {
        unlinkSync(temp)
      } catch {
        // Usually the temporary file was never created; there is nothing left to clean.
      }
      if (!this.#warned_unwritable) process.emitWarning(ERR_CACHE_FILE_UNWRITABLE(this.path, reason(e), { cause: e }))
      this.#warned_unwritable = true
    }
  }

  #load(): Map<string, CacheEntry> {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        this.#memory_only = true
        process.emitWarning(ERR_CACHE_FILE_UNREADABLE(this.path, reason(e), { cause: e }))
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

  /** Removes temporary files that a killed process left beside the cache file (its pid no longer runs). */
  #remove_stale_temps(): void {
    const prefix = basename(this.path) + '.'
    try {
      for (const name of readdirSync(dirname(this.path))) {
        const m = name.startsWith(prefix) ? /^(\d+)\.\d+\.\d+\.tmp$/.exec(name.slice(prefix.length)) : null
        if (m && Number(m[1]) !== process.pid && !pid_alive(Number(m[1]))) unlinkSync(join(dirname(this.path), name))
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
