// Cache micro-benchmark: Cache.get on a hit, and LruMemoryStore against lru-cache for get and put (same keys, same
// capacity, the same random access sequence), rounds interleaved and the order alternated each round; and FileStore:
// 1,000 puts of 4 KB until flushed, and the longest, 99th percentile and median put.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { LRUCache } from 'lru-cache'
import {
  Cache,
  CacheContext,
  CacheEntry,
  CachePolicy,
  FileStore,
  LruMemoryStore,
  MemoryStore,
} from '../lib/cache/index.js'
import { ratio, scenario_rows, type BenchReport } from './report.js'

const CAPACITY = 1024
/** Twice the capacity, so gets miss about half the time and puts evict, as a cache under real pressure does. */
const KEY_COUNT = 2 * CAPACITY
const SCENARIO = 'cache'

const keys = Array.from(
  { length: KEY_COUNT },
  (_, i) => `GET /api/items/${i}?page=${i % 7} |h:accept=application/json;`,
)
const entry = new CacheEntry({ body: '{"ok":true}', headers: { 'content-type': 'application/json' }, created_at_ms: 0 })

/** A fixed pseudo-random key sequence, the same for every competitor. */
function sequence(length: number): Uint16Array {
  const out = new Uint16Array(length)
  let seed = 12345
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    out[i] = seed % KEY_COUNT
  }
  return out
}

/** Ops per second of `run`, which performs `ops` operations. */
function ops_per_s(ops: number, run: () => unknown): number {
  const start = process.hrtime.bigint()
  run()
  return ops / (Number(process.hrtime.bigint() - start) / 1e9)
}

function filled_lru(): LruMemoryStore {
  const store = new LruMemoryStore({ max_entries: CAPACITY })
  for (const k of keys) store.put(k, entry)
  return store
}

function filled_lru_cache(): LRUCache<string, CacheEntry> {
  const cache = new LRUCache<string, CacheEntry>({ max: CAPACITY })
  for (const k of keys) cache.set(k, entry)
  return cache
}

/** One measurement per competitor; each loop is its own function so neither shares type feedback with the other. */
function measurements(seq: Uint16Array): Record<string, () => number> {
  const n = seq.length
  return {
    'LruMemoryStore get': () => {
      const s = filled_lru()
      return ops_per_s(n, () => {
        let h = 0
        for (let i = 0; i < n; i++) if (s.get(keys[seq[i]!]!)) h++
        return h
      })
    },
    'lru-cache get': () => {
      const c = filled_lru_cache()
      return ops_per_s(n, () => {
        let h = 0
        for (let i = 0; i < n; i++) if (c.get(keys[seq[i]!]!)) h++
        return h
      })
    },
    'LruMemoryStore put': () => {
      const s = filled_lru()
      return ops_per_s(n, () => {
        for (let i = 0; i < n; i++) s.put(keys[seq[i]!]!, entry)
      })
    },
    'lru-cache put': () => {
      const c = filled_lru_cache()
      return ops_per_s(n, () => {
        for (let i = 0; i < n; i++) c.set(keys[seq[i]!]!, entry)
      })
    },
    'Cache.get hit (LruMemoryStore)': () => cache_get_hits(new LruMemoryStore({ max_entries: KEY_COUNT }), seq),
    'Cache.get hit (MemoryStore)': () => cache_get_hits(new MemoryStore(), seq),
  }
}

function cache_get_hits(store: LruMemoryStore | MemoryStore, seq: Uint16Array): number {
  const cache = new Cache(new CachePolicy(), store)
  for (const k of keys) cache.put(k, entry)
  const ctx = CacheContext.Online()
  const n = seq.length
  return ops_per_s(n, () => {
    let h = 0
    for (let i = 0; i < n; i++) if (cache.get(keys[seq[i]!]!, 1000, ctx)) h++
    if (h !== n) throw new Error(`Cache.get missed ${n - h} of ${n} fresh entries`)
  })
}

const FILE_SCENARIO = 'cache FileStore'
const FILE_PUTS = 1000
/** A flat 4 KB body (a concatenation would be a rope, flattened later inside whatever serializes it). */
const file_body = (i: number): string => Buffer.alloc(4096, 'x').fill(String(i), 0, String(i).length).toString('latin1')

type PutFigure = 'longest put' | 'p99 put' | 'median put'

/**
 * One FileStore round in a new folder: `FILE_PUTS` puts of 4 KB, then `flush()`; answers the total and the longest,
 * 99th percentile and median put, in ms (the bounds: under 3 s, and no put holding the event loop 10 ms).
 */
export async function file_store_round(): Promise<{ total_ms: number; put_ms: Record<PutFigure, number> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-bench-file-store-'))
  try {
    const store = new FileStore({ file_path: join(dir, 'c.json') })
    void store.size
    const bodies = Array.from({ length: FILE_PUTS }, (_, i) => file_body(i))
    const times: number[] = []
    const started = performance.now()
    for (let i = 0; i < FILE_PUTS; i++) {
      const put_started = performance.now()
      store.put(`k${i}`, new CacheEntry({ body: bodies[i]!, created_at_ms: i }))
      times.push(performance.now() - put_started)
    }
    await store.flush()
    const total_ms = performance.now() - started
    times.sort((a, b) => a - b)
    const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))]!
    return { total_ms, put_ms: { 'longest put': times.at(-1)!, 'p99 put': at(0.99), 'median put': at(0.5) } }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs the cache scenarios; `quick` uses shorter measurements for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const seq = sequence(opts.quick ? 300_000 : 2_000_000)
  const runs = measurements(seq)
  const names = Object.keys(runs)
  for (const name of names) runs[name]!()
  const figures = new Map<string, number[]>(names.map((n) => [n, []]))
  for (let round = 0; round < opts.rounds; round++) {
    // Each pair runs back to back, first one then the other, swapping who goes first every round.
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const name of order) figures.get(name)!.push(runs[name]!())
    await new Promise((r) => setImmediate(r))
  }
  const { rows, row } = scenario_rows(SCENARIO, figures, 'ops/s')
  const total_row = `${FILE_PUTS} puts of 4 KB and flush`
  const file_figures = new Map<string, number[]>(
    [total_row, 'longest put', 'p99 put', 'median put'].map((n) => [n, []]),
  )
  for (let round = 0; round < opts.rounds; round++) {
    const { total_ms, put_ms } = await file_store_round()
    file_figures.get(total_row)!.push(total_ms)
    for (const [name, ms] of Object.entries(put_ms)) file_figures.get(name)!.push(ms)
  }
  rows.push(...scenario_rows(FILE_SCENARIO, file_figures, 'ms').rows)
  return {
    name: 'cache',
    rows,
    ratios: [
      ratio(SCENARIO, 'LruMemoryStore/lru-cache get', row('LruMemoryStore get'), row('lru-cache get'), 0.8),
      ratio(SCENARIO, 'LruMemoryStore/lru-cache put', row('LruMemoryStore put'), row('lru-cache put'), 0.8),
    ],
    notes: [
      `${CAPACITY} entries of capacity, ${KEY_COUNT} keys, one pseudo-random access sequence of ${seq.length} operations per measurement;` +
        ' gets hit about half the time and puts evict.',
      'Cache.get hit: every key stored and fresh, online context; the figure includes the policy check.',
      `FileStore: ${FILE_PUTS} puts of 4 KB into a new file in the temporary folder, timed until flush() resolves (target` +
        ' under 3000 ms), and the longest (target under 10 ms), 99th percentile and median single put.',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 5 }), null, 2))
}
