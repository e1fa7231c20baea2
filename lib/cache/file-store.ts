// The JSON file store: entries in memory, every change written to one file atomically.
import { resolve } from 'node:path'
import { cache_file, type CacheFile } from './cache-file.js'
import { CacheEntry } from './cache-entry.js'
import type { CacheStore, EntryPredicate } from './cache-store.js'
import { option_checker } from '../options.js'
import { ERR_CACHE_BAD_OPTION } from './errors.js'

const check = option_checker(ERR_CACHE_BAD_OPTION, 'FileStore')

/** Options of a `FileStore`. */
export interface FileStoreOptions {
  /** The JSON file (default `./.fw/cache_http.json`, resolved against the working directory when the store is made). */
  file_path?: string
  /** Indent the JSON (default false). */
  pretty_json?: boolean
}

/**
 * The spec's `FileStore`. The file is read on first access, not on construction. Every change is written: the calls
 * change memory and schedule one write of the whole file, off the event loop, shared by the changes of a turn of the
 * loop; `flush()` resolves once they are on disk. A write goes through a temporary file and a rename, creating the
 * folder when needed, so the file on disk is always one complete version. A corrupt file is renamed to
 * `<file>.corrupt-<ms>` and the store starts empty, with a warning (`FW_ERR_CACHE_FILE_CORRUPT`); a write that fails
 * warns once (`FW_ERR_CACHE_FILE_UNWRITABLE`) and the store keeps working in memory. Stores on the same resolved path
 * in one process share their entries. Meant for small caches that must survive a restart.
 * @example
 * const cache = new Cache(new CachePolicy(), new FileStore({ file_path: './.fw/cache_http.json' }))
 */
export class FileStore implements CacheStore {
  readonly file_path: string
  readonly pretty_json: boolean
  readonly #file: CacheFile

  constructor({ file_path = './.fw/cache_http.json', pretty_json = false }: FileStoreOptions = {}) {
    this.file_path = resolve(check.string('file_path', file_path))
    this.pretty_json = check.bool('pretty_json', pretty_json)
    this.#file = cache_file(this.file_path)
  }

  /** How many entries are stored (reads the file on first use). */
  get size(): number {
    return this.#file.entries().size
  }

  /**
   * Stores or replaces the entry under `key` (checked as a `CacheEntry`, so the file always loads again) and writes the
   * file.
   */
  put(key: string, entry: CacheEntry): void {
    const checked = entry instanceof CacheEntry ? entry : new CacheEntry(entry)
    this.#file.entries().set(key, checked)
    this.#file.changed(this.pretty_json)
  }

  /**
   * Resolves once every change made before the call is on disk (the file replaced by a complete new version); rejects
   * with `FW_ERR_CACHE_FILE_UNWRITABLE` when that write failed.
   * @example
   * store.put(key, entry)
   * await store.flush()
   */
  flush(): Promise<void> {
    return this.#file.flush()
  }

  /** The entry under `key`, or undefined. */
  get(key: string): CacheEntry | undefined {
    return this.#file.entries().get(key)
  }

  /** Removes the entry under `key` and writes the file when there was one. */
  erase(key: string): void {
    if (this.#file.entries().delete(key)) this.#file.changed(this.pretty_json)
  }

  /** Removes every entry and writes the file when there were any. */
  clear(): void {
    const entries = this.#file.entries()
    if (entries.size === 0) return
    entries.clear()
    this.#file.changed(this.pretty_json)
  }

  /** Removes every entry `pred(key, entry)` picks, writes the file once when any went, and returns how many. */
  eraseIf(pred: EntryPredicate): number {
    const entries = this.#file.entries()
    const picked = [...entries].filter(([key, entry]) => pred(key, entry))
    for (const [key] of picked) entries.delete(key)
    if (picked.length > 0) this.#file.changed(this.pretty_json)
    return picked.length
  }
}
